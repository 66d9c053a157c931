package tables

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
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
	keyPad     = 64 // bytes a probe reads past its byte, for the key of a line starting just before it
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
	// documents are documents.tsv's rows, and origins what a record's row
	// takes from its document.
	documents     []artifacts.Document
	origins       artifacts.Origins
	documentsRead int64
	documentsInfo os.FileInfo
	items         int
	// held, when set, is docs.key decoded whole (see Hold); it is set
	// before the reader is shared and only read after.
	held []artifacts.Key
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
	// mem, when set, is the file's bytes, read whole by hold; set before
	// the reader is shared and only read after.
	mem []byte
	// probes remembers where locate's probes landed (see probe): the first
	// steps of every binary search are the same, and a probe that lands in
	// a long line pays the distance to its start.
	probeMu sync.Mutex
	probes  map[int64]probed
}

// probed is the line a probe at some byte landed in: where it starts
// and its first column, or s = -1 when it starts at or below floor.
type probed struct {
	s     int64
	key   string
	floor int64
}

// maxProbes bounds the probes a file remembers: enough for the top
// levels of the searches of a long session, a few hundred KiB at most.
const maxProbes = 4096

// Expected headers, taken from the encoders themselves so that the
// artifacts package stays the only place that spells them.
var (
	wantDocs, _, _         = artifacts.EncodeDocs(nil, nil, 0) // no rows, no error
	wantTerms, wantPost, _ = artifacts.EncodePostings(nil)     // no input, no error
	wantEdges, _           = artifacts.EncodeEdges(nil)
	wantEdgesDst, _        = artifacts.EncodeEdgesDst(nil)
)

// Open opens the artifacts under root/.cairn, checks every header,
// that every file ends with LF, reads fields.tsv and documents.tsv whole
// and takes the item count from the size of docs.key. It reads a few
// bytes of each other file.
func Open(root string) (_ *Reader, err error) {
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer osRoot.Close()
	return open(func(p string, hdr []byte) (*file, error) { return openArtifact(osRoot, p, hdr) })
}

// OpenBytes is Open over artifacts held in memory, by path (a build's
// planned files): what a query reads when it splices the files that
// changed since the build into the artifacts on disk. It checks them as
// Open does; Infos has no entry for them.
func OpenBytes(files map[string][]byte) (*Reader, error) {
	return open(func(p string, hdr []byte) (*file, error) {
		data, ok := files[p]
		if !ok {
			return nil, &artifacts.CorruptError{Path: p, Msg: "the file is missing"}
		}
		a := &file{path: p, size: int64(len(data)), mem: data}
		if hdr == nil {
			return a, nil
		}
		return a, a.checkHeader(hdr)
	})
}

// open opens every artifact through openFile and checks them together.
func open(openFile func(p string, hdr []byte) (*file, error)) (_ *Reader, err error) {
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
		if *a.dst, err = openFile(a.path, a.hdr); err != nil {
			return nil, err
		}
	}
	if r.fields, r.fieldsRead, r.fieldsInfo, err = readWhole(openFile, artifacts.FieldsPath, artifacts.DecodeFields); err != nil {
		return nil, err
	}
	if r.documents, r.documentsRead, r.documentsInfo, err = readWhole(openFile, artifacts.DocumentsPath, artifacts.DecodeDocuments); err != nil {
		return nil, err
	}
	r.origins = artifacts.OriginsOf(r.documents)
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

// readWhole reads the small artifact at p whole through openFile and
// decodes it; it returns the rows, the bytes read and what fstat said.
func readWhole[T any](openFile func(p string, hdr []byte) (*file, error), p string, decode func([]byte) ([]T, error)) ([]T, int64, os.FileInfo, error) {
	a, err := openFile(p, nil)
	if err != nil {
		return nil, 0, nil, err
	}
	data, err := a.readAt(0, int(a.size))
	var rows []T
	if err == nil {
		rows, err = decode(data)
	}
	if cerr := a.close(); err == nil {
		err = cerr
	}
	return rows, a.read.Load(), a.info, err
}

// openArtifact opens one artifact, reached by no link, and checks its header (unless hdr is nil)
// and final LF.
func openArtifact(root *os.Root, p string, hdr []byte) (*file, error) {
	f, st, err := artifacts.OpenArtifact(root, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &artifacts.CorruptError{Path: p, Msg: "the file is missing"}
	} else if le := (*artifacts.LinkError)(nil); errors.As(err, &le) {
		return nil, err // a linked .cairn is the user's to remove, and says how
	} else if err != nil {
		// Unreadable (its permissions, a link or a folder in its place, the
		// disk): the artifacts cannot answer, and the caller scans the
		// base instead.
		return nil, unreadable(p, err)
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

// close closes the file, when there is one (not for held bytes).
func (a *file) close() error {
	if a.f == nil {
		return nil
	}
	return a.f.Close()
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
			errs = append(errs, a.close())
		}
	}
	return errors.Join(errs...)
}

// Infos returns, per artifact path, what fstat said of the file the
// Reader opened there.
func (r *Reader) Infos() map[string]os.FileInfo {
	m := map[string]os.FileInfo{}
	if r.fieldsInfo != nil {
		m[artifacts.FieldsPath] = r.fieldsInfo
	}
	if r.documentsInfo != nil {
		m[artifacts.DocumentsPath] = r.documentsInfo
	}
	for _, a := range []*file{r.docs, r.key, r.terms, r.post, r.edges, r.edgesDst} {
		if a.info != nil {
			m[a.path] = a.info
		}
	}
	return m
}

// Items is the number of rows in docs.tsv.
func (r *Reader) Items() int { return r.items }

// Fields returns the rows of fields.tsv; the index is the field ordinal.
func (r *Reader) Fields() []artifacts.Field { return append([]artifacts.Field(nil), r.fields...) }

// Documents returns the rows of documents.tsv, which must not be changed.
func (r *Reader) Documents() []artifacts.Document { return r.documents }

// BytesRead returns, per artifact file name (docs.tsv, postings.tsv, ...),
// the bytes read so far, the headers checked by Open included.
func (r *Reader) BytesRead() map[string]int64 {
	m := map[string]int64{path.Base(artifacts.FieldsPath): r.fieldsRead, path.Base(artifacts.DocumentsPath): r.documentsRead}
	for _, a := range []*file{r.docs, r.key, r.terms, r.post, r.edges, r.edgesDst} {
		m[path.Base(a.path)] = a.read.Load()
	}
	return m
}

// unreadable is the CorruptError of an artifact the system refuses to
// open or read, with the system's reason.
func unreadable(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &artifacts.CorruptError{Path: p, Msg: "the file cannot be read: " + err.Error()}
}
