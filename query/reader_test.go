package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/project"
)

func readArtifact(t *testing.T, dir, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeArtifact(t *testing.T, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustOpenReader(t *testing.T, dir string) *Reader {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// must returns v, or panics (failing the test) on an unexpected error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// checkTables compares every positioned read of r with a full decode of
// the artifacts under dir.
// Every step-th row, term and node is looked up, and the last ones.
func checkTables(t *testing.T, r *Reader, dir string, step int) {
	t.Helper()
	docs := must(artifacts.DecodeDocs(readArtifact(t, dir, artifacts.DocsPath)))
	if r.Items() != len(docs) {
		t.Fatalf("Items %d, docs.tsv has %d rows", r.Items(), len(docs))
	}
	for i, want := range docs {
		if i%step != 0 && i != len(docs)-1 {
			continue
		}
		if got := must(r.Row(i)); !reflect.DeepEqual(got, want) {
			t.Errorf("Row(%d) = %+v, want %+v", i, got, want)
		}
		ord, found, err := r.Search(want.URI)
		if err != nil || !found || ord != i {
			t.Errorf("Search(%q) = %d, %v, %v; want %d, true", want.URI, ord, found, err, i)
		}
		if !(i+1 < len(docs) && docs[i+1].URI == want.URI+"\x00") {
			checkSearch(t, r, want.URI+"\x00", i+1) // between i and i+1
		}
	}
	checkSearch(t, r, "", 0)
	if len(docs) > 0 {
		checkSearch(t, r, docs[len(docs)-1].URI+"\xff", len(docs))
	}
	if _, err := r.Row(len(docs)); err == nil {
		t.Errorf("Row(%d) past the end gave no error", len(docs))
	}

	terms := must(artifacts.DecodeTerms(readArtifact(t, dir, artifacts.TermsPath)))
	posts := must(artifacts.DecodePostings(readArtifact(t, dir, artifacts.PostingsPath)))
	if len(posts) != len(terms) {
		t.Fatalf("%d postings lines, %d terms", len(posts), len(terms))
	}
	absent := []string{"", "\x00", "\xff\xff"}
	for i, want := range terms {
		if i%step != 0 && i != len(terms)-1 {
			continue
		}
		got, found, err := r.Term(want.Term)
		if err != nil || !found || got != want {
			t.Errorf("Term(%q) = %+v, %v, %v; want %+v", want.Term, got, found, err, want)
			continue
		}
		if ps := must(r.Postings(got)); !reflect.DeepEqual(ps, posts[i].Postings) {
			t.Errorf("Postings(%q) = %v, want %v", want.Term, ps, posts[i].Postings)
		}
		absent = append(absent, want.Term+"\x00", want.Term[:len(want.Term)-1])
	}
	have := map[string]bool{}
	for _, e := range terms {
		have[e.Term] = true
	}
	for _, a := range absent {
		if _, found, err := r.Term(a); err != nil || found != have[a] {
			t.Errorf("Term(%q) = %v, %v; want %v", a, found, err, have[a])
		}
	}
	for _, sub := range []string{"har-", "", "e", "\x00"} {
		want := []artifacts.TermEntry{}
		for _, e := range terms {
			if strings.Contains(e.Term, sub) {
				want = append(want, e)
			}
		}
		got := must(r.TermsWith(sub))
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("TermsWith(%q) = %d entries, want %d", sub, len(got), len(want))
		}
	}

	edges := must(artifacts.DecodeEdges(readArtifact(t, dir, artifacts.EdgesPath)))
	checkAdjacency(t, edges, func(n string, _ int) ([]artifacts.Link, bool, error) { return r.Outgoing(n) }, false, step)
	dst := must(artifacts.DecodeEdgesDst(readArtifact(t, dir, artifacts.EdgesDstPath)))
	checkAdjacency(t, dst, r.Incoming, true, step)
}

func checkSearch(t *testing.T, r *Reader, uri string, want int) {
	t.Helper()
	ord, found, err := r.Search(uri)
	if err != nil || found || ord != want {
		t.Errorf("Search(%q) = %d, %v, %v; want %d, false", uri, ord, found, err, want)
	}
}

func checkAdjacency(t *testing.T, rows []artifacts.Adjacency, get func(string, int) ([]artifacts.Link, bool, error), limits bool, step int) {
	t.Helper()
	nodes := map[string]bool{}
	for _, a := range rows {
		nodes[a.Node] = true
	}
	for i, a := range rows {
		if i%step != 0 && i != len(rows)-1 {
			continue
		}
		got, found, err := get(a.Node, 0)
		if err != nil || !found || !reflect.DeepEqual(got, a.Links) {
			t.Errorf("%q: %d links, %v, %v; want %d", a.Node, len(got), found, err, len(a.Links))
		}
		for _, miss := range []string{a.Node + "\x00", a.Node[:len(a.Node)-1]} {
			if _, found, err := get(miss, 0); err != nil || found != nodes[miss] {
				t.Errorf("%q: found %v, %v; want %v", miss, found, err, nodes[miss])
			}
		}
		if !limits {
			continue
		}
		for _, n := range []int{1, 2, 3, len(a.Links) - 1, len(a.Links), len(a.Links) + 1} {
			if n < 1 {
				continue
			}
			got, found, err := get(a.Node, n)
			if want := a.Links[:min(n, len(a.Links))]; err != nil || !found || !reflect.DeepEqual(got, want) {
				t.Errorf("%q limit %d: %v, %v, %v; want %v", a.Node, n, got, found, err, want)
			}
		}
	}
	for _, miss := range []string{"", "\x00", "\xff"} {
		if _, found, err := get(miss, 0); err != nil || found {
			t.Errorf("%q: found %v, %v", miss, found, err)
		}
	}
}

func TestReaderMatchesFullDecodes(t *testing.T) {
	dir := builtDemo(t)
	r := mustOpenReader(t, dir)
	fields := must(artifacts.DecodeFields(readArtifact(t, dir, artifacts.FieldsPath)))
	if !reflect.DeepEqual(r.Fields(), fields) {
		t.Errorf("Fields() = %v, want %v", r.Fields(), fields)
	}
	if len(must(r.TermsWith("har-"))) == 0 {
		t.Error("the demo has no har- terms; the test proves less than it says")
	}
	checkTables(t, r, dir, 1)
}

// TestPostingsReadsOnlyRanges proves that a query reads its terms' byte
// ranges of postings.tsv and nothing else of it.
func TestPostingsReadsOnlyRanges(t *testing.T) {
	dir := builtDemo(t)
	r := mustOpenReader(t, dir)
	terms := must(artifacts.DecodeTerms(readArtifact(t, dir, artifacts.TermsPath)))
	slices.SortFunc(terms, func(a, b artifacts.TermEntry) int { return b.DF - a.DF })
	before := r.BytesRead()
	var sum int64
	for _, want := range terms[:3] {
		e, found, err := r.Term(want.Term)
		if err != nil || !found {
			t.Fatalf("Term(%q): %v, %v", want.Term, found, err)
		}
		must(r.Postings(e))
		sum += e.Length
	}
	after := r.BytesRead()
	if got := after["postings.tsv"] - before["postings.tsv"]; got != sum {
		t.Errorf("read %d bytes of postings.tsv for 3 terms, want exactly their %d", got, sum)
	}
	size := int64(len(readArtifact(t, dir, artifacts.PostingsPath)))
	if after["postings.tsv"] >= size {
		t.Errorf("read %d bytes of postings.tsv, the whole file has %d", after["postings.tsv"], size)
	}
	for _, name := range []string{"docs.tsv", "docs.key", "edges.tsv", "edges.dst.tsv"} {
		if after[name] != before[name] {
			t.Errorf("term lookups read %d bytes of %s", after[name]-before[name], name)
		}
	}
	t.Logf("3 terms: %d bytes of terms.tsv, %d of postings.tsv (file %d)", after["terms.tsv"]-before["terms.tsv"], sum, size)
}

// sweep reads everything through r and returns the first error.
func sweep(r *Reader) error {
	ords := make([]int, r.Items())
	for i := range ords {
		ords[i] = i
	}
	if _, err := r.Keys(ords); err != nil {
		return err
	}
	for i := range r.Items() {
		d, err := r.Row(i)
		if err != nil {
			return err
		}
		if _, _, err := r.Search(d.URI); err != nil {
			return err
		}
	}
	all, err := r.TermsWith("")
	if err != nil {
		return err
	}
	for _, e := range all {
		if _, _, err := r.Term(e.Term); err != nil {
			return err
		}
		if _, err := r.Postings(e); err != nil {
			return err
		}
	}
	for _, n := range []string{"", "tag:", "zzz"} {
		if _, _, err := r.Outgoing(n); err != nil {
			return err
		}
		if _, _, err := r.Incoming(n, 0); err != nil {
			return err
		}
	}
	return nil
}

func TestReaderCorruption(t *testing.T) {
	change := func(rel string, fn func(data []byte) []byte) func(*testing.T, string) {
		return func(t *testing.T, dir string) { writeArtifact(t, dir, rel, fn(readArtifact(t, dir, rel))) }
	}
	half := func(d []byte) []byte { return d[:len(d)/2] }
	dropLastLine := func(d []byte) []byte { return d[:bytes.LastIndexByte(d[:len(d)-1], '\n')+1] }
	secondLine := func(d []byte) int { return bytes.IndexByte(d, '\n') + 1 }
	cases := []struct {
		name   string
		change func(*testing.T, string)
	}{
		{"postings truncated mid-line", change(artifacts.PostingsPath, half)},
		{"postings last line cut", change(artifacts.PostingsPath, dropLastLine)},
		{"postings line names another term", change(artifacts.PostingsPath, func(d []byte) []byte {
			d[secondLine(d)] ^= 1
			return d
		})},
		{"postings delta garbled", change(artifacts.PostingsPath, func(d []byte) []byte {
			i := bytes.IndexByte(d[secondLine(d):], ':') + secondLine(d)
			d[i] = ';'
			return d
		})},
		{"terms truncated", change(artifacts.TermsPath, half)},
		{"terms row garbled", change(artifacts.TermsPath, func(d []byte) []byte {
			i := bytes.IndexByte(d[secondLine(d):], '\t') + secondLine(d)
			d[i+1] = 'x'
			return d
		})},
		{"terms row ends with CR", change(artifacts.TermsPath, func(d []byte) []byte {
			i := secondLine(d) + bytes.IndexByte(d[secondLine(d):], '\n')
			return slices.Insert(d, i, '\r')
		})},
		{"terms offset shifted", change(artifacts.TermsPath, func(d []byte) []byte {
			rows := bytes.Split(d, []byte{'\n'})
			cols := bytes.Split(rows[1], []byte{'\t'})
			cols[2] = fmt.Appendf(nil, "%s1", cols[2]) // offset*10+1
			rows[1] = bytes.Join(cols, []byte{'\t'})
			return bytes.Join(rows, []byte{'\n'})
		})},
		{"docs truncated", change(artifacts.DocsPath, half)},
		{"docs last row cut", change(artifacts.DocsPath, dropLastLine)},
		{"docs row loses a column", change(artifacts.DocsPath, func(d []byte) []byte {
			i := bytes.IndexByte(d[secondLine(d):], '\t') + secondLine(d)
			d[i] = ' '
			return d
		})},
		{"docs.key shifted by one", change(artifacts.DocsKeyPath, func(d []byte) []byte {
			w := bytes.IndexByte(d, '\n') + 1
			d[w+11]++ // the last digit of row 0's offset
			return d
		})},
		{"docs.key ragged", change(artifacts.DocsKeyPath, func(d []byte) []byte { return append(d, '0') })},
		{"docs.key norm garbled", change(artifacts.DocsKeyPath, func(d []byte) []byte {
			w := bytes.IndexByte(d, '\n') + 1
			d[3*w-2] = 'z' // row 1's last norm
			return d
		})},
		{"docs.key header of another width", change(artifacts.DocsKeyPath, func(d []byte) []byte {
			return bytes.Replace(d, []byte(" width "), []byte(" width 9"), 1)
		})},
		{"edges header version", change(artifacts.EdgesPath, func(d []byte) []byte {
			return bytes.Replace(d, fmt.Appendf(nil, " v%d\t", artifacts.FormatVersion), []byte(" v9\t"), 1)
		})},
		{"edges.dst truncated", change(artifacts.EdgesDstPath, half)},
		{"fields garbled", change(artifacts.FieldsPath, func(d []byte) []byte { return append(d, "x\n"...) })},
		{"terms missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(artifacts.TermsPath)))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := builtDemo(t)
			c.change(t, dir)
			r, err := OpenReader(dir)
			if err == nil {
				defer r.Close()
				err = sweep(r)
			}
			var ce *artifacts.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v (%T), want a *artifacts.CorruptError", err, err)
			}
			t.Log(err)
		})
	}
}

