package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// A spilled segment's terms and postings are in a scratch file, not in
// memory: a large build inverts its runs in parallel and would otherwise
// hold every run's postings until the merge. The run is written as the
// merge reads it, one term after another in dictionary order, each as a
// record read whole and decoded in memory:
//
//	uvarint  the record's length, then the record:
//	uvarint  bytes the term shares with the one before
//	uvarint  bytes it adds, then those bytes
//	uvarint  how many postings it has, then for each
//	uvarint  its item less the previous posting's (postings are by item)
//	uvarint  its field position, then its term frequency
//
// Most numbers are below 128, so a posting takes about three bytes where
// the in-memory array takes eight.
type spilled struct {
	scratch  *artifacts.Scratch
	at       artifacts.ScratchSection
	terms    int
	postings int
	words    int // the terms' bytes, for the output's size hint
}

// Spill writes the segment's terms and postings to sc and lets go of
// them; Layout.Merge reads them back from there. Its rows and fields stay.
func (s *Segment) Spill(sc *artifacts.Scratch) error {
	if s.spilled != nil {
		return nil
	}
	out := make([]byte, 0, len(s.words)+3*len(s.flat)+6*s.terms())
	var rec []byte
	prev := ""
	for i := range s.terms() {
		t := s.term(i)
		shared := 0
		for shared < len(prev) && shared < len(t) && prev[shared] == t[shared] {
			shared++
		}
		rec = binary.AppendUvarint(rec[:0], uint64(shared))
		rec = binary.AppendUvarint(rec, uint64(len(t)-shared))
		rec = append(rec, t[shared:]...)
		ps := s.posts(i)
		rec = binary.AppendUvarint(rec, uint64(len(ps)))
		doc := int32(0)
		for _, p := range ps {
			rec = binary.AppendUvarint(rec, uint64(p.Doc-doc))
			rec = binary.AppendUvarint(rec, uint64(p.Field))
			rec = binary.AppendUvarint(rec, uint64(p.TF))
			doc = p.Doc
		}
		out = binary.AppendUvarint(out, uint64(len(rec)))
		out = append(out, rec...)
		prev = t
	}
	at, err := sc.Append(out)
	if err != nil {
		return err
	}
	s.spilled = &spilled{scratch: sc, at: at, terms: s.terms(), postings: len(s.flat), words: len(s.words)}
	s.words, s.ends, s.starts, s.flat = "", nil, nil, nil
	return nil
}

// runReader reads a spilled segment back, one term at a time.
type runReader struct {
	r     *bufio.Reader
	left  int   // terms not yet read
	size  int64 // the run's bytes: no record is longer
	rec   []byte
	term  []byte
	posts []artifacts.Posting
	err   error
}

// spillReadBuffer is how much of each spilled run the merge reads ahead;
// the merge reads every run at once, so it bounds the merge's memory
// with the number of runs.
const spillReadBuffer = 32 << 10

func newRunReader(sp *spilled) *runReader {
	return &runReader{r: bufio.NewReaderSize(sp.scratch.Section(sp.at), spillReadBuffer), left: sp.terms, size: sp.at.Length}
}

// next reads the next term and its postings; false at the end or on an
// error, which err then holds.
func (rr *runReader) next() bool {
	if rr.left == 0 || rr.err != nil {
		return false
	}
	rr.left--
	n, err := binary.ReadUvarint(rr.r)
	if err != nil {
		return rr.fail(err)
	}
	if n > uint64(rr.size) {
		return rr.fail(errors.New("a record's length is out of range"))
	}
	rr.rec = slices.Grow(rr.rec[:0], int(n))[:n]
	if _, err := io.ReadFull(rr.r, rr.rec); err != nil {
		return rr.fail(err)
	}
	rec := varints{b: rr.rec}
	shared, add := rec.next(), rec.next()
	if rec.b == nil || shared > uint64(len(rr.term)) || add > uint64(len(rec.b)) {
		return rr.fail(errors.New("a term is out of range"))
	}
	rr.term = append(rr.term[:shared], rec.b[:add]...)
	rec.b = rec.b[add:]
	count := rec.next()
	if rec.b == nil || count > uint64(len(rec.b)) {
		return rr.fail(errors.New("a postings count is out of range"))
	}
	rr.posts = slices.Grow(rr.posts[:0], int(count))
	doc := int32(0)
	for range count {
		d, f, tf := rec.next(), rec.next(), rec.next()
		if rec.b == nil {
			return rr.fail(errors.New("a posting is cut short"))
		}
		doc += int32(d)
		rr.posts = append(rr.posts, artifacts.Posting{Doc: doc, Field: uint16(f), TF: uint16(tf)})
	}
	if len(rec.b) != 0 {
		return rr.fail(errors.New("a record holds more than its postings"))
	}
	return true
}

