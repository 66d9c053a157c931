package diag

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	text := "ab\ncd\n\nefg"
	// In order, then back, then forward again; every answer agrees with
	// LineColString, which reads the whole prefix each time.
	offs := []int{0, 1, 2, 3, 5, 6, 7, 10, 99, 4, 0, -1, 8, 10}
	l := NewLines(text)
	for _, off := range offs {
		line, col := l.Pos(off)
		wl, wc := LineColString(text, off)
		if line != wl || col != wc {
			t.Errorf("Pos(%d) = %d:%d, want %d:%d", off, line, col, wl, wc)
		}
	}
	if l.Scanned() > 2*len(text) {
		t.Errorf("read %d bytes of a %d-byte text", l.Scanned(), len(text))
	}
}

// TestLinesOneLine checks that the columns of many offsets on one long
// line cost one reading of the text, not one per offset.
func TestLinesOneLine(t *testing.T) {
	text := strings.Repeat("x", 1<<20)
	l := NewLines(text)
	for off := 0; off < len(text); off += 64 {
		if line, col := l.Pos(off); line != 1 || col != off+1 {
			t.Fatalf("Pos(%d) = %d:%d", off, line, col)
		}
	}
	if l.Scanned() > len(text) {
		t.Errorf("read %d bytes of a %d-byte line", l.Scanned(), len(text))
	}
}
