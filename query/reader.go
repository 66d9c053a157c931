package query

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-kb/cairn/artifacts"
)

// Read sizes: a read that has not found the line boundary it looks for
// reads again, twice as much, up to maxChunk. A sweep of a whole file
// reads sweepChunk at a time into one buffer: larger buffers save a few
// read calls and cost more in fresh memory than they save.
const (
	probeChunk = 256
	keyPad     = 64
	maxChunk   = 1 << 20
	sweepChunk = 128 << 10
)

// Reader reads a built base's artifacts with positioned reads, never
// loading a whole large file. It counts what it reads (for tests and
// receipts). Its methods may be called concurrently.
//
// Every error that means an artifact is damaged (a wrong header, a
// truncated file, a line that does not decode, a byte range that holds
// another term) is an *artifacts.CorruptError, so that the caller can fall
// back to a scan and say why. Other errors are I/O errors.
type Reader struct {
	docs, key, terms, post, edges, edgesDst *file
	keyWidth                                int // a docs.key line's, LF included
	probeMu                                 sync.Mutex
	probes                                  map[int]string // URIs of rows Search has read, by ordinal
	fields                                  []artifacts.Field
	fieldsRead                              int64
	fieldsInfo                              os.FileInfo
	items                                   int
}

// file is one open artifact and what has been read from it. It is read
// with positioned reads, never mapped: a mapped page counts as the
// process's memory once touched, and with large page-cache folios one
// touch can bring in megabytes, which would make a query's resident
// memory grow with the size of the base.
type file struct {
	f     *os.File
	info  os.FileInfo // what fstat said when it was opened
	path  string      // relative to the base root, e.g. .cairn/terms.tsv
	size  int64
	start int64 // where the first line after the header starts
	read  atomic.Int64
}

// Expected headers, taken from the encoders themselves so that the
// artifacts package stays the only place that spells them.
var (
	wantDocs, _, _         = artifacts.EncodeDocs(nil, nil, 0) // no rows, no error
	wantTerms, wantPost, _ = artifacts.EncodePostings(nil)     // no input, no error
	wantEdges, _           = artifacts.EncodeEdges(nil)
	wantEdgesDst, _        = artifacts.EncodeEdgesDst(nil)
)