// varints reads uvarints off the front of b; a bad one leaves b nil, as
// every read after it does.
type varints struct{ b []byte }

func (v *varints) next() uint64 {
	x, k := binary.Uvarint(v.b)
	if k <= 0 {
		v.b = nil
		return 0
	}
	v.b = v.b[k:]
	return x
}

func (rr *runReader) fail(err error) bool {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	rr.err = fmt.Errorf("index: reading back an inverted run: %w", err)
	return false
}

// A spilled segment's rows are in a scratch file too, each as its docs.tsv
// row (artifacts.AppendDocRow), its lengths by the segment's field
// positions (what its key's norms are made of once the fields are
// numbered), and the part of its key it makes alone (project.OwnKey),
// computed as it is projected, on its core:
//
//	uvarint  the row's bytes, the bytes
//	uvarint  how many lengths, then for each: uvarint field, uvarint words
//	uvarint  day, half-life, flags, own id; then 4 bytes own URI, 4 title
//	         terms, 8 digest (little-endian)
//
// What the merge needs of every row at once, its placing among the others
// (project.Placing), stays in memory, its strings in one block per
// segment.
type spilledRows struct {
	scratch     *artifacts.Scratch
	at          artifacts.ScratchSection
	n           int               // how many rows
	placings    []project.Placing // until the merge has placed them
	first, last string            // the first and last rows' URIs
	// docs are the record documents whose records the rows hold, a
	// document per run of its records (a row names only its URI from #).
	docs []recordRun
}

// recordRun says that the n rows from row at are records of the document
// at path.
type recordRun struct {
	path  string
	at, n int
}

// NewSpilledSegment inverts items (sorted by URI) as NewSegment does and
// writes its postings and rows to sc at once, keeping only their
// placings: what a build holds of each run of items until the merge.
func NewSpilledSegment(items []project.Item, terms project.Dict, sc *artifacts.Scratch, cfg model.Config) (Segment, error) {
	seg := newSegment(items, nil, terms, false)
	if err := seg.Spill(sc); err != nil {
		return Segment{}, err
	}
	if err := seg.spillRows(sc, cfg); err != nil {
		return Segment{}, err
	}
	return seg, nil
}

// spilledKeyBytes is at most what a spilled row adds to its docs.tsv
// row for its key: two lengths, four uvarints, 16 fixed bytes.
const spilledKeyBytes = 2*binary.MaxVarintLen32 + 4*binary.MaxVarintLen32 + 16

