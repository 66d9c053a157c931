package artifacts

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleEdges is edges.tsv as the graph stage orders it: by source node,
// each source's links by kind then destination.
var sampleEdges = []Adjacency{
	{Node: "events/2026-11-02/github.json#HAR-142", Links: []Link{
		{Kind: "rel:author", Node: "person:email/marc@x.test"},
		{Kind: "rel:repo", Node: "repo:github.com/acme/harbor"},
		{Kind: EdgeTag, Node: "tag:ci"},
	}},
	{Node: "person:github/marc-b", Links: []Link{{Kind: EdgeSameAs, Node: "person:email/marc@x.test"}}},
	{Node: "wiki/café.md", Links: []Link{
		{Kind: EdgeLink, Node: "https://x.test/a?b=c&d=e"},
		{Kind: EdgeLink, Node: "wiki/日本語.md#見出し"},
		{Kind: EdgeSupersedes, Node: "wiki/old.md"},
	}},
}

// sampleEdgesDst is edges.dst.tsv: by destination node, item sources as
// #ordinal, newest first.
var sampleEdgesDst = []Adjacency{
	{Node: "person:email/marc@x.test", Links: []Link{
		{Kind: "rel:author", Node: ItemRef + "0"},
		{Kind: "rel:reviewer", Node: ItemRef + "0"},
		{Kind: EdgeSameAs, Node: "person:github/marc-b"},
	}},
	{Node: "tag:ci", Links: []Link{{Kind: EdgeTag, Node: ItemRef + "12"}, {Kind: EdgeTag, Node: ItemRef + "3"}}},
	{Node: "wiki/old.md", Links: []Link{{Kind: EdgeSupersedes, Node: ItemRef + "2"}}},
}

func TestEdgesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		path   string
		rows   []Adjacency
		encode func([]Adjacency) ([]byte, error)
		decode func([]byte) ([]Adjacency, error)
	}{
		{EdgesPath, sampleEdges, EncodeEdges, DecodeEdges},
		{EdgesDstPath, sampleEdgesDst, EncodeEdgesDst, DecodeEdgesDst},
	} {
		t.Run(c.path, func(t *testing.T) {
			data := must(c.encode(c.rows))
			got, err := c.decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.rows, got); diff != "" {
				t.Errorf("Decode(Encode(x)) (-want +got):\n%s", diff)
			}
			if again := must(c.encode(got)); !bytes.Equal(again, data) {
				t.Errorf("Encode(Decode(b)) != b:\n%s\n---\n%s", data, again)
			}
			// Each line decodes on its own, as a reader that binary-searched
			// to it would decode it.
			for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})[1:] {
				r, err := DecodeAdjacencyLine(c.path, i+2, line)
				if err != nil {
					t.Fatalf("line %d: %v", i+2, err)
				}
				if diff := cmp.Diff(c.rows[i], r); diff != "" {
					t.Errorf("line %d (-want +got):\n%s", i+2, diff)
				}
			}
		})
	}
}

func TestEdgesExactBytes(t *testing.T) {
	want := "#cairn edges v7\tsrc\tkind=dst...\n" +
		"events/2026-11-02/github.json#HAR-142\trel:author=person:email/marc@x.test\trel:repo=repo:github.com/acme/harbor\ttag=tag:ci\n" +
		"person:github/marc-b\tsame-as=person:email/marc@x.test\n" +
		"wiki/café.md\tlink=https://x.test/a?b=c&d=e\tlink=wiki/日本語.md#見出し\tsupersedes=wiki/old.md\n"
	if got := must(EncodeEdges(sampleEdges)); string(got) != want {
		t.Errorf("edges.tsv:\n got %q\nwant %q", got, want)
	}
	wantDst := "#cairn edges.dst v7\tdst\tkind=src...\n" +
		"person:email/marc@x.test\trel:author=#0\trel:reviewer=#0\tsame-as=person:github/marc-b\n" +
		"tag:ci\ttag=#12\t=#3\n" +
		"wiki/old.md\tsupersedes=#2\n"
	if got := must(EncodeEdgesDst(sampleEdgesDst)); string(got) != wantDst {
		t.Errorf("edges.dst.tsv:\n got %q\nwant %q", got, wantDst)
	}
	if got := must(EncodeEdges(nil)); string(got) != "#cairn edges v7\tsrc\tkind=dst...\n" {
		t.Errorf("empty edges.tsv = %q", got)
	}
	if rows, err := DecodeEdges(must(EncodeEdges(nil))); rows != nil || err != nil {
		t.Errorf("DecodeEdges(empty) = %v, %v", rows, err)
	}
	if rows, err := DecodeEdgesDst(must(EncodeEdgesDst(nil))); rows != nil || err != nil {
		t.Errorf("DecodeEdgesDst(empty) = %v, %v", rows, err)
	}
}

