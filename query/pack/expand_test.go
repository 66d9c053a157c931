package pack

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
)

func TestExpandBoundsHubsAndFailsClosed(t *testing.T) {
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	words := []string{"alpha"}
	sc, err := corpus.Scan(context.Background(), querytest.HubBase(), words)
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := question.Parse(words, asOf, "", "")
	e := newEngine(sc, Request{Words: words, Budget: DefaultBudget, AsOf: asOf, Expand: true, Format: render.FormatJSON}, parsed, corpus.Index{State: corpus.StateMissing}, nil)
	if _, err := e.prepare(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.truncated, []string{"repo:x/hub"}) {
		t.Errorf("truncated entities %v, want the hub repo:x/hub (250 inbound edges, 200 followed)", e.truncated)
	}
	if !slices.Equal(e.closedSeeds, []string{"events/2026-11-02/notes.json#wide"}) {
		t.Errorf("unexpanded seeds %v, want the record with 70 relations", e.closedSeeds)
	}
	joined := 0
	for _, s := range e.Pool {
		row, err := e.RowOf(s)
		if err != nil {
			t.Fatal(err)
		}
		if s.Related {
			joined++
			rs, err := e.Reasons(s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(rs, func(r rank.Reason) bool { return r.Code == "expand" && r.Points == rank.PointsExpand }) {
				t.Errorf("%s is related but has no +%d expand reason", row.URI, rank.PointsExpand)
			}
		}
		if row.URI == "events/2026-11-02/notes.json#near" && s.Related {
			t.Error("near joined through the wide seed, whose neighbourhood should not be followed")
		}
	}
	if joined == 0 || joined > 200 {
		t.Errorf("%d items joined; want some, and at most the 200 newest inbound edges of the hub", joined)
	}
}

// TestOrderAgreesWithItsKeys: order's packed keys sort as the keys they
// pack compared one by one (commitment, direct identity, matched terms,
// related, page, score, then newest; with "last", dated first and the
// strongest field), negative scores included.
func TestOrderAgreesWithItsKeys(t *testing.T) {
	sc, err := corpus.Scan(context.Background(), querytest.HubBase(), []string{"alpha"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, last := range []bool{false, true} {
		e := &engine{Ranking: rank.Ranking{Corpus: sc, Parsed: question.Parsed{Last: last}, Terms: []*words.Stats{{Term: "a"}, {Term: "b"}}}}
		var pool []*rank.Scored
		for i := range 3000 {
			k := &artifacts.Key{Chrono: uint32(r.IntN(3000)), Flags: artifacts.KeyFlags(r.IntN(1 << 14))}
			pool = append(pool, &rank.Scored{Ord: i, Key: k, Score: r.IntN(400) - 200, Matched: r.IntN(4), BestWeight: r.IntN(101),
				Direct: r.IntN(2) == 0, Related: r.IntN(2) == 0})
		}
		want := slices.Clone(pool)
		b := func(v bool) int {
			if v {
				return 1
			}
			return 0
		}
		slices.SortStableFunc(want, func(x, y *rank.Scored) int {
			var kx, ky []int
			if last {
				kx = []int{b(x.Key.Flags&artifacts.KeyDated != 0), b(x.Direct), b(x.Related), x.BestWeight}
				ky = []int{b(y.Key.Flags&artifacts.KeyDated != 0), b(y.Direct), b(y.Related), y.BestWeight}
			} else {
				// Two meaningful terms or more are one tier; pages
				// come first only at equal score.
				kx = []int{b(x.Direct), min(x.Matched, rank.MultiTerm), b(x.Related), x.Score, b(rank.IsPage(x.Key))}
				ky = []int{b(y.Direct), min(y.Matched, rank.MultiTerm), b(y.Related), y.Score, b(rank.IsPage(y.Key))}
			}
			for i := range kx {
				if c := cmp.Compare(ky[i], kx[i]); c != 0 {
					return c
				}
			}
			return cmp.Or(cmp.Compare(x.Key.Chrono, y.Key.Chrono), cmp.Compare(x.Ord, y.Ord))
		})
		e.Pool = slices.Clone(pool)
		e.order()
		for i := range want {
			if e.Pool[i] != want[i] && !sameKeys(e.Pool[i], want[i], last) {
				t.Fatalf("last=%v: position %d holds item %d, want item %d", last, i, e.Pool[i].Ord, want[i].Ord)
			}
		}
	}
}

// sameKeys reports whether two items tie on every key order uses, so that
// either may come first.
func sameKeys(x, y *rank.Scored, last bool) bool {
	same := x.Key.Chrono == y.Key.Chrono && x.Direct == y.Direct && x.Related == y.Related
	if last {
		return same && x.Key.Flags&artifacts.KeyDated == y.Key.Flags&artifacts.KeyDated && x.BestWeight == y.BestWeight
	}
	return same && min(x.Matched, rank.MultiTerm) == min(y.Matched, rank.MultiTerm) && rank.IsPage(x.Key) == rank.IsPage(y.Key) && x.Score == y.Score
}