// spillRows writes the segment's rows to sc and lets go of them.
func (s *Segment) spillRows(sc *artifacts.Scratch, cfg model.Config) error {
	placings := make([]project.Placing, len(s.Rows))
	var docs []recordRun
	var arena strings.Builder
	size, rows := 0, 0
	for i := range s.Rows {
		p := project.PlacingOf(&s.Rows[i])
		size += len(p.Source) + len(p.Title) + len(p.URLKey) + len(p.Stamp)
		rows += artifacts.DocRowSize(&s.Rows[i]) + 8*len(s.Rows[i].Lengths) + spilledKeyBytes
	}
	out := make([]byte, 0, rows) // the run's rows, made in one buffer sized once
	arena.Grow(size)
	keep := func(v string) string {
		from := arena.Len()
		arena.WriteString(v)
		return arena.String()[from:]
	}
	var row []byte
	for i := range s.Rows {
		d := &s.Rows[i]
		var k artifacts.Key
		if err := project.OwnKey(&k, d, cfg); err != nil {
			return err
		}
		for _, l := range d.Lengths {
			if l.Field < 0 || int(l.Field) >= len(s.Fields) {
				return fmt.Errorf("%s: field position %d of %d fields", d.URI, l.Field, len(s.Fields))
			}
		}
		row = artifacts.AppendDocRow(row[:0], d)
		out = binary.AppendUvarint(out, uint64(len(row)))
		out = append(out, row...)
		out = binary.AppendUvarint(out, uint64(len(d.Lengths)))
		for _, l := range d.Lengths {
			out = binary.AppendUvarint(out, uint64(l.Field))
			out = binary.AppendUvarint(out, uint64(l.N))
		}
		out = binary.AppendUvarint(out, uint64(uint32(k.Day)))
		out = binary.AppendUvarint(out, uint64(k.HalfLife))
		out = binary.AppendUvarint(out, uint64(k.Flags))
		out = binary.AppendUvarint(out, uint64(k.OwnID))
		out = binary.LittleEndian.AppendUint32(out, k.OwnURI)
		out = binary.LittleEndian.AppendUint32(out, k.TitleTerms)
		out = binary.LittleEndian.AppendUint64(out, k.Digest)
		p := project.PlacingOf(d)
		placings[i] = project.Placing{Source: keep(p.Source), Title: keep(p.Title), URLKey: keep(p.URLKey), Stamp: keep(p.Stamp)}
		if d.SpanOff >= 0 {
			path, _, _ := strings.Cut(d.URI, "#")
			if n := len(docs); n > 0 && docs[n-1].path == path && docs[n-1].at+docs[n-1].n == i {
				docs[n-1].n++
			} else {
				docs = append(docs, recordRun{path: strings.Clone(path), at: i, n: 1})
			}
		}
	}
	at, err := sc.Append(out)
	if err != nil {
		return err
	}
	s.rows = &spilledRows{scratch: sc, at: at, n: len(placings), placings: placings, docs: docs}
	if n := len(s.Rows); n > 0 {
		s.rows.first, s.rows.last = strings.Clone(s.Rows[0].URI), strings.Clone(s.Rows[n-1].URI)
		for i := 1; i < n; i++ {
			if s.Rows[i-1].URI >= s.Rows[i].URI {
				return fmt.Errorf("a run of items out of URI order at %s", s.Rows[i].URI)
			}
		}
	}
	s.Rows = nil
	return nil
}

// spilledRow is one row read back: its docs.tsv row, its lengths by the
// segment's field positions, and its own key.
type spilledRow struct {
	row     []byte
	lengths []artifacts.FieldLen
	key     artifacts.Key
	doc     string // the path of the record's document; "" for a page's row
}

// uri is the row's URI: its first column, after its document's path for a
// record.
func (r *spilledRow) uri() string {
	uri, _, _ := bytes.Cut(r.row, []byte{'\t'})
	return r.doc + string(uri)
}

// eachRow reads the rows back in order and calls f with each; the row is
// f's only during the call.
func (sr *spilledRows) eachRow(f func(r *spilledRow) error) error {
	buf := make([]byte, sr.at.Length)
	if _, err := io.ReadFull(sr.scratch.Section(sr.at), buf); err != nil {
		return fmt.Errorf("index: reading back a run of rows: %w", err)
	}
	bad := errors.New("index: reading back a run of rows: the run is damaged")
	rest := varints{b: buf}
	var r spilledRow
	docs := sr.docs
	for i := range sr.n {
		for len(docs) > 0 && i >= docs[0].at+docs[0].n {
			docs = docs[1:]
		}
		r.doc = ""
		if len(docs) > 0 && i >= docs[0].at {
			r.doc = docs[0].path
		}
		n := rest.next()
		if rest.b == nil || n > uint64(len(rest.b)) {
			return bad
		}
		r.row = rest.b[:n]
		rest.b = rest.b[n:]
		count := rest.next()
		if rest.b == nil || count > uint64(len(rest.b)) {
			return bad
		}
		r.lengths = r.lengths[:0]
		for range count {
			field, words := rest.next(), rest.next()
			r.lengths = append(r.lengths, artifacts.FieldLen{Field: int32(field), N: int32(words)})
		}
		day, half, flags, own := rest.next(), rest.next(), rest.next(), rest.next()
		if rest.b == nil || len(rest.b) < 16 {
			return bad
		}
		b := rest.b
		r.key = artifacts.Key{Day: int32(uint32(day)), HalfLife: uint32(half), Flags: artifacts.KeyFlags(flags), OwnID: uint32(own),
			OwnURI: binary.LittleEndian.Uint32(b), TitleTerms: binary.LittleEndian.Uint32(b[4:]), Digest: binary.LittleEndian.Uint64(b[8:])}
		rest.b = b[16:]
		if err := f(&r); err != nil {
			return err
		}
	}
	if len(rest.b) != 0 {
		return bad
	}
	return nil
}
