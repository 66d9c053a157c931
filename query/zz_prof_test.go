package query

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		return
	}
	f, _ := os.Create("/tmp/q.prof")
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	for range 20 {
		for _, q := range [][]string{{"what", "changed", "in", "certificate", "renewal"}, {"repo:github.com/acme/quarry"}} {
			t0 := time.Now()
			_, err := Context(context.Background(), "/tmp/b100k", Request{Words: q, Budget: 4096, AsOf: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC), Format: "text"})
			if err != nil {
				t.Fatal(err)
			}
			_ = t0
		}
	}
}
