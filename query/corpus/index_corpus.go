package corpus

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/tables"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// IndexCorpus reads a base through its current artifacts: the dictionary,
// only the postings ranges of the query's terms, the rows of candidates,
// and, for the few items a pack shows or checks in full, their records'
// spans and their pages.
type IndexCorpus struct {
	cfg       model.Config
	semantics string
	Tables    Tables
	fields    []artifacts.Field // the reader's, read once
	fsys      fs.FS
	documents map[string]artifacts.Document
	proj      *project.Projector
	bodies    map[string]artifacts.Body // by record URI, from bodies.tsv
	days      []string                  // populated event days, from documents.tsv

	// The corpus is safe for concurrent use, so that a long-lived server
	// may answer from one corpus on several goroutines: mu guards the maps
	// below, projMu the projector's cached bodies, which
	// useBody writes and projections read, and scratch holds one
	// project.Scratch per projection in flight.
	mu       sync.Mutex
	projMu   sync.RWMutex
	scratch  sync.Pool
	bodyRead map[string]bool                  // bodies handed to proj so far
	open     map[string]fs.File               // documents opened to read spans, kept open
	plans    map[string]*project.DocumentPlan // documents records were projected in, by path
	// items and rows, in a session's corpus, keep the items projected and
	// the rows decoded so far; a process answering one request has none.
	ItemCache *readCache[project.Item]
	RowCache  *readCache[artifacts.Doc]
}

// OpenIndex opens the artifacts that Open found current.
func OpenIndex(root string, fsys fs.FS, cfg model.Config, m *artifacts.Manifest) (*IndexCorpus, error) {
	f, err := ReadIndexFiles(root)
	if err != nil {
		return nil, err
	}
	return NewIndexCorpus(f, fsys, cfg, m), nil
}

// IndexFiles is what an indexed query reads of the artifacts before it
// knows the base's configuration, so that it can be read while Open
// decides whether the artifacts are current.
type IndexFiles struct {
	Tables *tables.Reader
	docs   []artifacts.Document
	bodies []artifacts.Body
	// read names every file read, with what fstat said of it then.
	read map[string]os.FileInfo
}

// ReadIndexFiles opens the reader (which reads documents.tsv) and reads
// bodies.tsv.
func ReadIndexFiles(root string) (*IndexFiles, error) {
	r, err := tables.Open(root)
	if err != nil {
		return nil, err
	}
	f := &IndexFiles{Tables: r, docs: r.Documents(), read: r.Infos()}
	if f.bodies, err = LoadArtifact(root, artifacts.BodiesPath, artifacts.DecodeBodies, f.read); err != nil {
		r.Close()
		return nil, err
	}
	return f, nil
}

// Current reports whether every file read is still the file at its path,
// unchanged: files read before Open checked them are then the files it
// checked.
func (f *IndexFiles) Current(root string) bool {
	for p, then := range f.read {
		now, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || !os.SameFile(then, now) || then.Size() != now.Size() || !then.ModTime().Equal(now.ModTime()) {
			return false
		}
	}
	return true
}

// NewIndexCorpus makes the corpus of files read by ReadIndexFiles.
func NewIndexCorpus(f *IndexFiles, fsys fs.FS, cfg model.Config, m *artifacts.Manifest) *IndexCorpus {
	c := &IndexCorpus{cfg: cfg, semantics: m.SemanticsDigest, Tables: f.Tables, fields: f.Tables.Fields(), fsys: fsys, documents: make(map[string]artifacts.Document, len(f.docs))}
	for _, d := range f.docs {
		c.documents[d.Path] = d
		if d.Layer == model.LayerEvents && d.Records > 0 {
			c.days = append(c.days, d.Date)
		}
	}
	slices.Sort(c.days)
	c.days = slices.Compact(c.days)
	c.bodies = make(map[string]artifacts.Body, len(f.bodies))
	for _, b := range f.bodies {
		c.bodies[b.URI] = b
	}
	c.proj = project.NewProjector(model.Base{Config: cfg})
	return c
}

// useBody hands the projector a record's cached body, read on first use:
// a pack re-projects a few records, so most bodies are never read.
func (c *IndexCorpus) useBody(uri string) error {
	b, ok := c.bodies[uri]
	c.mu.Lock()
	read := c.bodyRead[uri]
	c.mu.Unlock()
	if !ok || read {
		return nil
	}
	text, ok, err := ReadSized(c.fsys, b.Path, b.Bytes)
	if err != nil || !ok {
		return &artifacts.CorruptError{Path: artifacts.BodiesPath, Msg: fmt.Sprintf("the cached body %s changed since the build", b.Path)}
	}
	c.projMu.Lock()
	c.proj.UseBody(model.Body{URI: b.URI, Path: b.Path, SHA256: b.SHA256, Bytes: b.Bytes, Text: string(text)})
	c.projMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bodyRead == nil {
		c.bodyRead = map[string]bool{}
	}
	c.bodyRead[uri] = true
	return nil
}