// TestIncomingCorruptLink: a link of edges.dst.tsv that lost its "=" is
// corrupt whether the line is read whole or only up to a limit.
func TestIncomingCorruptLink(t *testing.T) {
	dir := builtDemo(t)
	d := readArtifact(t, dir, artifacts.EdgesDstPath)
	start := bytes.IndexByte(d, '\n') + 1
	line := d[start : start+bytes.IndexByte(d[start:], '\n')]
	node, _, _ := bytes.Cut(line, []byte{'\t'})
	i := start + bytes.IndexByte(line, '=')
	d[i] = '-'
	writeArtifact(t, dir, artifacts.EdgesDstPath, d)
	r := mustOpenReader(t, dir)
	for _, limit := range []int{0, 1, 100} {
		var ce *artifacts.CorruptError
		if _, _, err := r.Incoming(string(node), limit); !errors.As(err, &ce) {
			t.Errorf("limit %d: %v, want a *artifacts.CorruptError", limit, err)
		}
	}
}

// writeBase writes artifacts directly, bypassing the build.
func writeBase(t *testing.T, docs []artifacts.Doc, fields []artifacts.Field, terms []artifacts.TermPostings, edges, dst []artifacts.Adjacency) string {
	t.Helper()
	dir := t.TempDir()
	keys, err := project.Keys(len(docs), func(i int) *artifacts.Doc { return &docs[i] }, len(fields), model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	d, key, err := artifacts.EncodeDocs(docs, keys, len(fields))
	if err != nil {
		t.Fatal(err)
	}
	dict, post := mustEncodePostings(t, terms)
	e := must(artifacts.EncodeEdges(edges))
	ed := must(artifacts.EncodeEdgesDst(dst))
	for rel, data := range map[string][]byte{
		artifacts.DocsPath: d, artifacts.DocsKeyPath: key, artifacts.FieldsPath: artifacts.EncodeFields(fields),
		artifacts.TermsPath: dict, artifacts.PostingsPath: post, artifacts.EdgesPath: e, artifacts.EdgesDstPath: ed,
	} {
		writeArtifact(t, dir, rel, data)
	}
	return dir
}

func TestReaderEmptyTables(t *testing.T) {
	dir := writeBase(t, nil, nil, nil, nil, nil)
	r := mustOpenReader(t, dir)
	if r.Items() != 0 || len(r.Fields()) != 0 {
		t.Fatalf("%d items, %d fields", r.Items(), len(r.Fields()))
	}
	checkTables(t, r, dir, 1)
	if ord, found, err := r.Search("x"); ord != 0 || found || err != nil {
		t.Errorf("Search: %d, %v, %v", ord, found, err)
	}
	if _, found, err := r.Term("x"); found || err != nil {
		t.Errorf("Term: %v, %v", found, err)
	}
	if _, found, err := r.Incoming("x", 3); found || err != nil {
		t.Errorf("Incoming: %v, %v", found, err)
	}
}

// TestReaderLongLines has a term with 100k postings, a term of 5000 bytes,
// a terms.tsv of more than a megabyte,
// an outgoing line and an inbound hub line of about a megabyte each, among
// thousands of short lines, so that probes land inside long lines and
// reads must extend.
func TestReaderLongLines(t *testing.T) {
	const n = 100_000
	docs := make([]artifacts.Doc, n)
	for i := range docs {
		docs[i] = artifacts.Doc{URI: fmt.Sprintf("r/%06d", i), Kind: "events", SpanOff: -1, Digest: fmt.Sprintf("%016x", i)}
	}
	big := artifacts.TermPostings{Term: "big"}
	for i := range n {
		big.Postings = append(big.Postings, artifacts.Posting{Doc: int32(i), Field: uint16(i % 2), TF: uint16(1 + i%3)})
	}
	terms := []artifacts.TermPostings{big, {Term: "k" + strings.Repeat("x", 5000), Postings: []artifacts.Posting{{Doc: 7, Field: 1, TF: 1}}}}
	for i := range 60_000 { // terms.tsv outgrows one read of TermsWith
		terms = append(terms, artifacts.TermPostings{Term: fmt.Sprintf("t%05d", i), Postings: []artifacts.Posting{{Doc: int32(i), TF: 1}}})
	}
	slices.SortFunc(terms, func(a, b artifacts.TermPostings) int { return strings.Compare(a.Term, b.Term) })

	var edges, dst []artifacts.Adjacency
	short := func(prefix string, k int) (rows []artifacts.Adjacency) {
		for i := range k {
			rows = append(rows, artifacts.Adjacency{Node: fmt.Sprintf("%s%05d", prefix, i), Links: []artifacts.Link{{Kind: "tag", Node: fmt.Sprintf("#%d", i)}}})
		}
		return rows
	}
	hub := artifacts.Adjacency{Node: "hub"}
	out := artifacts.Adjacency{Node: "r/050000"}
	for i := n - 1; i >= 0; i-- {
		hub.Links = append(hub.Links, artifacts.Link{Kind: "tag", Node: fmt.Sprintf("#%d", i)})
		out.Links = append(out.Links, artifacts.Link{Kind: "link", Node: fmt.Sprintf("https://x.test/%d", i)})
	}
	dst = append(append(append(dst, short("a", 3000)...), hub), short("z", 3000)...)
	edges = append(append(append(edges, short("r/0", 2000)...), out), short("r/9", 2000)...)

	dir := writeBase(t, docs, []artifacts.Field{{Name: "body", Weight: 1}, {Name: "title", Weight: 5}}, terms, edges, dst)
	r := mustOpenReader(t, dir)
	if r.terms.size <= maxChunk {
		t.Errorf("terms.tsv has %d bytes, not more than one chunk of TermsWith", r.terms.size)
	}
	checkTables(t, r, dir, 97)
	// Again with TermsWith sweeping in parts whose first cuts land in
	// short lines and in the long term.
	defer func(n int64, procs int) { minSweepPart = n; runtime.GOMAXPROCS(procs) }(minSweepPart, runtime.GOMAXPROCS(maxParts))
	minSweepPart = 1 << 10
	checkTables(t, r, dir, 97)

	// Reading the newest links of a hub reads a few hundred bytes of its
	// line, not the line.
	a := r.edgesDst
	s, klen, found, err := a.locate("hub")
	if err != nil || !found {
		t.Fatalf("locate(hub): %v, %v", found, err)
	}
	before := a.read.Load()
	got, err := a.streamLinks(s, klen, "hub", 5)
	if err != nil || !reflect.DeepEqual(got, hub.Links[:5]) {
		t.Fatalf("streamLinks(hub, 5) = %v, %v", got, err)
	}
	if read := a.read.Load() - before; read > 2*probeChunk {
		t.Errorf("the newest 5 links of the hub took %d bytes", read)
	}
	// Finding a line next to or inside a long line may scan it (the edge
	// tables have no offsets), but never more than once.
	for _, node := range []string{"hub", "hub0", "a02999", "z00000"} {
		before := a.read.Load()
		if _, _, err := r.Incoming(node, 1); err != nil {
			t.Fatal(err)
		}
		if read := a.read.Load() - before; read > a.size {
			t.Errorf("Incoming(%q, 1) read %d bytes of a %d-byte file", node, read, a.size)
		} else {
			t.Logf("Incoming(%q, 1): %d bytes of a %d-byte file", node, read, a.size)
		}
	}
}

// TestRowsMatchesRow reads many rows at once, dense and sparse, in one
// part and in several, and compares each with Row.
func TestRowsMatchesRow(t *testing.T) {
	dir := builtDemo(t)
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all, sparse []int
	for i := range r.Items() {
		all = append(all, i)
		if i%7 == 0 || i == r.Items()-1 {
			sparse = append(sparse, i)
		}
	}
	defer func(n, procs int) { minPartRows = n; runtime.GOMAXPROCS(procs) }(minPartRows, runtime.GOMAXPROCS(maxParts))
	for _, minPart := range []int{minPartRows, 3} { // one part; then up to maxParts
		minPartRows = minPart
		for _, ords := range [][]int{all, sparse, {0}, {r.Items() - 1}, {}} {
			rows, err := r.Rows(ords)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(ords) {
				t.Fatalf("Rows(%d ordinals) gave %d rows", len(ords), len(rows))
			}
			for i, o := range ords {
				want, err := r.Row(o)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(rows[i], want) {
					t.Errorf("parts of %d rows: Rows gave %+v for ordinal %d, Row gives %+v", minPart, rows[i], o, want)
				}
			}
		}
		if _, err := r.Rows(append(slices.Clone(all), r.Items())); err == nil {
			t.Errorf("parts of %d rows: Rows accepted an ordinal past the end", minPart)
		}
	}
}

// mustEncodePostings is artifacts.EncodePostings on valid test input.
func mustEncodePostings(t *testing.T, terms []artifacts.TermPostings) (dict, postings []byte) {
	t.Helper()
	dict, postings, err := artifacts.EncodePostings(terms)
	if err != nil {
		t.Fatal(err)
	}
	return dict, postings
}

// TestDocsKeyErrorNamesItsLine: a damaged key line is reported with its
// line in docs.key, whether one row, a batch of rows or the keys read it.
func TestDocsKeyErrorNamesItsLine(t *testing.T) {
	dir := builtDemo(t)
	d := readArtifact(t, dir, artifacts.DocsKeyPath)
	width := bytes.IndexByte(d, '\n') + 1
	d[3*width+5] = 'x' // row 2's line, the file's fourth
	writeArtifact(t, dir, artifacts.DocsKeyPath, d)
	r := mustOpenReader(t, dir)
	for name, read := range map[string]func() error{
		"Row":  func() error { _, err := r.Row(2); return err },
		"Rows": func() error { _, err := r.Rows([]int{0, 1, 2, 3}); return err },
		"Keys": func() error { _, err := r.Keys([]int{0, 1, 2, 3}); return err },
		"Key":  func() error { _, err := r.Key(2); return err },
	} {
		var ce *artifacts.CorruptError
		if err := read(); !errors.As(err, &ce) || ce.Path != artifacts.DocsKeyPath || ce.Line != 4 {
			t.Errorf("%s: %v; want a CorruptError at %s line 4", name, err, artifacts.DocsKeyPath)
		}
	}
}

// TestPacksDoNotDependOnParts: reading rows and sweeping terms.tsv in
// parts on several cores gives the packs one part on one core gives, byte
// for byte, in every format.
func TestPacksDoNotDependOnParts(t *testing.T) {
	dir := builtDemo(t)
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	answer := func(words []string, format string) string {
		t.Helper()
		out, err := Context(context.Background(), dir, Request{Words: words, Budget: DefaultBudget, AsOf: asOf, Format: format, Explain: true, ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "used") {
			t.Fatalf("%q did not read the artifacts:\n%s", words, out)
		}
		return string(out)
	}
	queries := [][]string{{"why", "did", "the", "arm64", "nightly", "time", "out"}, {"HAR-142"}, {"marc@x.test"}, {"last", "deploy"}, {"the", "release", "process"}}
	defer func(rows int, sweep int64, procs int) {
		minPartRows, minSweepPart = rows, sweep
		runtime.GOMAXPROCS(procs)
	}(minPartRows, minSweepPart, runtime.GOMAXPROCS(1))
	want := map[string]string{}
	for _, q := range queries {
		for _, f := range []string{FormatText, FormatJSON, FormatJSONL} {
			want[strings.Join(q, " ")+" "+f] = answer(q, f)
		}
	}
	runtime.GOMAXPROCS(maxParts)
	minPartRows, minSweepPart = 2, 256
	for _, q := range queries {
		for _, f := range []string{FormatText, FormatJSON, FormatJSONL} {
			if got := answer(q, f); got != want[strings.Join(q, " ")+" "+f] {
				t.Errorf("%q %s: the pack read in parts differs:\n%s\n--- one part:\n%s", q, f, got, want[strings.Join(q, " ")+" "+f])
			}
		}
	}
}

// TestScanKeysMatchTheIndex: a scan computes every item's key as the
// build wrote it to docs.key, on every golden base that builds. The empty
// term makes the scan tokenise every record, so that norms compare too;
// they compare by field name, since a scan numbers only the fields that
// have words while the index numbers every field a schema maps.
func TestScanKeysMatchTheIndex(t *testing.T) {
	for _, name := range []string{"demo", "edge", "rules"} {
		t.Run(name, func(t *testing.T) {
			dir := builtGolden(t, name)
			r := mustOpenReader(t, dir)
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			sc, err := openScan(context.Background(), root.FS(), []string{""})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Len() != r.Items() {
				t.Fatalf("the scan has %d items, the index %d", sc.Len(), r.Items())
			}
			ords := make([]int, r.Items())
			for i := range ords {
				ords[i] = i
			}
			want, err := r.Keys(ords)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sc.Keys(ords)
			if err != nil {
				t.Fatal(err)
			}
			byName := func(fields []artifacts.Field, norms []byte) map[string]byte {
				m := map[string]byte{}
				for f, c := range norms {
					if c != 0 {
						m[fields[f].Name] = c
					}
				}
				return m
			}
			for i := range ords {
				if g, w := byName(sc.Fields(), got[i].Norms), byName(r.Fields(), want[i].Norms); !reflect.DeepEqual(g, w) {
					t.Errorf("item %d: the scan's norms %v, the index's %v", i, g, w)
				}
				want[i].Offset = 0 // where a row is in docs.tsv: the index's alone
				got[i].Norms, want[i].Norms = nil, nil
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("item %d: the scan's key %+v, the index's %+v", i, got[i], want[i])
				}
			}
		})
	}
}