// OpenReader opens the artifacts under root/.cairn, checks every header,
// that every file ends with LF, reads fields.tsv whole and takes the item
// count from the size of docs.key. It reads a few bytes of each file.
func OpenReader(root string) (_ *Reader, err error) {
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer osRoot.Close()
	r := &Reader{}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	for _, a := range []struct {
		dst  **file
		path string
		hdr  []byte
	}{
		{&r.docs, artifacts.DocsPath, wantDocs},
		{&r.key, artifacts.DocsKeyPath, nil}, // its header depends on fields.tsv
		{&r.terms, artifacts.TermsPath, wantTerms},
		{&r.post, artifacts.PostingsPath, wantPost},
		{&r.edges, artifacts.EdgesPath, wantEdges},
		{&r.edgesDst, artifacts.EdgesDstPath, wantEdgesDst},
	} {
		if *a.dst, err = openArtifact(osRoot, a.path, a.hdr); err != nil {
			return nil, err
		}
	}
	fields, err := openArtifact(osRoot, artifacts.FieldsPath, nil)
	if err != nil {
		return nil, err
	}
	data, err := fields.readAt(0, int(fields.size))
	if err == nil {
		r.fields, err = artifacts.DecodeFields(data)
	}
	r.fieldsRead, r.fieldsInfo = fields.read.Load(), fields.info
	if cerr := fields.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := r.key.checkHeader([]byte(artifacts.KeysHeader(len(r.fields)))); err != nil {
		return nil, err
	}
	r.keyWidth = artifacts.KeyWidth(len(r.fields))
	width := int64(r.keyWidth)
	if r.key.size%width != 0 {
		return nil, r.key.corrupt(0, "size %d is not a multiple of the line width %d", r.key.size, width)
	}
	// The last row must be whole and end the file: a cheap check that the
	// two files belong together and docs.tsv was not cut short.
	if r.items = int(r.key.size/width) - 1; r.items > 0 {
		_, err = r.Row(r.items - 1)
	} else if r.docs.size != r.docs.start {
		err = r.docs.corrupt(0, "docs.key lists no rows but docs.tsv has some")
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// openArtifact opens one artifact and checks its header (unless hdr is nil)
// and final LF.
func openArtifact(root *os.Root, p string, hdr []byte) (*file, error) {
	f, err := root.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &artifacts.CorruptError{Path: p, Msg: "the file is missing"}
	} else if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	a := &file{f: f, info: st, path: p, size: st.Size()}
	if hdr == nil {
		return a, nil
	}
	if err := a.checkHeader(hdr); err != nil {
		a.f.Close()
		return nil, err
	}
	return a, nil
}

// checkHeader checks that the file starts with hdr and ends with LF, and
// notes where its first line after the header starts.
func (a *file) checkHeader(hdr []byte) error {
	a.start = int64(len(hdr))
	got, err := a.readAt(0, len(hdr))
	if err == nil && !bytes.Equal(got, hdr) {
		err = &artifacts.CorruptError{Path: a.path, Line: 1, Msg: fmt.Sprintf("header is not %q", bytes.TrimRight(hdr, " \n"))}
	}
	if err == nil && a.size > a.start {
		if got, err = a.readAt(a.size-1, 1); err == nil && got[0] != '\n' {
			err = a.corrupt(0, truncated)
		}
	}
	return err
}

// Close closes every artifact.
func (r *Reader) Close() error {
	var errs []error
	for _, a := range []*file{r.docs, r.key, r.terms, r.post, r.edges, r.edgesDst} {
		if a != nil {
			errs = append(errs, a.f.Close())
		}
	}
	return errors.Join(errs...)
}

// infos returns, per artifact path, what fstat said of the file the
// Reader opened there.
func (r *Reader) infos() map[string]os.FileInfo {
	m := map[string]os.FileInfo{artifacts.FieldsPath: r.fieldsInfo}
	for _, a := range []*file{r.docs, r.key, r.terms, r.post, r.edges, r.edgesDst} {
		m[a.path] = a.info
	}
	return m
}

// Items is the number of rows in docs.tsv.
func (r *Reader) Items() int { return r.items }

// Fields returns the rows of fields.tsv; the index is the field ordinal.
func (r *Reader) Fields() []artifacts.Field { return append([]artifacts.Field(nil), r.fields...) }

// BytesRead returns, per artifact file name (docs.tsv, postings.tsv, ...),
// the bytes read so far, the headers checked by OpenReader included.
func (r *Reader) BytesRead() map[string]int64 {
	m := map[string]int64{path.Base(artifacts.FieldsPath): r.fieldsRead}
	for _, a := range []*file{r.docs, r.key, r.terms, r.post, r.edges, r.edgesDst} {
		m[path.Base(a.path)] = a.read.Load()
	}
	return m
}

// Row returns the docs.tsv row of ordinal ord: one read of docs.key (its
// line and the next, for where the row starts and ends), then exactly that
// row's bytes of docs.tsv.
func (r *Reader) Row(ord int) (artifacts.Doc, error) {
	line, err := r.rowBytes(ord)
	if err != nil {
		return artifacts.Doc{}, err
	}
	return artifacts.DecodeDocRow(ord+2, line)
}

// keyLine is where the docs.key line of ordinal ord starts.
func (r *Reader) keyLine(ord int) int64 { return int64(ord+1) * int64(r.keyWidth) }

// rowOffset reads the docs.tsv offset from the docs.key line of ordinal
// ord, naming that line when it is damaged (line 1 is the header, so
// ord's line is ord+2).
func rowOffset(line []byte, ord int) (int64, error) {
	v, err := artifacts.KeyOffset(line)
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) && ce.Line == 0 {
		ce.Line = ord + 2
	}
	return v, err
}

