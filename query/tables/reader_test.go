package tables

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/stages/lib/model"
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

func mustOpen(t *testing.T, dir string) *Reader {
	t.Helper()
	r, err := Open(dir)
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
	origins := artifacts.OriginsOf(must(artifacts.DecodeDocuments(readArtifact(t, dir, artifacts.DocumentsPath))))
	docs := must(artifacts.DecodeDocs(readArtifact(t, dir, artifacts.DocsPath), origins))
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

	terms := must(artifacts.DecodeTerms(readArtifact(t, dir, artifacts.TermsPath), int64(len(readArtifact(t, dir, artifacts.PostingsPath)))))
	posts := must(artifacts.DecodePostings(readArtifact(t, dir, artifacts.TermsPath), readArtifact(t, dir, artifacts.PostingsPath)))
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
	r := mustOpen(t, dir)
	fields := must(artifacts.DecodeFields(readArtifact(t, dir, artifacts.FieldsPath)))
	if !reflect.DeepEqual(r.Fields(), fields) {
		t.Errorf("Fields() = %v, want %v", r.Fields(), fields)
	}
	if len(must(r.TermsWith("har-"))) == 0 {
		t.Error("the demo has no har- terms; the test proves less than it says")
	}
	checkTables(t, r, dir, 1)
	// A reader holding its keys and dictionary in memory reads the same.
	held := mustOpen(t, dir)
	held.Hold()
	if held.held == nil || held.terms.mem == nil {
		t.Fatal("Hold held nothing of the demo's artifacts")
	}
	checkTables(t, held, dir, 1)
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
		return func(t *testing.T, dir string) { goldentest.WriteFile(t, dir, rel, fn(readArtifact(t, dir, rel))) }
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
		{"terms range starts a byte late", change(artifacts.TermsPath, func(d []byte) []byte {
			rows := bytes.Split(d, []byte{'\n'})
			e := must(artifacts.DecodeTermRow(3, rows[2]))
			rows[2] = fmt.Appendf(nil, "%s\t%d\t%s", e.Term, e.DF, strconv.FormatInt(e.Offset+1, 32))
			return bytes.Join(rows, []byte{'\n'})
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
			d[w+7]++ // the last digit of row 0's offset
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
			// Read as a process per question does, then as a server
			// holding what it can in memory: the same error either way.
			var errs [2]error
			for i, hold := range []bool{false, true} {
				r, err := Open(dir)
				if err == nil {
					if hold {
						r.Hold()
					}
					err = sweep(r)
					r.Close()
				}
				var ce *artifacts.CorruptError
				if !errors.As(err, &ce) {
					t.Fatalf("hold=%v: got %v (%T), want a *artifacts.CorruptError", hold, err, err)
				}
				errs[i] = err
			}
			if errs[0].Error() != errs[1].Error() {
				t.Errorf("held, the reader reports %q; unheld %q", errs[1], errs[0])
			}
			t.Log(errs[0])
		})
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
	// documents.tsv holds the kind, source and date of records' rows.
	seen := map[string]bool{}
	var documents []artifacts.Document
	for _, r := range docs {
		path, _, _ := strings.Cut(r.URI, "#")
		if r.SpanOff >= 0 && !seen[path] {
			seen[path] = true
			documents = append(documents, artifacts.Document{Path: path, Layer: r.Kind, Source: r.Source, Date: r.Date, Fields: map[string][]string{}})
		}
	}
	for rel, data := range map[string][]byte{
		artifacts.DocumentsPath: artifacts.EncodeDocuments(documents),
		artifacts.DocsPath:      d, artifacts.DocsKeyPath: key, artifacts.FieldsPath: artifacts.EncodeFields(fields),
		artifacts.TermsPath: dict, artifacts.PostingsPath: post, artifacts.EdgesPath: e, artifacts.EdgesDstPath: ed,
	} {
		goldentest.WriteFile(t, dir, rel, data)
	}
	return dir
}

func TestReaderEmptyTables(t *testing.T) {
	dir := writeBase(t, nil, nil, nil, nil, nil)
	r := mustOpen(t, dir)
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
	for i := range 90_000 { // terms.tsv outgrows one read of TermsWith
		terms = append(terms, artifacts.TermPostings{Term: fmt.Sprintf("t%05d", i), Postings: []artifacts.Posting{{Doc: int32(i), TF: 1}}})
	}
	slices.SortFunc(terms, func(a, b artifacts.TermPostings) int { return strings.Compare(a.Term, b.Term) })

	var edges, dst []artifacts.Adjacency
	short := func(prefix string, k int) (rows []artifacts.Adjacency) {
		for i := range k {
			rows = append(rows, artifacts.Adjacency{Node: fmt.Sprintf("%s%05d", prefix, i), Links: []artifacts.Link{{Kind: "tag", Node: artifacts.ItemRefOf(int32(i))}}})
		}
		return rows
	}
	hub := artifacts.Adjacency{Node: "hub"}
	out := artifacts.Adjacency{Node: "r/050000"}
	for i := n - 1; i >= 0; i-- {
		hub.Links = append(hub.Links, artifacts.Link{Kind: "tag", Node: artifacts.ItemRefOf(int32(i))})
		out.Links = append(out.Links, artifacts.Link{Kind: "link", Node: fmt.Sprintf("https://x.test/%d", i)})
	}
	dst = append(append(append(dst, short("a", 3000)...), hub), short("z", 3000)...)
	edges = append(append(append(edges, short("r/0", 2000)...), out), short("r/9", 2000)...)

	dir := writeBase(t, docs, []artifacts.Field{{Name: "body", Weight: 1}, {Name: "title", Weight: 5}}, terms, edges, dst)
	r := mustOpen(t, dir)
	if r.terms.size <= maxChunk {
		t.Errorf("terms.tsv has %d bytes, not more than one chunk of TermsWith", r.terms.size)
	}
	checkTables(t, r, dir, 97)
	// Again with TermsWith sweeping in parts whose first cuts land in
	// short lines and in the long term.
	defer func(n int64, procs int) { minSweepPart = n; runtime.GOMAXPROCS(procs) }(minSweepPart, runtime.GOMAXPROCS(MaxParts))
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
	// The same searches again land where the first ones did: their probes
	// are remembered, so a key that is absent reads nothing.
	for _, node := range []string{"hub0", "a029990", "zz"} {
		before := a.read.Load()
		if _, found, err := r.Incoming(node, 1); err != nil || found {
			t.Fatalf("Incoming(%q) = %v, %v; want absent", node, found, err)
		}
		first := a.read.Load() - before
		before = a.read.Load()
		if _, _, err := r.Incoming(node, 1); err != nil {
			t.Fatal(err)
		}
		if again := a.read.Load() - before; again != 0 {
			t.Errorf("Incoming(%q) read %d bytes the first time and %d again", node, first, again)
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
