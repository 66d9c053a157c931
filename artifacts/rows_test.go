package artifacts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortedRowsBetween reads ranges of a random edges.tsv by positioned
// reads and requires the rows a whole read would filter: every range's
// ends inside, before, after and between the keys, over rows some of
// which are longer than a read block.
func TestSortedRowsBetween(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []Adjacency
	for i := range 300 {
		node := fmt.Sprintf("events/d%03d.json#%d", i/7, i)
		links := []Link{{Kind: "rel:repo", Node: "repo:x"}}
		if rng.IntN(20) == 0 {
			for k := range 400 {
				links = append(links, Link{Kind: "tag", Node: fmt.Sprintf("tag:t%04d", k)})
			}
		}
		rows = append(rows, Adjacency{Node: node, Links: links})
	}
	slices.SortFunc(rows, func(a, b Adjacency) int { return strings.Compare(a.Node, b.Node) })
	data := must(EncodeEdges(rows))
	s, err := NewSortedRows(bytes.NewReader(data), int64(len(data)), EdgesPath)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"", "a", "events/", "events/d000.json#", "events/d000.json$", "zzz"}
	for _, r := range rows {
		keys = append(keys, r.Node, r.Node+"\x00", r.Node[:len(r.Node)-1])
	}
	body := data[len(edgesHeader):]
	for range 2000 {
		lo, hi := keys[rng.IntN(len(keys))], keys[rng.IntN(len(keys))]
		var want []byte
		for _, line := range bytes.SplitAfter(body, []byte{'\n'}) {
			key, _, _ := bytes.Cut(line, []byte{'\t'})
			if len(line) > 0 && string(key) >= lo && string(key) < hi {
				want = append(want, line...)
			}
		}
		first := len(body) // FirstRow, in memory, finds where Between starts
		for at := 0; at < len(body); {
			end := at + bytes.IndexByte(body[at:], '\n') + 1
			if key, _, _ := bytes.Cut(body[at:end], []byte{'\t'}); string(key) >= lo {
				first = at
				break
			}
			at = end
		}
		if at := FirstRow(body, []byte(lo)); at != first {
			t.Fatalf("FirstRow(%q) = %d, want %d", lo, at, first)
		}
		got, err := s.Between(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Between(%q, %q): %d bytes, want %d", lo, hi, len(got), len(want))
		}
	}
	if _, err := NewSortedRows(bytes.NewReader(data), int64(len(data)), EdgesDstPath); err == nil {
		t.Error("edges.tsv read as edges.dst.tsv")
	}
	cut := data[:len(data)-1]
	s, err = NewSortedRows(bytes.NewReader(cut), int64(len(cut)), EdgesPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Between("", "\xff"); err == nil {
		t.Error("a file cut inside its last row read whole")
	}
}