// rowBytes reads the docs.tsv row of ordinal ord, without its LF, checked
// to be one whole row.
func (r *Reader) rowBytes(ord int) ([]byte, error) {
	if ord < 0 || ord >= r.items {
		return nil, fmt.Errorf("row %d out of range: docs.tsv has %d rows", ord, r.items)
	}
	width := r.keyWidth
	b, err := r.key.readAt(r.keyLine(ord), min(2*width, int(r.key.size-r.keyLine(ord)))) // one line at the last row
	if err != nil {
		return nil, err
	}
	start, err := rowOffset(b[:width], ord)
	end := r.docs.size
	if err == nil && len(b) > width {
		end, err = rowOffset(b[width:], ord+1)
	}
	if err != nil {
		return nil, err
	}
	if start < r.docs.start || end <= start || end > r.docs.size {
		return nil, r.docs.corrupt(0, "docs.key puts row %d at bytes %d..%d, outside the file's %d bytes", ord, start, end, r.docs.size)
	}
	// One byte more in front: the LF that ends the previous row (or the
	// header) proves that the offset is a row start.
	line, err := r.docs.readAt(start-1, int(end-start+1))
	if err != nil {
		return nil, err
	}
	if line[0] != '\n' || bytes.IndexByte(line[1:], '\n') != len(line)-2 {
		return nil, &artifacts.CorruptError{Path: artifacts.DocsPath, Line: ord + 2, Msg: "docs.key does not point at one whole row"}
	}
	line = line[1 : len(line)-1]
	if bytes.HasSuffix(line, []byte{'\r'}) {
		return nil, r.docs.corrupt(start, crlf)
	}
	return line, nil
}

// Search returns the first ordinal whose URI is >= uri (Items() when there
// is none) and whether that row's URI is uri. It reads O(log Items) rows
// and compares their first column only: a probe needs no other.
func (r *Reader) Search(uri string) (ord int, found bool, err error) {
	lo, hi := 0, r.items
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		at, err := r.probeURI(mid)
		if err != nil {
			return 0, false, err
		}
		switch c := strings.Compare(at, uri); {
		case c < 0:
			lo = mid + 1
		default:
			hi, found = mid, c == 0 // the last hi is the answer
		}
	}
	return lo, found, nil
}

