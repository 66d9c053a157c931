package query

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's setting without changing it.
func gcPercent() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// TestHoldLightGC: while index corpora are open the collector runs at
// indexedGCPercent, the default comes back when the last one closes, and
// a setting of the process's own is left alone.
func TestHoldLightGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	a := holdLightGC()
	b := holdLightGC()
	if got := gcPercent(); got != indexedGCPercent {
		t.Fatalf("two open: GOGC %d, want %d", got, indexedGCPercent)
	}
	a()
	a() // a second release of one hold changes nothing
	if got := gcPercent(); got != indexedGCPercent {
		t.Errorf("one still open: GOGC %d, want %d", got, indexedGCPercent)
	}
	b()
	if got := gcPercent(); got != 100 {
		t.Errorf("none open: GOGC %d, want 100", got)
	}
	debug.SetGCPercent(50)
	c := holdLightGC()
	if got := gcPercent(); got != 50 {
		t.Errorf("the process's own 50: GOGC %d while open", got)
	}
	c()
	if got := gcPercent(); got != 50 {
		t.Errorf("the process's own 50: GOGC %d after", got)
	}
}
