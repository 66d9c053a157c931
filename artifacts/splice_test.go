package artifacts

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSplicePostingsIsAnEncode renumbers random postings lines both ways,
// through SplicePostings and by decoding, renumbering and encoding them
// again, and requires the same text and distinct items. Half the rounds
// move items at random; the other half replace one run of items by as
// many new ones, as an edit of one document does, so that the rest of a
// line is often copied unread. Each line is spliced twice: reading every
// posting (a field callback), and free to copy the rest unread.
func TestSplicePostingsIsAnEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const items = 40
	for round := range 4000 {
		// An old line of postings over items 0..39, an item's in up to
		// three fields.
		var old []Posting
		for d := range int32(items) {
			if rng.IntN(4) == 0 {
				for f := range uint16(1 + rng.IntN(3)) {
					old = append(old, Posting{Doc: d, Field: f * 3, TF: uint16(1 + rng.IntN(3))})
				}
			}
		}
		if len(old) == 0 {
			continue
		}
		gone := map[int32]bool{}
		moved := map[int32]int32{}
		var added []Posting
		// A new item holds the term only half the time: one that does not
		// leaves the stretch's deltas as they were. It holds it in one
		// field or two (a comma between them).
		add := func(doc int32) {
			if rng.IntN(2) == 0 {
				added = append(added, Posting{Doc: doc, Field: 1, TF: 1})
				if rng.IntN(2) == 0 {
					added = append(added, Posting{Doc: doc, Field: 4, TF: uint16(1 + rng.IntN(2))})
				}
			}
		}
		if round%2 == 0 {
			// Items leave at random; the rest move up by what left before
			// them plus the new items inserted before them.
			next := int32(0)
			for d := range int32(items) {
				if rng.IntN(6) == 0 {
					add(next)
					next++
				}
				if rng.IntN(5) == 0 {
					gone[d] = true
					continue
				}
				moved[d] = next
				next++
			}
		} else {
			// Items from..to-1 are replaced by as many new ones.
			from := int32(rng.IntN(items))
			to := from + int32(rng.IntN(4))
			for d := range int32(items) {
				if d >= from && d < to {
					gone[d] = true
					add(d)
				} else {
					moved[d] = d
				}
			}
		}
		move := func(o int32) (int32, bool) { n, ok := moved[o]; return n, ok && !gone[o] }
		var kept []Stretch
		for d := range int32(items) {
			n, ok := move(d)
			if !ok {
				continue
			}
			if l := len(kept); l > 0 && kept[l-1].From+kept[l-1].N == d && kept[l-1].To+kept[l-1].N == n {
				kept[l-1].N++
			} else {
				kept = append(kept, Stretch{From: d, N: 1, To: n})
			}
		}
		w := NewPostingsWriter(1, 0)
		_, line, _ := w.encodeOne(old)
		list := bytes.TrimSuffix(line, []byte("\n"))
		oldItems := map[int32]bool{}
		for _, p := range old {
			oldItems[p.Doc] = true
		}
		var want []Posting
		for _, p := range old {
			if n, ok := move(p.Doc); ok {
				p.Doc = n
				want = append(want, p)
			}
		}
		want = append(want, added...)
		slices.SortFunc(want, func(a, b Posting) int { return int(a.Doc-b.Doc)*8 + int(a.Field) - int(b.Field) })
		var wantList []byte
		if len(want) > 0 {
			_, wantLine, _ := NewPostingsWriter(1, 0).encodeOne(want)
			wantList = bytes.TrimSuffix(wantLine, []byte("\n"))
		}
		wantItems := map[int32]bool{}
		for _, p := range want {
			wantItems[p.Doc] = true
		}
		var fields, wantFields []uint16
		for _, p := range old {
			if _, ok := move(p.Doc); ok {
				wantFields = append(wantFields, p.Field)
			}
		}
		for _, field := range []func(uint16){func(f uint16) { fields = append(fields, f) }, nil} {
			got, df, err := SplicePostings(nil, list, len(oldItems), Moves{Kept: kept, Items: items}, added, field)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wantList) {
				t.Fatalf("round %d (field callback %t): got %q, want %q", round, field != nil, got, wantList)
			}
			if df != len(wantItems) {
				t.Fatalf("round %d (field callback %t): df %d, want %d", round, field != nil, df, len(wantItems))
			}
		}
		if !slices.Equal(fields, wantFields) {
			t.Fatalf("round %d: kept postings' fields %v, want %v", round, fields, wantFields)
		}
	}
}

// encodeOne writes one term "t" with postings ps and returns its line.
func (w *PostingsWriter) encodeOne(ps []Posting) (dict, line []byte, err error) {
	w.Begin("t")
	for _, p := range ps {
		w.Add(p)
	}
	w.End()
	d, post, err := w.Bytes()
	return d, post[len(postingsHeader):], err
}

// TestKeyPlacedReadsWhatPatchKeyWrites: the columns a splice keeps read
// back as they were written, a missing group as -1.
func TestKeyPlacedReadsWhatPatchKeyWrites(t *testing.T) {
	for _, k := range []Key{
		{Chrono: 7, Source: 3, TitleGroup: 12, URLGroup: -1},
		{Chrono: MaxItems - 1, Source: MaxSources - 1, TitleGroup: -1, URLGroup: MaxItems - 1},
	} {
		line, err := AppendKey(nil, &Key{Offset: 9, Day: 20261102, Norms: []byte{1}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		patched, err := PatchKey(nil, line, &Key{Offset: 40, Chrono: k.Chrono, Source: k.Source, TitleGroup: k.TitleGroup, URLGroup: k.URLGroup})
		if err != nil {
			t.Fatal(err)
		}
		got, err := KeyPlaced(patched)
		if err != nil || got.Chrono != k.Chrono || got.Source != k.Source || got.TitleGroup != k.TitleGroup || got.URLGroup != k.URLGroup {
			t.Errorf("KeyPlaced(%q) = %+v, %v; want %+v", patched, got, err, k)
		}
	}
	if _, err := KeyPlaced([]byte("not a key line")); err == nil {
		t.Error("a short line read as a key")
	}
	line, _ := AppendKey(nil, &Key{Norms: []byte{1}}, 1)
	if _, err := PatchKey(nil, line, &Key{Chrono: MaxItems}); err == nil {
		t.Error("PatchKey wrote a rank past MaxItems")
	}
}