// probeURI is the URI of row ord, read once per Reader: the searches for
// a window's bounds (each layer's start and end, its first and last day)
// take the same first steps, and on the 100k benchmark base share about
// half of their probes.
func (r *Reader) probeURI(ord int) (string, error) {
	r.probeMu.Lock()
	uri, ok := r.probes[ord]
	r.probeMu.Unlock()
	if ok {
		return uri, nil
	}
	line, err := r.rowBytes(ord)
	if err != nil {
		return "", err
	}
	tab := bytes.IndexByte(line, '\t')
	if tab <= 0 {
		return "", &artifacts.CorruptError{Path: artifacts.DocsPath, Line: ord + 2, Msg: "the row has no URI column"}
	}
	uri = string(line[:tab])
	r.probeMu.Lock()
	if r.probes == nil {
		r.probes = map[int]string{}
	}
	r.probes[ord] = uri
	r.probeMu.Unlock()
	return uri, nil
}

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
// swept in parts, one per core (up to maxParts), each a run of whole
// lines, and the parts' entries joined in file order.
func (r *Reader) TermsWith(sub string) ([]artifacts.TermEntry, error) {
	a, want := r.terms, []byte(sub)
	if strings.ContainsAny(sub, "\t\n") {
		return nil, nil // no term holds a separator
	}
	parts := int(min(int64(runtime.GOMAXPROCS(0)), maxParts, (a.size-a.start)/minSweepPart))
	if parts <= 1 {
		return a.sweepTerms(want, a.start, a.size)
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
		found[k], err = a.sweepTerms(want, bounds[k], bounds[k+1])
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
// start of a line, to the start of another or the end of the file.
func (a *file) sweepTerms(want []byte, from, to int64) ([]artifacts.TermEntry, error) {
	var out []artifacts.TermEntry
	find := newFinder(want)
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
		n = copy(buf, data[len(whole):])
	}
	if n > 0 {
		return nil, a.corrupt(0, truncated)
	}
	return out, nil
}

// Postings reads exactly the byte range e names in postings.tsv and decodes
// it, checking that the range holds e's term, that its item ordinals exist
// and that it has e.DF distinct items.
func (r *Reader) Postings(e artifacts.TermEntry) ([]artifacts.Posting, error) {
	a := r.post
	if e.Offset < a.start || e.Length < 1 || e.Offset > a.size-e.Length {
		return nil, a.corrupt(0, "the range %d+%d of %q is outside the file's %d bytes; it is truncated", e.Offset, e.Length, e.Term, a.size)
	}
	line, err := a.readAt(e.Offset, int(e.Length))
	if err != nil {
		return nil, err
	}
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

// Outgoing returns the outgoing links of node from edges.tsv, and whether
// the node has any.
func (r *Reader) Outgoing(node string) ([]artifacts.Link, bool, error) {
	return r.adjacency(r.edges, node, 0)
}

// Incoming returns the inbound links of node from edges.dst.tsv, newest
// source first, at most limit of them (all when limit <= 0), and whether
// the node has any. An item source is written #<ordinal>. A long line is
// read and decoded only as far as the limit needs.
func (r *Reader) Incoming(node string, limit int) ([]artifacts.Link, bool, error) {
	return r.adjacency(r.edgesDst, node, limit)
}

func (r *Reader) adjacency(a *file, node string, limit int) ([]artifacts.Link, bool, error) {
	s, klen, found, err := a.locate(node)
	if err != nil || !found {
		return nil, false, err
	}
	if limit <= 0 {
		limit = math.MaxInt
	}
	links, err := a.streamLinks(s, klen, node, limit)
	if err != nil {
		return nil, false, err
	}
	for _, l := range links { // an item source #<ordinal> must be a row
		if ref, ok := strings.CutPrefix(l.Node, artifacts.ItemRef); ok && a == r.edgesDst {
			if n, err := strconv.Atoi(ref); err != nil || n < 0 || n >= r.items {
				return nil, false, a.corrupt(s, "source %q is not an item of docs.tsv, which has %d", l.Node, r.items)
			}
		}
	}
	return links, true, nil
}

// streamLinks decodes the links of the line at s whose node column has
// klen bytes, a batch of whole cells at a time with DecodeAdjacencyLine,
// until it has limit links or reaches the end of the line. The batches
// grow, so a whole megabyte line costs a few dozen reads.
func (a *file) streamLinks(s int64, klen int, node string, limit int) ([]artifacts.Link, error) {
	pos := s + int64(klen)
	sep, err := a.readAt(pos, 1)
	if err != nil {
		return nil, err
	}
	if len(sep) == 0 || sep[0] != '\t' {
		return nil, a.corrupt(s, "node %q has no links", node)
	}
	pos++
	var links []artifacts.Link
	for c := probeChunk; len(links) < limit; {
		buf, err := a.readAt(pos, c)
		if err != nil {
			return nil, err
		}
		seg, last := buf, false
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			seg, last = buf[:i], true
			if bytes.HasSuffix(seg, []byte{'\r'}) {
				return nil, a.corrupt(s, crlf)
			}
		} else if pos+int64(len(buf)) >= a.size {
			return nil, a.corrupt(s, truncated)
		} else if j := bytes.LastIndexByte(buf, '\t'); j >= 0 {
			seg = buf[:j]
			pos += int64(j) + 1
		} else {
			c = min(2*c, maxChunk) // one cell longer than the chunk
			continue
		}
		adj, err := artifacts.DecodeAdjacencyLine(a.path, 0, append([]byte(node+"\t"), seg...))
		if err != nil {
			return nil, a.at(err, s)
		}
		links = append(links, adj.Links...)
		if last {
			break
		}
		c = min(2*c, maxChunk)
	}
	return links[:min(limit, len(links))], nil
}

// pread reads from the artifact and counts what it read.
func (a *file) pread(p []byte, off int64) (int, error) {
	n, err := a.f.ReadAt(p, off)
	a.read.Add(int64(n))
	return n, err
}

// readAt reads n bytes at off, fewer only where the file ends.
func (a *file) readAt(off int64, n int) ([]byte, error) {
	return a.readInto(nil, off, n)
}

// readInto is readAt reading into buf's storage when it is large enough,
// for callers that read many blocks one after another.
func (a *file) readInto(buf []byte, off int64, n int) ([]byte, error) {
	if rest := a.size - off; int64(n) > rest {
		n = int(max(rest, 0))
	}
	if cap(buf) < n {
		// Twice the last buffer at least: reads of varying sizes into one
		// reused buffer then allocate a few times, not once per growth.
		buf = make([]byte, max(n, 2*cap(buf)))
	}
	buf = buf[:n]
	m, err := a.pread(buf, off)
	if m < n {
		if err != nil && err != io.EOF {
			return nil, err
		}
		return nil, a.corrupt(0, "the file is shorter than the %d bytes it had when opened; it was truncated", a.size)
	}
	return buf, nil
}

// readUntil reads from s up to the first of the stop bytes and returns the
// bytes before it, extending its read while it has not found one.
func (a *file) readUntil(s int64, stops string) ([]byte, error) {
	var out []byte
	for c := probeChunk; ; c = min(2*c, maxChunk) {
		at := s + int64(len(out))
		if at >= a.size {
			return nil, a.corrupt(s, truncated)
		}
		buf, err := a.readAt(at, c)
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexAny(buf, stops); i >= 0 {
			out = append(out, buf[:i]...)
			if buf[i] == '\n' && bytes.HasSuffix(out, []byte{'\r'}) {
				return nil, a.corrupt(s, crlf)
			}
			return out, nil
		}
		out = append(out, buf...)
	}
}

// Reasons shared by several reads.
const (
	truncated = "last line has no LF; the file is truncated"
	crlf      = "the line ends with CR; artifacts use LF line endings"
)

// corrupt is a CorruptError about a's line starting at byte s (0: the
// whole file).
func (a *file) corrupt(s int64, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s > 0 {
		msg = fmt.Sprintf("line at byte %d: %s", s, msg)
	}
	return &artifacts.CorruptError{Path: a.path, Msg: msg}
}

// at adds the byte offset of the line to a decoder's CorruptError, whose
// line number a positioned read does not know.
func (a *file) at(err error, s int64) error {
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) && ce.Line == 0 {
		ce.Msg = fmt.Sprintf("line at byte %d: %s", s, ce.Msg)
	}
	return err
}

