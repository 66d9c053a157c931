package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
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
	rec := rr.rec
	uvarint := func() uint64 {
		v, k := binary.Uvarint(rec)
		if k <= 0 {
			rec = nil
			return 0
		}
		rec = rec[k:]
		return v
	}
	shared, add := uvarint(), uvarint()
	if rec == nil || shared > uint64(len(rr.term)) || add > uint64(len(rec)) {
		return rr.fail(errors.New("a term is out of range"))
	}
	rr.term = append(rr.term[:shared], rec[:add]...)
	rec = rec[add:]
	count := uvarint()
	if rec == nil || count > uint64(len(rec)) {
		return rr.fail(errors.New("a postings count is out of range"))
	}
	rr.posts = slices.Grow(rr.posts[:0], int(count))
	doc := int32(0)
	for range count {
		d, f, tf := uvarint(), uvarint(), uvarint()
		if rec == nil {
			return rr.fail(errors.New("a posting is cut short"))
		}
		doc += int32(d)
		rr.posts = append(rr.posts, artifacts.Posting{Doc: doc, Field: uint16(f), TF: uint16(tf)})
	}
	if len(rec) != 0 {
		return rr.fail(errors.New("a record holds more than its postings"))
	}
	return true
}

func (rr *runReader) fail(err error) bool {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	rr.err = fmt.Errorf("index: reading back an inverted run: %w", err)
	return false
}
