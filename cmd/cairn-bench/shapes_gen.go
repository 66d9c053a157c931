package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// shapesVersion changes whenever a shape's bytes for the same size
// change, so cached shape bases of an older generator are rebuilt.
const shapesVersion = 1

// Input shapes: the same kind of records laid out in the ways that make a
// loader's cost grow faster than its input when something in it is
// quadratic (a scan per record over the whole document, a linear lookup
// over a field's distinct words, a join per file).
const (
	shapeIndented = "indented"  // documents of about 1 MB, pretty-printed: the reference
	shapeMinified = "minified"  // the same documents with no whitespace at all
	shapeOneDoc   = "one-doc"   // every record in one document
	shapeBigField = "big-field" // half the bytes in one record's title
	shapeTinyDocs = "tiny-docs" // one record a document, about 1 KB each
)

// shapes lists every shape, the reference first.
var shapes = []string{shapeIndented, shapeMinified, shapeOneDoc, shapeBigField, shapeTinyDocs}

// Layout constants of the shapes, chosen so that each shape differs from
// the reference in one way only.
const (
	shapeDocBytes  = 1 << 20 // a reference document's size
	shapeTinyBytes = 1000    // a tiny document's size, about: one record
	shapeSources   = 100     // sources per day for tiny-docs (so 10,000 documents are 100 days)
)

// shapeFirstDay is the first events day of every shape.
var shapeFirstDay = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// shapeGen writes one shape's base: record documents under events/, and a
// cairn.yaml naming the fields they carry.
type shapeGen struct {
	dir    string
	shape  string
	target int64 // bytes of record documents to write
	seed   uint64
	voc    *vocabulary
	r      *rng
	n      int   // records written
	docs   int   // documents written
	bytes  int64 // bytes written
}

// shapeConfig is the base's configuration: the fields every shape maps.
const shapeConfig = `# A cairn-bench input-shape base: records only.
schema:
  title:
    weight: 5
  summary:
    weight: 2
  labels:
    weight: 2
    cardinality: many
`

