package query

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/words"
)

// hubBase has 250 records that relate to one repository (ten of them
// mention "alpha", the rest "beta"), a record "wide" that mentions alpha
// and relates to 70 tickets, and a record "near" that shares only a
// ticket with "wide".
func hubBase() fstest.MapFS {
	var recs []string
	for i := range 250 {
		word := "beta"
		if i < 10 {
			word = "alpha"
		}
		recs = append(recs, fmt.Sprintf(`{"id": "r%03d", "t": "%s note %d", "at": "2026-11-02T%02d:%02d:00Z", "rel": ["repo:x/hub"]}`, i, word, i, i/60, i%60))
	}
	var tickets []string
	for i := range 70 {
		tickets = append(tickets, fmt.Sprintf(`"ticket:T-%d"`, i))
	}
	recs = append(recs, `{"id": "wide", "t": "alpha alpha wide", "at": "2026-11-02T23:00:00Z", "rel": [`+strings.Join(tickets, ",")+`]}`)
	recs = append(recs, `{"id": "near", "t": "alpha near", "at": "2026-11-02T23:30:00Z", "rel": ["ticket:T-5"]}`)
	doc := `{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at", "rel": ".rel[]"}, "records": [` + strings.Join(recs, ",\n") + `]}`
	return fstest.MapFS{
		"cairn.yaml":                   {Data: []byte("schema: {rel: {relation: true}}\n")},
		"events/2026-11-02/notes.json": {Data: []byte(doc)},
	}
}

func TestExpandBoundsHubsAndFailsClosed(t *testing.T) {
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	words := []string{"alpha"}
	sc, err := corpus.Scan(context.Background(), hubBase(), words)
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := question.Parse(words, asOf, "", "")
	e := &engine{c: sc, req: Request{Words: words, Budget: DefaultBudget, AsOf: asOf, Expand: true, Format: FormatJSON}, parsed: parsed, state: corpus.Index{State: corpus.StateMissing}}
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
	for _, s := range e.pool {
		row, err := e.rowOf(s)
		if err != nil {
			t.Fatal(err)
		}
		if s.related {
			joined++
			rs, err := e.reasons(s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(rs, func(r Reason) bool { return r.Code == "expand" && r.Points == pointsExpand }) {
				t.Errorf("%s is related but has no +%d expand reason", row.URI, pointsExpand)
			}
		}
		if row.URI == "events/2026-11-02/notes.json#near" && s.related {
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
	sc, err := corpus.Scan(context.Background(), hubBase(), []string{"alpha"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, last := range []bool{false, true} {
		e := &engine{c: sc, parsed: question.Parsed{Last: last}, terms: []*words.Stats{{Term: "a"}, {Term: "b"}}}
		var pool []*scored
		for i := range 3000 {
			k := &artifacts.Key{Chrono: uint32(r.IntN(3000)), Flags: artifacts.KeyFlags(r.IntN(1 << 14))}
			pool = append(pool, &scored{ord: i, key: k, score: r.IntN(400) - 200, matched: r.IntN(4), bestWeight: r.IntN(101),
				direct: r.IntN(2) == 0, related: r.IntN(2) == 0})
		}
		want := slices.Clone(pool)
		b := func(v bool) int {
			if v {
				return 1
			}
			return 0
		}
		slices.SortStableFunc(want, func(x, y *scored) int {
			var kx, ky []int
			if last {
				kx = []int{b(x.key.Flags&artifacts.KeyDated != 0), b(x.direct), b(x.related), x.bestWeight}
				ky = []int{b(y.key.Flags&artifacts.KeyDated != 0), b(y.direct), b(y.related), y.bestWeight}
			} else {
				// Two meaningful terms or more are one tier; pages
				// come first only at equal score.
				kx = []int{b(x.direct), min(x.matched, multiTerm), b(x.related), x.score, b(isPage(x.key))}
				ky = []int{b(y.direct), min(y.matched, multiTerm), b(y.related), y.score, b(isPage(y.key))}
			}
			for i := range kx {
				if c := cmp.Compare(ky[i], kx[i]); c != 0 {
					return c
				}
			}
			return cmp.Or(cmp.Compare(x.key.Chrono, y.key.Chrono), cmp.Compare(x.ord, y.ord))
		})
		e.pool = slices.Clone(pool)
		e.order()
		for i := range want {
			if e.pool[i] != want[i] && !sameKeys(e.pool[i], want[i], last) {
				t.Fatalf("last=%v: position %d holds item %d, want item %d", last, i, e.pool[i].ord, want[i].ord)
			}
		}
	}
}

// sameKeys reports whether two items tie on every key order uses, so that
// either may come first.
func sameKeys(x, y *scored, last bool) bool {
	same := x.key.Chrono == y.key.Chrono && x.direct == y.direct && x.related == y.related
	if last {
		return same && x.key.Flags&artifacts.KeyDated == y.key.Flags&artifacts.KeyDated && x.bestWeight == y.bestWeight
	}
	return same && min(x.matched, multiTerm) == min(y.matched, multiTerm) && isPage(x.key) == isPage(y.key) && x.score == y.score
}