func TestDecodeAdjacencyLineErrors(t *testing.T) {
	cases := []struct{ line, msg string }{
		{"", "row is not node TAB kind=node..."},
		{"wiki/a.md", "row is not node TAB kind=node..."},
		{"\tlink=wiki/b.md", "row is not node TAB kind=node..."},
		{"wiki/a.md\tlink", `link "link" is not kind=node`},
		{"wiki/a.md\t=wiki/b.md", `link "=wiki/b.md" is not kind=node`},
		{"wiki/a.md\tlink=", `link "link=" is not kind=node`},
		{"wiki/a.md\tlink=wiki/b.md\t", `link "" is not kind=node`},
		{"wiki/a.md\tlink=wiki/b.md\t\tlink=wiki/c.md", `link "" is not kind=node`},
	}
	for _, c := range cases {
		_, err := DecodeAdjacencyLine(EdgesPath, 4, []byte(c.line))
		if err == nil {
			t.Errorf("DecodeAdjacencyLine(%q) accepted", c.line)
			continue
		}
		ce := asCorrupt(t, err, EdgesPath)
		if ce.Line != 4 || ce.Msg != c.msg {
			t.Errorf("DecodeAdjacencyLine(%q) = line %d %q, want line 4 %q", c.line, ce.Line, ce.Msg, c.msg)
		}
	}
	// edges.dst.tsv leaves out a kind that is the one before.
	for _, c := range []struct{ line, msg string }{
		{"tag:a\t=#1", `link "=#1" is not kind=node`},
		{"tag:a\ttag=#2\ttag=#1", `link "tag=#1" repeats the kind before it; it is =node`},
		{"tag:a\ttag=#2\t=", `link "=" is not kind=node`},
	} {
		_, err := DecodeAdjacencyLine(EdgesDstPath, 4, []byte(c.line))
		if ce := asCorrupt(t, err, EdgesDstPath); ce.Line != 4 || ce.Msg != c.msg {
			t.Errorf("DecodeAdjacencyLine(%q) = line %d %q, want line 4 %q", c.line, ce.Line, ce.Msg, c.msg)
		}
	}
	r, err := DecodeAdjacencyLine(EdgesDstPath, 2, []byte("tag:a\ttag=#2\t=#1\tlink=wiki/b.md\t=#0"))
	if want := []Link{{"tag", "#2"}, {"tag", "#1"}, {"link", "wiki/b.md"}, {"link", "#0"}}; err != nil || !slices.Equal(r.Links, want) {
		t.Errorf("a line of runs of kinds: %+v, %v; want %v", r.Links, err, want)
	}
	// A batch of a line's links starts from the kind before it.
	if ls, err := DecodeLinks(EdgesDstPath, 2, "tag", []byte("=#5\tlink=#4")); err != nil || !slices.Equal(ls, []Link{{"tag", "#5"}, {"link", "#4"}}) {
		t.Errorf("DecodeLinks after tag: %+v, %v", ls, err)
	}
	// A destination may itself hold "=": only the first one splits.
	r, err = DecodeAdjacencyLine(EdgesPath, 2, []byte("wiki/a.md\tlink=https://x.test/?a=b=c"))
	if err != nil || r.Links[0] != (Link{Kind: "link", Node: "https://x.test/?a=b=c"}) {
		t.Errorf("link with = in its node: %+v, %v", r, err)
	}
}

// TestEncodeEdgesRefusesUndecodableRows: rows the format cannot carry (an
// empty node, a kind holding "=", a node with no links) are refused with an
// error instead of being written as lines the decoder would reject.
func TestEncodeEdgesRefusesUndecodableRows(t *testing.T) {
	for _, c := range []struct {
		name string
		row  Adjacency
	}{
		{"empty destination", Adjacency{Node: "events/2026-11-02/github.json#a", Links: []Link{{Kind: "rel:author", Node: ""}}}},
		{"kind with =", Adjacency{Node: "wiki/a.md", Links: []Link{{Kind: "rel:a=b", Node: "person:x/y"}}}},
		{"node without links", Adjacency{Node: "wiki/a.md"}},
	} {
		name, row := c.name, c.row
		if data, err := EncodeEdges([]Adjacency{row}); err == nil {
			t.Errorf("%s: EncodeEdges wrote %q instead of refusing the row", name, data)
		}
	}
}

func must(data []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return data
}

// TestItemOrdinal: an item's ordinal is read as a build writes it, and any
// other spelling is refused.
func TestItemOrdinal(t *testing.T) {
	for text, want := range map[string]int32{"0": 0, "7": 7, "v": 31, "31u5": 100293, "1vvvvvv": 2147483647} {
		if got, ok := ItemOrdinal([]byte(text)); !ok || got != want {
			t.Errorf("ItemOrdinal(%q) = %d, %v; want %d", text, got, ok, want)
		}
		if ref := ItemRefOf(want); ref != "#"+text {
			t.Errorf("ItemRefOf(%d) = %q, want #%s", want, ref, text)
		}
		if got, ok := ParseItemRef("#" + text); !ok || got != want {
			t.Errorf("ParseItemRef(#%s) = %d, %v; want %d", text, got, ok, want)
		}
	}
	for _, text := range []string{"", "007", "00", "+5", "-1", "5x", "V", "2000000", "99999999999", " 5", "10029300"} {
		if got, ok := ItemOrdinal([]byte(text)); ok {
			t.Errorf("ItemOrdinal(%q) = %d, accepted", text, got)
		}
	}
}

// TestElideKindsIsTheWriter: a line of edges.dst.tsv written with every
// kind, then elided, is the line the writer writes.
func TestElideKindsIsTheWriter(t *testing.T) {
	rows := append(slices.Clone(sampleEdgesDst), Adjacency{Node: "tag:z", Links: []Link{
		{"tag", "#3"}, {"tag", "#2"}, {"link", "#1"}, {"tag", "#0"}, {"tag", "wiki/a=b.md"}}})
	for _, r := range rows {
		whole := []byte(r.Node)
		for _, l := range r.Links {
			whole = append(append(append(append(whole, '\t'), l.Kind...), '='), l.Node...)
		}
		want := must(EncodeEdgesDst([]Adjacency{r}))
		want = want[bytes.IndexByte(want, '\n')+1 : len(want)-1]
		if got := ElideKinds(whole); string(got) != string(want) {
			t.Errorf("ElideKinds of %s:\n got %q\nwant %q", r.Node, got, want)
		}
	}
}
