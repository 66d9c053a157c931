package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// TestMovedPlacesIsTheKeyTable splices random rows: units of rows leave,
// new ones arrive between the kept ones, and the keys movedPlaces reads
// back from the old keys must be, row for row, those the key table
// computes over every new row. The rows share a few sources, titles, URL
// keys and stamps, so that groups gain and lose their first rows and
// stamps tie.
func TestMovedPlacesIsTheKeyTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	cfg := model.Config{}
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	newRow := func(uri string) artifacts.Doc {
		d := artifacts.Doc{URI: uri, Kind: "events", Digest: "00000000000000aa", Source: pick("mail", "tickets", "wiki"),
			Title: pick("", "a", "b", "c"), URLKey: pick("", "", "0123456789abcdef", "fedcba9876543210"),
			Date: pick("2026-11-01", "2026-11-02", "")}
		if d.Date != "" && rng.IntN(2) == 0 {
			d.Time = d.Date + pick("T08:00:00Z", "T09:30:00Z")
		}
		return d
	}
	for round := range 300 {
		// The old index: units of 1 to 3 rows, in URI order.
		var old []artifacts.Doc
		units := 2 + rng.IntN(8)
		for u := range units {
			for k := range 1 + rng.IntN(3) {
				old = append(old, newRow(fmt.Sprintf("u%02d#%d", u*2, k)))
			}
		}
		oldKey := keysOf(t, old)
		lines := make([]artifacts.DocLine, len(old))
		for i, d := range old {
			lines[i] = artifacts.DocLine{URI: d.URI, Source: d.Source, Date: d.Date, Time: d.Time, URLKey: d.URLKey, Title: d.Title}
		}
		// The new index: each old unit kept or dropped, and new units
		// (odd numbers) between them.
		var r Renumbering
		var now []artifacts.Doc
		var fresh []artifacts.Doc
		freshAt := map[int32]int{}
		at := int32(0)
		for u := 0; u <= 2*units; u++ {
			if u%2 == 1 || u == 2*units {
				if rng.IntN(3) > 0 {
					continue
				}
				for k := range 1 + rng.IntN(2) {
					d := newRow(fmt.Sprintf("u%02d#%d", u, k))
					freshAt[at] = len(fresh)
					fresh, now = append(fresh, d), append(now, d)
					r.pieces = append(r.pieces, piece{from: -1, n: 1, seg: len(fresh) - 1, at: at})
					at++
				}
				continue
			}
			from, to := -1, -1
			for i, d := range old {
				if d.URI[:3] == fmt.Sprintf("u%02d", u) {
					to = i + 1
					if from < 0 {
						from = i
					}
				}
			}
			if rng.IntN(4) == 0 { // the unit leaves
				continue
			}
			r.pieces = append(r.pieces, piece{from: int32(from), n: int32(to - from), seg: -1, at: at})
			now = append(now, old[from:to]...)
			at += int32(to - from)
		}
		r.Items = len(now)
		ks, stamps, err := movedPlaces(cfg, lines, oldKey, artifacts.KeyWidth(0), fresh, freshAt, 0, r)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		table, err := project.NewKeyTable(len(now), func(i int) *artifacts.Doc { return &now[i] }, 0, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range now {
			want := table.Placed(i)
			get := ks.placed
			if _, ok := freshAt[int32(i)]; ok {
				get = ks.fresh
			}
			got, err := get(int32(i))
			if err != nil {
				t.Fatalf("round %d, row %d: %v", round, i, err)
			}
			if got.Chrono != want.Chrono || got.Source != want.Source || got.TitleGroup != want.TitleGroup || got.URLGroup != want.URLGroup {
				t.Fatalf("round %d, row %d (%+v): placed %+v, the key table %+v", round, i, now[i], got, want)
			}
			if stamps[i] != project.Newest(&now[i]) {
				t.Fatalf("round %d, row %d: stamp %q, want %q", round, i, stamps[i], project.Newest(&now[i]))
			}
		}
	}
}

// keysOf is docs.key for rows, as a whole build writes it (no fields).
func keysOf(t *testing.T, rows []artifacts.Doc) []byte {
	t.Helper()
	table, err := project.NewKeyTable(len(rows), func(i int) *artifacts.Doc { return &rows[i] }, 0, model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ords := make([]int, len(rows))
	for i := range ords {
		ords[i] = i
	}
	keys, err := table.KeysOf(ords)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(artifacts.KeysHeader(0))
	for i := range keys {
		if b, err = artifacts.AppendKey(b, &keys[i], 0); err != nil {
			t.Fatal(err)
		}
	}
	return b
}
