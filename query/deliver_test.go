package query

import (
	"errors"
	"sync"
	"testing"
	"time"
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
