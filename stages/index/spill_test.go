package index

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

// TestSpilledSegmentsMergeAsInMemory cuts the demo's items into runs and
// spills some or all of them, to a scratch file on disk and in memory:
// every artifact must be byte for byte what the segments held in memory
// give, and spilling must let go of the postings.
func TestSpilledSegmentsMergeAsInMemory(t *testing.T) {
	items, loaded := demoItems(t)
	cuts := []int{0, 3, 4, 17, 30, len(items)}
	segments := func() []Segment {
		var segs []Segment
		for i := 1; i < len(cuts); i++ {
			segs = append(segs, NewSegment(items[cuts[i-1]:cuts[i]]))
		}
		return segs
	}
	build := func(segs []Segment) []artifacts.File {
		out, err := Run(context.Background(), Input{Config: loaded.Base.Config, Segments: segs, Documents: DocumentRows(loaded.Base.Config, loaded.Base.Documents)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Files
	}
	want := build(segments())
	spool, err := artifacts.NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Discard()
	for _, c := range []struct {
		name  string
		spool *artifacts.Spool
		which func(i int) bool
	}{
		{"all, on disk", spool, func(int) bool { return true }},
		{"all, in memory", nil, func(int) bool { return true }},
		{"every other, on disk", spool, func(i int) bool { return i%2 == 0 }},
		{"the last, in memory", nil, func(i int) bool { return i == len(cuts)-2 }},
	} {
		for _, rows := range []bool{false, true} {
			sc := c.spool.Scratch(artifacts.PostingsPath)
			segs := segments()
			for i := range segs {
				if !c.which(i) {
					continue
				}
				if rows {
					seg, err := NewSpilledSegment(items[cuts[i]:cuts[i+1]], nil, sc, loaded.Base.Config)
					if err != nil {
						t.Fatal(err)
					}
					segs[i] = seg
				} else if err := segs[i].Spill(sc); err != nil {
					t.Fatal(err)
				}
				if segs[i].flat != nil || segs[i].words != "" || rows && segs[i].Rows != nil {
					t.Fatalf("%s: segment %d still holds its postings or rows after spilling", c.name, i)
				}
			}
			got := build(segs)
			sc.Remove()
			for i := range want {
				if !bytes.Equal(want[i].Data, got[i].Data) {
					t.Errorf("%s, rows spilled %v: %s differs from the in-memory merge", c.name, rows, want[i].Path)
				}
			}
		}
	}
}

// TestSpilledSegmentsOutOfOrder: spilled runs given out of URI order, or
// overlapping, are refused as runs in memory are.
func TestSpilledSegmentsOutOfOrder(t *testing.T) {
	items, loaded := demoItems(t)
	sc := (*artifacts.Spool)(nil).Scratch(artifacts.PostingsPath)
	spilled := func(from, to int) Segment {
		seg, err := NewSpilledSegment(items[from:to], nil, sc, loaded.Base.Config)
		if err != nil {
			t.Fatal(err)
		}
		return seg
	}
	for name, segs := range map[string][]Segment{
		"swapped":     {spilled(10, 20), spilled(0, 10)},
		"overlapping": {spilled(0, 12), spilled(11, 20)},
		"mixed":       {NewSegment(items[5:12]), spilled(0, 6)},
	} {
		if _, err := Run(context.Background(), Input{Config: loaded.Base.Config, Segments: segs}); err == nil || !strings.Contains(err.Error(), "out of URI order") {
			t.Errorf("%s: %v", name, err)
		}
	}
	backwards := slices.Clone(items[:5])
	slices.Reverse(backwards)
	if _, err := NewSpilledSegment(backwards, nil, sc, loaded.Base.Config); err == nil || !strings.Contains(err.Error(), "out of URI order") {
		t.Errorf("a run out of order spilled: %v", err)
	}
}

// TestDamagedRowsAreAnError: spilled rows that cannot be read back as
// written fail the build.
func TestDamagedRowsAreAnError(t *testing.T) {
	items, loaded := demoItems(t)
	sc := (*artifacts.Spool)(nil).Scratch(artifacts.PostingsPath)
	seg, err := NewSpilledSegment(items, nil, sc, loaded.Base.Config)
	if err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	whole.ReadFrom(sc.Section(seg.rows.at))
	for _, damaged := range [][]byte{whole.Bytes()[:whole.Len()-1], append(whole.Bytes(), 0), bytes.Repeat([]byte{0xff}, whole.Len())} {
		bad := (*artifacts.Spool)(nil).Scratch(artifacts.PostingsPath)
		at, _ := bad.Append(damaged)
		cut := seg
		cut.rows = &spilledRows{scratch: bad, at: at, n: seg.rows.n, placings: seg.rows.placings, first: seg.rows.first, last: seg.rows.last}
		if _, err := Run(context.Background(), Input{Config: loaded.Base.Config, Segments: []Segment{cut}}); err == nil || !strings.Contains(err.Error(), "reading back a run of rows") {
			t.Errorf("%d damaged bytes: %v", len(damaged), err)
		}
	}
}

// TestDamagedRunIsAnError: a spilled run that cannot be read back as it
// was written ends the build with an error, never a panic or a quiet
// index with postings missing.
func TestDamagedRunIsAnError(t *testing.T) {
	items, loaded := demoItems(t)
	for _, damage := range []struct {
		name string
		cut  func(b []byte) []byte
	}{
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }},
		{"a record longer than the run", func(b []byte) []byte { return append([]byte{0xff, 0xff, 0x7f}, b[3:]...) }},
		{"zeroed", func(b []byte) []byte { return make([]byte, len(b)) }},
	} {
		sc := (*artifacts.Spool)(nil).Scratch(artifacts.PostingsPath)
		seg := NewSegment(items)
		if err := seg.Spill(sc); err != nil {
			t.Fatal(err)
		}
		var whole bytes.Buffer
		whole.ReadFrom(sc.Section(seg.spilled.at))
		damaged := (*artifacts.Spool)(nil).Scratch(artifacts.PostingsPath)
		at, err := damaged.Append(damage.cut(whole.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		seg.spilled.scratch, seg.spilled.at = damaged, at
		_, err = Run(context.Background(), Input{Config: loaded.Base.Config, Segments: []Segment{seg}})
		if err == nil || !strings.Contains(err.Error(), "reading back an inverted run") {
			t.Errorf("%s: Run gave %v, want an error reading the run back", damage.name, err)
		}
	}
}
