package tables

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// Term returns the dictionary entry of term, found by a binary search of
// terms.tsv in O(log size) positioned reads.
func (r *Reader) Term(term string) (artifacts.TermEntry, bool, error) {
	s, _, found, err := r.terms.locate(term)
	if err != nil || !found {
		return artifacts.TermEntry{}, false, err
	}
	line, err := r.terms.readUntil(s, "\n")
	if err != nil {
		return artifacts.TermEntry{}, false, err
	}
	e, err := artifacts.DecodeTermRow(0, line)
	if err != nil {
		return e, false, r.terms.at(err, s)
	}
	return e, true, nil
}

// TermsWith returns every dictionary entry whose term contains sub, in
// dictionary order. It reads terms.tsv in full, in large chunks, and
// decodes only the rows where sub occurs: a finder finds them, so the
// cost is a memory scan rather than a parse of every row. A large file is
// swept in parts, one per core (up to MaxParts), each a run of whole
// lines, and the parts' entries joined in file order.
func (r *Reader) TermsWith(sub string) ([]artifacts.TermEntry, error) {
	a, want := r.terms, []byte(sub)
	if strings.ContainsAny(sub, "\t\n") {
		return nil, nil // no term holds a separator
	}
	parts := int(min(int64(runtime.GOMAXPROCS(0)), MaxParts, (a.size-a.start)/minSweepPart))
	if parts <= 1 {
		return r.sweepTerms(want, a.start, a.size)
	}
	bounds := []int64{a.start}
	for k := 1; k < parts; k++ {
		at := a.start + int64(k)*(a.size-a.start)/int64(parts)
		rest, err := a.readUntil(at-1, "\n") // the line holding byte at-1 ends the part
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, max(bounds[k-1], at+int64(len(rest))))
	}
	bounds = append(bounds, a.size)
	found := make([][]artifacts.TermEntry, parts)
	err := inParts(parts, func(k int) (err error) {
		found[k], err = r.sweepTerms(want, bounds[k], bounds[k+1])
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []artifacts.TermEntry
	for k := range parts {
		if len(out) > 0 && len(found[k]) > 0 && out[len(out)-1].Term >= found[k][0].Term {
			return nil, &artifacts.CorruptError{Path: a.path, Msg: fmt.Sprintf("term %q is out of order", found[k][0].Term)}
		}
		out = append(out, found[k]...)
	}
	return out, nil
}

// minSweepPart is the least of terms.tsv worth a goroutine of its own (a
// variable so that tests can sweep a small file in parts).
var minSweepPart int64 = 1 << 20

// sweepTerms is TermsWith over the whole lines in [from, to): from is the
// start of a line, to the start of another or the end of the file. Held
// bytes are searched where they are; a file is read in chunks.
func (r *Reader) sweepTerms(want []byte, from, to int64) ([]artifacts.TermEntry, error) {
	a := r.terms
	var out []artifacts.TermEntry
	find := newFinder(want)
	if a.mem != nil && to <= int64(len(a.mem)) {
		if to > from && a.mem[to-1] != '\n' {
			return nil, a.corrupt(0, truncated)
		}
		a.read.Add(to - from)
		return r.matchTerms(out, find, want, a.mem[from:to], from)
	}
	buf := make([]byte, min(sweepChunk, to-from))
	n := 0 // buf[:n] is the start of a line the last chunk cut
	for off := from; off < to; {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...) // a line longer than buf
		}
		m, err := a.pread(buf[n:min(int64(len(buf)), int64(n)+to-off)], off)
		if err != nil && err != io.EOF {
			return nil, err
		} else if m == 0 {
			return nil, a.corrupt(0, "the file is shorter than the %d bytes it had when opened", a.size)
		}
		base := off - int64(n) // where buf starts in the file
		off += int64(m)
		data := buf[:n+m]
		whole := data[:bytes.LastIndexByte(data, '\n')+1]
		if out, err = r.matchTerms(out, find, want, whole, base); err != nil {
			return nil, err
		}
		n = copy(buf, data[len(whole):])
	}
	if n > 0 {
		return nil, a.corrupt(0, truncated)
	}
	return out, nil
}

// matchTerms appends to out the entries of the whole lines in whole
// (which starts at byte base of the file) whose term holds want, as find
// finds it.
func (r *Reader) matchTerms(out []artifacts.TermEntry, find finder, want, whole []byte, base int64) ([]artifacts.TermEntry, error) {
	a := r.terms
	for pos := 0; pos < len(whole); {
		i := find.index(whole[pos:])
		if i < 0 {
			break
		}
		s := pos + bytes.LastIndexByte(whole[pos:pos+i], '\n') + 1
		e := s + bytes.IndexByte(whole[s:], '\n')
		if tab := bytes.IndexByte(whole[s:e], '\t'); tab < 0 || pos+i+len(want) <= s+tab {
			t, err := artifacts.DecodeTermRow(0, whole[s:e])
			if err == nil && len(out) > 0 && out[len(out)-1].Term >= t.Term {
				err = &artifacts.CorruptError{Path: a.path, Msg: fmt.Sprintf("term %q is out of order", t.Term)}
			}
			if err != nil {
				return nil, a.at(err, base+int64(s))
			}
			out = append(out, t)
		}
		pos = e + 1
	}
	return out, nil
}

// Postings reads the byte range e names in postings.tsv, and the byte
// before it, and decodes it, checking that the range is one whole line,
// that its item ordinals exist and that it has e.DF distinct items; or
// decodes the postings e's row holds.
func (r *Reader) Postings(e artifacts.TermEntry) ([]artifacts.Posting, error) {
	if e.Inline != "" {
		ps, err := artifacts.DecodeInline(e)
		if err != nil {
			return nil, r.terms.at(err, 0)
		}
		for _, p := range ps {
			if int(p.Doc) >= r.items || p.Doc != ps[0].Doc {
				return nil, r.terms.corrupt(0, "the postings in the row of %q name item %d, not one item of the %d of docs.tsv", e.Term, p.Doc, r.items)
			}
		}
		return ps, nil
	}
	a := r.post
	if e.Offset < a.start || e.Length < 1 || e.Offset > a.size-e.Length {
		return nil, a.corrupt(0, "the range %d+%d of %q is outside the file's %d bytes; it is truncated", e.Offset, e.Length, e.Term, a.size)
	}
	line, err := a.readAt(e.Offset-1, int(e.Length)+1)
	if err != nil {
		return nil, err
	}
	if line[0] != '\n' {
		return nil, a.corrupt(e.Offset, "the range %d+%d of %q does not start a line; terms.tsv and postings.tsv disagree", e.Offset, e.Length, e.Term)
	}
	line = line[1:]
	if bytes.HasSuffix(line, []byte("\r\n")) {
		return nil, a.corrupt(e.Offset, crlf)
	}
	ps, err := artifacts.DecodePostingsLine(e.Term, line)
	if err != nil {
		return nil, a.at(err, e.Offset)
	}
	df := 0
	for i, p := range ps {
		if int(p.Doc) >= r.items {
			return nil, a.corrupt(e.Offset, "postings of %q name item %d; docs.tsv has %d", e.Term, p.Doc, r.items)
		}
		if i == 0 || p.Doc != ps[i-1].Doc {
			df++
		}
	}
	if df != e.DF {
		return nil, a.corrupt(e.Offset, "postings of %q hold %d items, terms.tsv says %d", e.Term, df, e.DF)
	}
	return ps, nil
}