// locate finds the line of a sorted line file whose first column is key,
// by a binary search over byte offsets, and returns where the line starts
// and the length of its first column. Invariant: floor lies in a line that
// sorts below key (the header sorts below everything) and hi is the start
// of a line that sorts above it, or the end of the file; the line sought,
// if any, starts in (floor, hi). A probe scans back from the middle to the
// start of the line it lands in, whose first column decides, so no byte is
// read twice and landing inside a long line costs the distance to its start.
func (a *file) locate(key string) (start int64, klen int, found bool, err error) {
	want := []byte(key)
	for floor, hi := int64(0), a.size; hi-floor > 1; {
		mid := floor + (hi-floor)/2
		s, k, err := a.lineOf(floor, mid)
		if err != nil {
			return 0, 0, false, err
		}
		c := -1 // no line starts in (floor, mid]: mid is in floor's line
		if s >= 0 {
			c = bytes.Compare(k, want)
		}
		switch {
		case c == 0:
			return s, len(k), true, nil
		case c < 0:
			floor = mid
		default:
			hi = s
		}
	}
	return 0, 0, false, nil
}

// lineOf finds the start s of the line holding byte mid by scanning back
// in growing chunks, and returns it with the line's first column; s is -1
// when no line starts in (floor, mid]. The first read goes keyPad bytes
// past mid, so that a line starting just before mid brings its key along.
func (a *file) lineOf(floor, mid int64) (int64, []byte, error) {
	for end, c := mid, int64(probeChunk); end > floor; c = min(2*c, maxChunk) {
		from, to := max(floor, end-c), end
		if end == mid {
			to = min(mid+keyPad, a.size)
		}
		buf, err := a.readAt(from, int(to-from))
		if err != nil {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(buf[:end-from], '\n'); i >= 0 {
			s := from + int64(i) + 1
			if j := bytes.IndexAny(buf[i+1:], "\t\n"); j >= 0 {
				return s, buf[i+1 : i+1+j], nil
			}
			k, err := a.readUntil(s, "\t\n")
			return s, k, err
		}
		end = from
	}
	return -1, nil, nil
}

// rowGap is how many unwanted rows a batched read may span to join two
// wanted ones: reading a few more bytes beats another system call. A row
// is about 230 bytes, so 64 rows copy about as long as a read call takes;
// at 100k records 64 beat both 32 and 256 on a rare and a common query.
// batchRows bounds one read, so that its buffer (about 120 KB, reused)
// stays small whatever the query: fresh memory is paid for page by page.
// rowsBlock is that buffer's first size when many rows are read.
const (
	rowGap    = 64
	batchRows = 512
	rowsBlock = 128 << 10
)

// Rows reads the rows of many ordinals (sorted, distinct) in a few
// positioned reads: ordinals close together share one read of docs.key and
// one of docs.tsv. It checks each row as Row does. Many rows are read in
// parts, one per core (up to maxParts): copying the bytes out of the
// page cache is most of the cost, and cores do it side by side.
func (r *Reader) Rows(ords []int) ([]artifacts.Doc, error) { return readInParts(ords, r.rowsInto) }

// readInParts reads what into reads for ords, in parts of ords, one per
// core when there are many.
func readInParts[T any](ords []int, into func(ords []int, out []T) error) ([]T, error) {
	out := make([]T, len(ords))
	parts := max(1, min(runtime.GOMAXPROCS(0), maxParts, len(ords)/minPartRows))
	err := inParts(parts, func(p int) error {
		lo, hi := p*len(ords)/parts, (p+1)*len(ords)/parts
		return into(ords[lo:hi], out[lo:hi])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// minPartRows is the fewest rows worth a goroutine of their own (a
// variable so that tests can read a small base in parts).
var minPartRows = 512

// maxParts bounds the goroutines one read is split across.
const maxParts = 4

// inParts runs part(0)..part(n-1), each on a goroutine of its own when
// there are several, and returns the error of the first part that failed:
// the error one pass over the parts in order would have met first.
func inParts(n int, part func(k int) error) error {
	if n == 1 {
		return part(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { errs[k] = part(k) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rowsInto reads the rows of ords into out, which has a place for each.
func (r *Reader) rowsInto(ords []int, out []artifacts.Doc) error {
	var offs, block []byte // reused from batch to batch
	if len(ords) >= batchRows {
		// Batches of many rows come near the bound: one block of about
		// their size from the start, rather than a series of doublings
		// that each cost fresh memory.
		block = make([]byte, 0, min(r.docs.size, rowsBlock))
	}
	var dd artifacts.DocDecoder
	return r.inBatches(ords, rowGap, batchRows, "rows", func(run []int, k0 int) error {
		first, last := run[0], run[len(run)-1]
		at, width := r.keyLine(first), r.keyWidth
		n := last - first + 1
		var err error
		offs, err = r.key.readInto(offs, at, min((n+1)*width, int(r.key.size-at)))
		if err != nil {
			return err
		}
		offset := func(k int) (int64, error) {
			if (k+1)*width > len(offs) {
				return r.docs.size, nil // the end of the last row is the file's end
			}
			return rowOffset(offs[k*width:(k+1)*width], first+k)
		}
		start, err := offset(0)
		if err != nil {
			return err
		}
		end, err := offset(n)
		if err != nil {
			return err
		}
		if start < r.docs.start || end <= start || end > r.docs.size {
			return r.docs.corrupt(0, "docs.key puts rows %d..%d at bytes %d..%d, outside the file's %d bytes", first, last, start, end, r.docs.size)
		}
		block, err = r.docs.readInto(block, start-1, int(end-start+1))
		if err != nil {
			return err
		}
		for k, ord := range run {
			a, err := offset(ord - first)
			if err != nil {
				return err
			}
			b, err := offset(ord - first + 1)
			if err != nil {
				return err
			}
			if a < start || b > end || b <= a {
				return r.docs.corrupt(a, "docs.key is out of order at row %d", ord)
			}
			line := block[a-start : b-start+1] // with the LF before it
			if line[0] != '\n' || bytes.IndexByte(line[1:], '\n') != len(line)-2 {
				return &artifacts.CorruptError{Path: artifacts.DocsPath, Line: ord + 2, Msg: "docs.key does not point at one whole row"}
			}
			line = line[1 : len(line)-1]
			if bytes.HasSuffix(line, []byte{'\r'}) {
				return r.docs.corrupt(a, crlf)
			}
			d, err := dd.DecodeCopy(ord+2, line) // block is reused
			if err != nil {
				return err
			}
			out[k0+k] = d
		}
		return nil
	})
}

// keyGap is how many unwanted docs.key lines a batched read may span to
// join two wanted ones, and keyBatch the most lines one read takes. A
// line is about 160 bytes and a read call costs about what copying a
// hundred lines does here, so a batch's buffer (up to 80 KB, reused) is
// cheaper than the reads it saves; a wider gap gains nothing more and
// costs a query of scattered candidates (a ticket id) up to 4 ms.
const (
	keyGap   = 96
	keyBatch = 512
)

// Keys reads the docs.key lines of many ordinals (sorted, distinct) in a
// few positioned reads, ordinals close together sharing one. Many keys
// are read in parts, one per core, as Rows reads rows.
func (r *Reader) Keys(ords []int) ([]artifacts.Key, error) { return readInParts(ords, r.keysInto) }

// keysInto reads the keys of ords into out, which has a place for each.
func (r *Reader) keysInto(ords []int, out []artifacts.Key) error {
	var kd artifacts.KeyDecoder
	var block []byte // reused from batch to batch
	fields := len(r.fields)
	width := r.keyWidth
	return r.inBatches(ords, keyGap, keyBatch, "keys", func(run []int, k0 int) error {
		first, last := run[0], run[len(run)-1]
		var err error
		if block, err = r.key.readInto(block, r.keyLine(first), (last-first+1)*width); err != nil {
			return err
		}
		for k, ord := range run {
			at := (ord - first) * width
			if out[k0+k], err = kd.Decode(ord+2, block[at:at+width], fields); err != nil {
				return err
			}
		}
		return nil
	})
}

// inBatches calls batch with each run of ords (sorted, distinct) whose
// neighbours are at most gap apart and which spans fewer than span
// ordinals, with where the run starts in ords, in order, after checking
// that the run is in range; what names the ordinals in that error.
func (r *Reader) inBatches(ords []int, gap, span int, what string, batch func(run []int, at int) error) error {
	for i := 0; i < len(ords); {
		j := i + 1
		for j < len(ords) && ords[j]-ords[j-1] <= gap && ords[j]-ords[i] < span {
			j++
		}
		if first, last := ords[i], ords[j-1]; first < 0 || last >= r.items {
			return fmt.Errorf("%s %d..%d out of range: docs.tsv has %d rows", what, first, last, r.items)
		}
		if err := batch(ords[i:j], i); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// Key reads the docs.key line of one ordinal.
func (r *Reader) Key(ord int) (artifacts.Key, error) {
	keys, err := r.Keys([]int{ord})
	if err != nil {
		return artifacts.Key{}, err
	}
	return keys[0], nil
}
