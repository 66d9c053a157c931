package query

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// TestRenderAhead checks the two-goroutine rendering of candidates: the
// loop gets each candidate's own rendering, in rank order, an error where
// the candidate's rendering failed, and no more than one candidate past
// the last it takes is rendered by each goroutine.
func TestRenderAhead(t *testing.T) {
	ranked := make([]*scored, 50)
	for i := range ranked {
		ranked[i] = &scored{ord: i}
	}
	var mu sync.Mutex
	rendered := map[int]int{}
	boom := errors.New("boom")
	render := func(s *scored) (*entry, error) {
		time.Sleep(time.Duration(s.ord%3) * 100 * time.Microsecond) // uneven work
		mu.Lock()
		rendered[s.ord]++
		mu.Unlock()
		if s.ord == 42 {
			return nil, boom
		}
		return &entry{s: s, cost: s.ord * 10}, nil
	}
	for _, last := range []int{0, 1, 7, 41, 42, 49} {
		clear(rendered)
		a := startRenderAhead(ranked, render)
		for i := 0; i <= last; i++ {
			en, err := a.take(i)
			switch {
			case i == 42:
				if !errors.Is(err, boom) {
					t.Errorf("take(42) = %v, %v; want its error", en, err)
				}
			case err != nil || en.s != ranked[i] || en.cost != i*10:
				t.Fatalf("take(%d) = %+v, %v", i, en, err)
			}
		}
		a.stop()
		for ord, n := range rendered {
			if n != 1 {
				t.Errorf("last %d: candidate %d rendered %d times", last, ord, n)
			}
			if ord > last+renderLead+1 {
				t.Errorf("last %d: candidate %d rendered, more than %d past the last taken", last, ord, renderLead+1)
			}
		}
		for i := 0; i <= last; i++ {
			if rendered[i] != 1 {
				t.Errorf("last %d: candidate %d taken but rendered %d times", last, i, rendered[i])
			}
		}
	}
}

// TestRenderAheadStopsOnError checks that a loop which gives up on an
// error leaves no worker behind: stop returns once the worker has.
func TestRenderAheadStopsOnError(t *testing.T) {
	ranked := make([]*scored, 100)
	for i := range ranked {
		ranked[i] = &scored{ord: i}
	}
	boom := errors.New("boom")
	a := startRenderAhead(ranked, func(s *scored) (*entry, error) {
		if s.ord == 3 {
			return nil, boom
		}
		return &entry{s: s}, nil
	})
	var err error
	for i := 0; err == nil; i++ {
		_, err = a.take(i)
	}
	done := make(chan struct{})
	go func() {
		a.stop()
		a.stop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return: the worker is stuck")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.out) > 4+renderLead+1 {
		t.Errorf("%d candidates claimed for a loop that stopped at the fourth", len(a.out))
	}
}

// TestDeliverLeavesNoWorker checks that a query whose delivery fails (a
// page that no longer loads, after Open) leaves no render worker behind.
func TestDeliverLeavesNoWorker(t *testing.T) {
	dir, _, e := indexedEngine(t, "cache") // one term: no phrase check reads items before delivery
	for _, folder := range []string{"wiki", "projects"} {
		if err := os.RemoveAll(filepath.Join(dir, folder)); err != nil {
			t.Fatal(err)
		}
	}
	before := runtime.NumGoroutine()
	_, err := e.run()
	var ce *artifacts.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("run after the pages went = %v; want a CorruptError", err)
	}
	for range 200 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines before the failed delivery, %d after", before, runtime.NumGoroutine())
}