// LoadArtifact reads and decodes one small artifact whole, noting in read
// (when given) what fstat said of the file it read.
func LoadArtifact[T any](root, path string, decode func([]byte) ([]T, error), read map[string]os.FileInfo) ([]T, error) {
	base, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	f, st, err := artifacts.OpenArtifact(base, path)
	if err != nil {
		return nil, &artifacts.CorruptError{Path: path, Msg: err.Error()}
	}
	defer f.Close()
	if read != nil {
		read[path] = st
	}
	// One buffer of the size fstat gave; a file that has changed since
	// is no longer the one read (see indexFiles.current).
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, &artifacts.CorruptError{Path: path, Msg: "cannot read the file whole: " + err.Error()}
	}
	return decode(data)
}

func (c *IndexCorpus) Close() error {
	for _, f := range c.open {
		f.Close()
	}
	return c.Tables.Close()
}
func (c *IndexCorpus) Config() model.Config       { return c.cfg }
func (c *IndexCorpus) SemanticsDigest() string    { return c.semantics }
func (c *IndexCorpus) Identities() lex.Identities { return c.proj.Identities() }
func (c *IndexCorpus) Len() int                   { return c.Tables.Items() }
func (c *IndexCorpus) Fields() []artifacts.Field  { return c.fields }
func (c *IndexCorpus) Row(ord int) (artifacts.Doc, error) {
	if c.RowCache == nil {
		return c.Tables.Row(ord)
	}
	if d, ok := c.RowCache.get(ord); ok {
		return d, nil
	}
	d, err := c.Tables.Row(ord)
	if err == nil {
		c.RowCache.put(ord, d)
	}
	return d, err
}

func (c *IndexCorpus) Search(uri string) (int, error) {
	ord, _, err := c.Tables.Search(uri)
	return ord, err
}

func (c *IndexCorpus) Postings(term string) ([]artifacts.Posting, bool, error) {
	e, ok, err := c.Tables.Term(term)
	if err != nil || !ok {
		return nil, false, err
	}
	p, err := c.Tables.Postings(e)
	return p, err == nil, err
}

// PostingsContaining reads each matching term's postings through the
// dictionary entry the sweep found, without looking the term up again.
func (c *IndexCorpus) PostingsContaining(sub string) ([]artifacts.TermPostings, error) {
	entries, err := c.Tables.TermsWith(sub)
	if err != nil {
		return nil, err
	}
	var out []artifacts.TermPostings
	for _, e := range entries {
		if strings.HasPrefix(e.Term, lex.ExactPrefix) {
			continue
		}
		ps, err := c.Tables.Postings(e)
		if err != nil {
			return nil, err
		}
		out = append(out, artifacts.TermPostings{Term: e.Term, Postings: ps})
	}
	return out, nil
}

// Outgoing is node's line of edges.tsv and, when node is a record, its
// own links, which that table leaves out: the record is projected from
// its span, as a scan projects it, and its links joined with the line (an
// alias of the same name may have one).
func (c *IndexCorpus) Outgoing(node string) ([]artifacts.Link, error) {
	links, _, err := c.Tables.Outgoing(node)
	if err != nil {
		return nil, err
	}
	ord, found, err := c.Tables.Search(node)
	if err != nil || !found {
		return links, err
	}
	row, err := c.Row(ord)
	if err != nil || row.SpanOff < 0 {
		return links, err
	}
	it, err := c.Item(ord, row)
	if err != nil {
		return nil, err
	}
	own := it.Edges()
	if len(links) == 0 {
		return own, nil
	}
	joined := append(own, links...)
	slices.SortFunc(joined, project.CompareLinks)
	return slices.Compact(joined), nil
}

func (c *IndexCorpus) Incoming(node string, limit int) ([]artifacts.Link, error) {
	links, _, err := c.Tables.Incoming(node, limit)
	return links, err
}

// Item re-projects one item: a record from its span, with its document's
// fields map from documents.tsv, or a page from its file. The flags of the
// row win, since some (superseded) come from other items.
func (c *IndexCorpus) Item(ord int, row artifacts.Doc) (project.Item, error) {
	if c.ItemCache == nil {
		return c.project(ord, row)
	}
	if it, ok := c.ItemCache.get(ord); ok {
		return it, nil
	}
	it, err := c.project(ord, row)
	if err == nil {
		c.ItemCache.put(ord, it)
	}
	return it, err
}