// generateShape writes the named shape of about target bytes of record
// documents into dir, which must be missing or empty. The same arguments
// give byte-identical trees.
func generateShape(dir, shape string, target int64, seed uint64) (genStats, error) {
	if !slices.Contains(shapes, shape) {
		return genStats{}, fmt.Errorf("unknown shape %q; use one of: %s", shape, strings.Join(shapes, ", "))
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return genStats{}, fmt.Errorf("%s is not empty; remove it or choose another folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return genStats{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return genStats{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "cairn.yaml"), []byte(shapeConfig), 0o644); err != nil {
		return genStats{}, err
	}
	g := &shapeGen{dir: dir, shape: shape, target: target, seed: seed, voc: newVocabulary(), r: newRNG(seed, "shape")}
	var err error
	switch shape {
	case shapeIndented, shapeMinified:
		err = g.documents(shapeDocBytes, shape == shapeIndented)
	case shapeOneDoc:
		err = g.document("events/"+g.day(0)+"/all.json", target, true, nil)
	case shapeBigField:
		// The big record first, in a document of its own; the other half
		// of the bytes as the reference lays them out.
		half := target / 2
		if err = g.document("events/"+g.day(0)+"/big.json", half, true, g.bigTitle(half)); err == nil {
			err = g.documents(shapeDocBytes, true)
		}
	case shapeTinyDocs:
		// One record a document: ten thousand documents at 10 MB.
		for k := 0; k < int(target/shapeTinyBytes) && err == nil; k++ {
			err = g.document(g.docPath(k), 0, true, nil)
		}
	}
	if err != nil {
		return genStats{}, err
	}
	st := genStats{Records: g.n, Documents: g.docs}
	st.Files, st.Bytes, err = treeSize(dir, nil)
	return st, err
}

// day is the events day d days after the first.
func (g *shapeGen) day(d int) string { return shapeFirstDay.AddDate(0, 0, d).Format("2006-01-02") }

// documents writes documents of about each bytes until the target is
// reached, a day holding at most shapeSources of them.
func (g *shapeGen) documents(each int64, indent bool) error {
	for k := 0; g.bytes < g.target-shapeTinyBytes; k++ {
		if err := g.document(g.docPath(k), min(each, g.target-g.bytes), indent, nil); err != nil {
			return err
		}
	}
	return nil
}

// docPath is the k-th document's path: source s<k mod sources> of day
// k div sources, after the first day (which big-field and one-doc use).
func (g *shapeGen) docPath(k int) string {
	return fmt.Sprintf("events/%s/s%02d.json", g.day(1+k/shapeSources), k%shapeSources)
}

// document writes one record document of about size bytes at rel. With
// big, its only record has big as its title.
func (g *shapeGen) document(rel string, size int64, indent bool, big []byte) error {
	path := filepath.Join(g.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := &countingWriter{w: bufio.NewWriterSize(f, 1<<20)}
	source := strings.TrimSuffix(filepath.Base(rel), ".json")
	nl, ind := "", ""
	if indent {
		nl, ind = "\n", "  "
	}
	fmt.Fprintf(w, `{%s%s"cairn":%s1,%s%s"source":%s%q,%s%s"fields":%s{"id":".id","title":".title","summary":".summary","labels":".labels[]","time":".time"},%s%s"records":%s[`,
		nl, ind, sp(indent), nl, ind, sp(indent), source, nl, ind, sp(indent), nl, ind, sp(indent))
	day := strings.Split(rel, "/")[1]
	for i := 0; i == 0 || (big == nil && w.n < size-200); i++ {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString(nl)
		w.Write(g.record(day, indent, big))
	}
	fmt.Fprintf(w, "%s%s]%s}\n", nl, ind, nl)
	if err := w.w.(*bufio.Writer).Flush(); err != nil {
		f.Close()
		return err
	}
	g.docs++
	g.bytes += w.n
	return f.Close()
}

// sp is the space after a colon in an indented document.
func sp(indent bool) string {
	if indent {
		return " "
	}
	return ""
}

// record is one record of about 1 KB (or of big's size), as JSON, indented
// as a member of the records list when indent is set.
func (g *shapeGen) record(day string, indent bool, big []byte) []byte {
	g.n++
	r := g.r
	var title []byte
	if big != nil {
		title = big
	} else {
		title = g.voc.appendSentence(nil, r, 5, 12)
	}
	summary := g.voc.appendProse(nil, r, 6, 10, 20)
	labels := []string{g.voc.contentWord(r), g.voc.contentWord(r)}
	sec := r.intn(86400)
	members := [][2][]byte{
		{[]byte("id"), appendJSON(nil, fmt.Sprintf("r-%07d", g.n))},
		{[]byte("title"), appendJSONBytes(nil, title)},
		{[]byte("summary"), appendJSONBytes(nil, summary)},
		{[]byte("labels"), appendStrList(nil, labels)},
		{[]byte("time"), append(appendClock([]byte{'"'}, day, sec), '"')},
	}
	var b []byte
	nl, ind := "", ""
	if indent {
		nl, ind = "\n", "    "
	}
	b = append(b, ind...)
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, nl...)
		b = append(b, ind...)
		b = append(b, ind[:len(ind)/2]...)
		b = appendKey(b, string(m[0]))
		b = append(b, sp(indent)...)
		b = append(b, m[1]...)
	}
	b = append(b, nl...)
	b = append(b, ind...)
	return append(b, '}')
}

// bigTitle is prose of about n bytes: a title no writer would write, which
// a loader must still take in time linear in its length.
func (g *shapeGen) bigTitle(n int64) []byte {
	r := newRNG(g.seed, "big-title")
	b := make([]byte, 0, n+200)
	for int64(len(b)) < n-200 {
		b = g.voc.appendSentence(b, r, 8, 20)
		b = append(b, ' ')
	}
	return b
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w interface {
		Write([]byte) (int, error)
		WriteString(string) (int, error)
	}
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) WriteString(s string) (int, error) {
	n, err := c.w.WriteString(s)
	c.n += int64(n)
	return n, err
}