// project reads and projects the item of ordinal ord, whose docs.tsv row
// is row: its record's span, or its page.
func (c *IndexCorpus) project(ord int, row artifacts.Doc) (project.Item, error) {
	scratch, _ := c.scratch.Get().(*project.Scratch)
	if scratch == nil {
		scratch = new(project.Scratch)
	}
	defer func() {
		scratch.Forget()
		c.scratch.Put(scratch)
	}()
	var it project.Item
	if row.SpanOff >= 0 {
		path, _, _ := strings.Cut(row.URI, "#")
		d, ok := c.documents[path]
		if !ok {
			return it, &artifacts.CorruptError{Path: artifacts.DocumentsPath, Msg: "no row for " + path}
		}
		raw, err := c.span(path, row.SpanOff, row.SpanLen)
		if err != nil {
			return it, err
		}
		plan, ok := c.plan(d)
		if !ok {
			return it, &artifacts.CorruptError{Path: artifacts.DocumentsPath, Msg: "a field path of " + path + " no longer compiles"}
		}
		if err := c.useBody(row.URI); err != nil {
			return it, err
		}
		c.projMu.RLock()
		it, ok = c.proj.RecordIn(plan, model.Record{Raw: raw, Offset: row.SpanOff, Length: row.SpanLen}, scratch)
		c.projMu.RUnlock()
		if !ok {
			return it, &artifacts.CorruptError{Path: path, Msg: "a record's span no longer projects; the document changed since the build"}
		}
	} else {
		p, _, ok := load.Page(c.fsys, c.cfg, row.URI)
		if !ok {
			return it, &artifacts.CorruptError{Path: row.URI, Msg: "the page no longer loads; it changed since the build"}
		}
		c.projMu.RLock()
		it = c.proj.Page(p, scratch)
		c.projMu.RUnlock()
	}
	if it.URI != row.URI {
		return it, &artifacts.CorruptError{Path: artifacts.DocsPath, Msg: fmt.Sprintf("row %d names %s but its span holds %s", ord, row.URI, it.URI)}
	}
	// The text was read after Open found the build current: an edit in
	// between (a page renamed over, a document rewritten at the same size)
	// gives other text than the build indexed, and an answer mixing the
	// two would match neither.
	keys, err := c.Tables.Keys([]int{ord})
	if err != nil {
		return it, err
	}
	if d, ok := artifacts.ParseHashSum(it.Digest); !ok || d != keys[0].Digest {
		return it, &changedError{uri: row.URI}
	}
	it.Flags = row.Flags
	return it, nil
}

// plan is the document a record of d is projected in, its field paths
// compiled, made once per document: a pack often shows several records
// of one document.
func (c *IndexCorpus) plan(d artifacts.Document) (*project.DocumentPlan, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if plan, ok := c.plans[d.Path]; ok {
		return plan, true
	}
	doc := model.Document{Path: d.Path, Layer: d.Layer, Source: d.Source, Date: d.Date, Schema: map[string]model.FieldSpec{}}
	for _, f := range slices.Sorted(maps.Keys(d.Fields)) {
		doc.Fields = append(doc.Fields, model.FieldMap{Field: f, Paths: d.Fields[f]})
	}
	for _, f := range d.Relations {
		doc.Schema[f] = model.FieldSpec{Relation: true}
	}
	plan, ok := c.proj.Plan(doc)
	if !ok {
		return nil, false
	}
	if c.plans == nil {
		c.plans = map[string]*project.DocumentPlan{}
	}
	c.plans[d.Path] = plan
	return plan, true
}

// span reads one record's bytes from its document.
func (c *IndexCorpus) span(path string, off, n int64) (string, error) {
	c.mu.Lock()
	f, ok := c.open[path]
	if !ok {
		var err error
		if f, err = c.fsys.Open(path); err != nil {
			c.mu.Unlock()
			return "", err
		}
		if c.open == nil {
			c.open = map[string]fs.File{}
		}
		c.open[path] = f
	}
	ra, ok := f.(io.ReaderAt)
	c.mu.Unlock()
	if !ok {
		// A file system whose files cannot be read at an offset: the
		// document is read afresh, whole (the kept handle's offset would
		// be at its end after one read).
		data, err := fs.ReadFile(c.fsys, path)
		if err != nil || off+n > int64(len(data)) {
			return "", &artifacts.CorruptError{Path: path, Msg: "record span beyond the end of the document"}
		}
		return string(data[off : off+n]), nil
	}
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, off); err != nil {
		return "", &artifacts.CorruptError{Path: path, Msg: "cannot read the record span: " + err.Error()}
	}
	return string(buf), nil
}

func (c *IndexCorpus) HasBody(uri string) bool {
	_, ok := c.bodies[uri]
	return ok
}

func (c *IndexCorpus) Rows(ords []int) ([]artifacts.Doc, error) { return c.Tables.Rows(ords) }
func (c *IndexCorpus) Keys(ords []int) ([]artifacts.Key, error) { return c.Tables.Keys(ords) }

func (c *IndexCorpus) EventDays() []string { return c.days }
