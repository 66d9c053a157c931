package project

import (
	"cmp"
	"context"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cespare/xxhash/v2"
)

// Input is the loaded base.
type Input struct {
	Base model.Base
	// TermsOnly drops each field's values once the item's digest is taken,
	// keeping only what the index and graph need; the build sets it, since
	// a large base's values would otherwise stay in memory to the end.
	TermsOnly bool
}

// Output is every searchable item, sorted by URI.
type Output struct {
	Items       []Item
	Diagnostics []diag.Diagnostic
}

// notText are mapped fields that carry policy or time, not searchable text.
var notText = []string{FieldTime, FieldCategory, FieldVisible}

// Run projects records through their document's fields map and pages
// through their frontmatter, all at once: the form the tests use. The
// build and the query's scan stream the same work document by document through
// a Projector instead, so that a large base's items never all live at once.
func Run(ctx context.Context, in Input) (Output, error) {
	p := NewProjector(in.Base)
	document := func(_ int, d model.Document, into []Item, s *Scratch, ds *diag.List, _ func([]Item)) []Item {
		return p.AppendDocument(into, d, s, ds, in.TermsOnly)
	}
	keep := func(items []Item, _ Dict) []Item { return slices.Clone(items) }
	runs, diags, err := ProjectRuns(ctx, p, in.Base.Documents, in.TermsOnly, document, keep)
	if err != nil {
		return Output{}, err
	}
	var items []Item
	for _, r := range runs {
		items = append(items, r...)
	}
	return Output{Items: items, Diagnostics: diags}, nil
}

// Scratch is one worker's reusable memory for projection.
type Scratch struct {
	tk tokenizer
	// run holds the items of DocumentRuns' current run.
	run []Item
	// compiled holds the compiled fields of the fields maps compiledBy
	// met so far, by the map (documents that declare the same one share
	// it: see load's fieldMaps).
	compiled   map[fieldsMap][]fieldPaths
	compiledBy *Projector
}

// fieldsMap names a document's fields map: its first entry and length.
type fieldsMap struct {
	first *model.FieldMap
	n     int
}

// compile is compileFields(p.cfg, doc), remembered in s for the documents
// that share doc's fields map and declare no schema of their own. What s
// remembers is p's: the configuration decides which fields are relations.
func (p *Projector) compile(s *Scratch, doc model.Document) ([]fieldPaths, bool) {
	if len(doc.Fields) == 0 || len(doc.Schema) > 0 {
		return compileFields(p.cfg, doc)
	}
	key := fieldsMap{&doc.Fields[0], len(doc.Fields)}
	if fps, ok := s.compiled[key]; ok && s.compiledBy == p {
		return fps, true
	}
	fps, ok := compileFields(p.cfg, doc)
	if ok {
		if s.compiledBy != p || len(s.compiled) >= maxCompiled {
			s.compiled, s.compiledBy = map[fieldsMap][]fieldPaths{}, p
		}
		s.compiled[key] = fps
	}
	return fps, ok
}

// maxCompiled bounds a scratch's compiled fields maps.
const maxCompiled = 64

// Forget lets go of the terms the scratch numbered (see Dict) and the
// text they share: a projector that keeps a scratch between items it
// projects one at a time (a query's) calls it after each.
func (s *Scratch) Forget() { s.tk.resetDict() }

// Projector projects a base one document at a time. It is safe for
// concurrent use, each goroutine with its own Scratch.
type Projector struct {
	cfg        model.Config
	ids        lex.Identities
	bodies     map[string]model.Body
	bodiesOf   map[string][]string // a document's path → the URIs of its bodies
	superseded map[string]bool     // URIs that some page supersedes
	pages      []model.Page
	diags      []diag.Diagnostic
	// dropText: ProjectRuns lets go of each page's body once the page
	// is projected (DropPageText).
	dropText bool
}

// DropPageText has ProjectRuns let go of each page's body (in the base's
// pages it was given) once it has projected the page, as a whole build
// drops a record document's text: the page's items keep what they need
// until their run is reduced, and nothing reads a body after that, but a
// base's pages are loaded together and would otherwise all stay in memory
// until the last record is projected. The projector cannot project a page
// again: PagesNamed refuses to.
func (p *Projector) DropPageText() { p.dropText = true }

// NewProjector prepares the projection of b: the cached bodies by record,
// and the URIs pages supersede (a flag on the superseded item).
func NewProjector(b model.Base) *Projector {
	p := &Projector{cfg: b.Config, ids: lex.NewIdentities(b.Config), bodies: map[string]model.Body{},
		bodiesOf: map[string][]string{}, superseded: map[string]bool{}, pages: b.Pages}
	docs := map[string]bool{}
	for _, d := range b.Documents {
		docs[d.Path] = true
	}
	var ds diag.List
	for _, body := range b.Bodies {
		p.bodies[body.URI] = body
		doc, _, _ := strings.Cut(body.URI, "#")
		p.bodiesOf[doc] = append(p.bodiesOf[doc], body.URI)
		if !docs[doc] {
			ds.Warnf(body.Path, 0, 0, "body-orphan", "the cached body is for %s, which no record has; fix the URI in the bodies manifest", body.URI)
		}
	}
	for _, pg := range b.Pages {
		for _, old := range pg.Front.Supersedes {
			p.superseded[old] = true
		}
	}
	p.diags = ds.Sorted()
	return p
}

// Supersede marks items as superseded by pages the projector was not
// given: a reader that projects a few changed documents without every
// page learns from the index which of their items a page supersedes.
func (p *Projector) Supersede(uris ...string) {
	for _, u := range uris {
		p.superseded[u] = true
	}
}

// UseBody adds one verified cached body, for a reader that loads the body
// of a record only when it projects that record. It must not run while
// the projector is in use by another goroutine.
func (p *Projector) UseBody(b model.Body) {
	if _, ok := p.bodies[b.URI]; !ok {
		doc, _, _ := strings.Cut(b.URI, "#")
		p.bodiesOf[doc] = append(p.bodiesOf[doc], b.URI)
	}
	p.bodies[b.URI] = b
}

// Identities are the configuration's identities the projector resolves
// relation values with.
func (p *Projector) Identities() lex.Identities { return p.ids }

// Diagnostics are the mistakes found while preparing the projection.
func (p *Projector) Diagnostics() []diag.Diagnostic { return p.diags }

// Document projects one document's records, sorted by URI. Record-level
// mistakes go to ds. With termsOnly, field values are dropped once each
// item's digest is taken.
func (p *Projector) Document(doc model.Document, s *Scratch, ds *diag.List, termsOnly bool) []Item {
	return p.AppendDocument(nil, doc, s, ds, termsOnly)
}

// AppendDocument is Document appending the items to into, whose own items
// it leaves as they are.
func (p *Projector) AppendDocument(into []Item, doc model.Document, s *Scratch, ds *diag.List, termsOnly bool) []Item {
	s.tk.tokenize = nil
	all := p.projectDocument(s, doc, ds, into)
	matched := map[string]bool{}
	p.finishItems(all[len(into):], "", s, ds, termsOnly, matched)
	p.orphans(doc, matched, ds)
	return all
}

// DocumentRuns projects a document as Document does, but a run of
// records at a time: a first pass finds each record's URI (it parses each
// record for its id alone), the records are put in URI order and cut into
// runs of run records, and each run is projected and given to emit in
// turn, its items sorted by URI, every run's after the last's, emit's for
// the call only. A worker so holds one run's items at once, not a large
// document's; the first pass is worth its cost on a document of several
// runs.
func (p *Projector) DocumentRuns(doc model.Document, s *Scratch, ds *diag.List, termsOnly bool, run int, emit func([]Item)) {
	s.tk.tokenize = nil
	s.tk.newDocument()
	fps, ok := p.compile(s, doc)
	if !ok {
		return
	}
	order := recordOrder(doc, &s.tk, fps)
	matched := map[string]bool{}
	last := ""
	for from := 0; from < len(order); from += run {
		s.tk.newDocument()
		clear(s.run)
		s.run = projectRecords(p.cfg, &s.tk, p.bodies, doc, order[from:min(from+run, len(order))], fps, ds, s.run[:0])
		items := s.run
		if len(items) == 0 {
			continue
		}
		p.finishItems(items, last, s, ds, termsOnly, matched)
		last = items[len(items)-1].URI
		emit(items)
	}
	clear(s.run) // the document's text is not kept past it
	s.run = s.run[:0]
	p.orphans(doc, matched, ds)
}

// recordOrder lists the indexes of doc's records in the order of their
// URIs, as projectRecords makes them (a record without one, which
// projectRecords reports, last), ties in the records' order.
func recordOrder(doc model.Document, tk *tokenizer, fps []fieldPaths) []int {
	id := slices.IndexFunc(fps, func(fp fieldPaths) bool { return fp.name == FieldID })
	uris := make([]string, len(doc.Records))
	for n, rec := range doc.Records {
		if id < 0 {
			break
		}
		v, err := tk.json.Parse(rec.Raw)
		if err != nil {
			continue
		}
		out := tk.evals[:0]
		for _, p := range fps[id].paths {
			out = p.Eval(&v, out)
		}
		tk.evals = out
		if len(out) > 0 && out[0] != "" {
			uris[n] = recordURI(doc, out[0])
		}
	}
	clear(tk.evals[:cap(tk.evals)])
	order := make([]int, len(doc.Records))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if (uris[a] == "") != (uris[b] == "") {
			return cmp.Compare(len(uris[b]), len(uris[a])) // none last
		}
		return strings.Compare(uris[a], uris[b])
	})
	return order
}

// recordURI is the URI of a record of doc whose id is id, as evaluated:
// over the cap on a value, the id is cut as every value is.
func recordURI(doc model.Document, id string) string {
	if len(id) > load.MaxValueBytes {
		id = capValue(id)
	}
	return doc.Path + "#" + lex.EncodeID(id)
}

// finishItems sorts a document's items (or a run of them) by URI and
// finishes them: a duplicate id is reported at its later occurrence (prev
// is the URI of the run before, "" for none), items with a cached body
// are marked in matched, superseded items flagged, digests taken, and
// with termsOnly the values dropped.
func (p *Projector) finishItems(items []Item, prev string, s *Scratch, ds *diag.List, termsOnly bool, matched map[string]bool) {
	// A duplicate id is reported at its later occurrence: sort by URI,
	// then by where the record sits.
	sortByPlace(items)
	for i := range items {
		it := &items[i]
		if i > 0 && it.URI == items[i-1].URI || i == 0 && it.URI == prev {
			ds.Errorf(it.DocPath, it.Line, 1, "duplicate-id", "two records share the URI %s; ids must be unique within a document", it.URI)
		}
		if _, ok := p.bodies[it.URI]; ok {
			matched[it.URI] = true
		}
		if p.superseded[it.URI] {
			it.Flags = append(it.Flags, FlagSuperseded)
			slices.Sort(it.Flags)
			it.Flags = slices.Compact(it.Flags)
		}
		it.Digest = digest(it, &s.tk.buf)
		if termsOnly {
			dropValues(it)
		}
	}
}

// sortByPlace sorts items by URI, then by where their records sit. Records
// mostly come in id order already, and an item is a few hundred bytes to
// move: they are sorted only when they are not.
func sortByPlace(items []Item) {
	byPlace := func(a, b Item) int { return cmp.Or(strings.Compare(a.URI, b.URI), cmp.Compare(a.Line, b.Line)) }
	if !slices.IsSortedFunc(items, byPlace) {
		slices.SortFunc(items, byPlace)
	}
}

// orphans warns of the cached bodies of doc that no record has.
func (p *Projector) orphans(doc model.Document, matched map[string]bool, ds *diag.List) {
	for _, uri := range p.bodiesOf[doc.Path] { // this document's bodies only
		if !matched[uri] {
			ds.Warnf(p.bodies[uri].Path, 0, 0, "body-orphan", "the cached body is for %s, which no record has; fix the URI in the bodies manifest", uri)
		}
	}
}

// DocumentWhere projects a document like Document, but tokenises only the
// records that tokenize accepts (given a record's URI and raw JSON); the
// others keep their values, relations and digest but no terms or lengths.
// A query's scan uses it to skip the words of records that cannot match.
func (p *Projector) DocumentWhere(doc model.Document, s *Scratch, ds *diag.List, tokenize func(uri, raw string) bool) []Item {
	s.tk.tokenize = tokenize
	defer func() { s.tk.tokenize, s.tk.skip = nil, false }()
	items := p.projectDocument(s, doc, ds, nil)
	sortByPlace(items)
	for i := range items {
		it := &items[i]
		if i > 0 && it.URI == items[i-1].URI {
			ds.Errorf(it.DocPath, it.Line, 1, "duplicate-id", "two records share the URI %s; ids must be unique within a document", it.URI)
		}
		if p.superseded[it.URI] {
			it.Flags = append(it.Flags, FlagSuperseded)
			slices.Sort(it.Flags)
			it.Flags = slices.Compact(it.Flags)
		}
		it.Digest = digest(it, &s.tk.buf)
		dropValues(it)
	}
	return items
}

// PagesNamed projects the pages whose paths are named (sorted), as
// ProjectRuns projects every page: a build that splices a few changed
// pages in.
func (p *Projector) PagesNamed(paths []string, s *Scratch, termsOnly bool) []Item {
	if p.dropText {
		panic("project: PagesNamed on a projector that drops its pages' text")
	}
	var pages []model.Page
	for _, pg := range p.pages {
		if _, ok := slices.BinarySearch(paths, pg.Path); ok {
			pages = append(pages, pg)
		}
	}
	return p.pagesOf(pages, s, termsOnly)
}

// pagesOf projects pages, sorted by URI, on every core: s serves the first
// share of them, and each other core a scratch of its own.
func (p *Projector) pagesOf(pages []model.Page, s *Scratch, termsOnly bool) []Item {
	items := make([]Item, len(pages))
	parts := max(1, min(runtime.GOMAXPROCS(0), len(pages)/minPagesPart))
	project := func(k int, s *Scratch) {
		for i := k * len(pages) / parts; i < (k+1)*len(pages)/parts; i++ {
			items[i] = p.page(pages[i], s, termsOnly)
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < parts; k++ {
		wg.Go(func() { project(k, new(Scratch)) })
	}
	project(0, s) // on this goroutine, while the others run
	wg.Wait()
	slices.SortFunc(items, func(a, b Item) int { return strings.Compare(a.URI, b.URI) })
	return items
}

// page projects one page: flagged when a page supersedes it, its digest
// taken, and with termsOnly its values dropped.
func (p *Projector) page(pg model.Page, s *Scratch, termsOnly bool) Item {
	it := projectPage(p.cfg, p.ids, &s.tk, pg)
	if p.superseded[it.URI] && !it.HasFlag(FlagSuperseded) {
		it.Flags = append(it.Flags, FlagSuperseded)
		slices.Sort(it.Flags)
	}
	it.Digest = digest(&it, &s.tk.buf)
	if termsOnly {
		dropValues(&it)
	}
	return it
}

// minPagesPart is the fewest pages worth a core of their own.
const minPagesPart = 64

// fieldPaths is one field of a document's schema, its paths compiled.
type fieldPaths struct {
	name     string
	paths    []fieldpath.Path
	relation bool
	card     string
}

// compileFields compiles the field paths of a document; ok is false when
// one does not parse (load reports it, which stops the build).
func compileFields(cfg model.Config, doc model.Document) (fps []fieldPaths, ok bool) {
	fps = make([]fieldPaths, 0, len(doc.Fields))
	for _, fm := range doc.Fields {
		fp := fieldPaths{name: fm.Field, relation: cfg.Schema[fm.Field].Relation || doc.Schema[fm.Field].Relation}
		fp.card = cmp.Or(cfg.Schema[fm.Field].Cardinality, doc.Schema[fm.Field].Cardinality)
		fp.paths = make([]fieldpath.Path, 0, len(fm.Paths))
		for _, s := range fm.Paths {
			p, err := fieldpath.Parse(s)
			if err != nil {
				return nil, false
			}
			fp.paths = append(fp.paths, p)
		}
		fps = append(fps, fp)
	}
	return fps, true
}

// projectDocument appends the items of doc's records to into.
func (p *Projector) projectDocument(s *Scratch, doc model.Document, ds *diag.List, into []Item) []Item {
	if doc.Bytes >= minRunBytes {
		s.tk.newDocument()
	}
	fps, ok := p.compile(s, doc)
	if !ok {
		return into
	}
	return projectRecords(p.cfg, &s.tk, p.bodies, doc, nil, fps, ds, into)
}

// SourceFlags are the flags a source's policy gives each of its records
// whose own fields name no category or visibility: the policy's category
// and visibility when they are ones a record may have, sorted and
// comma-joined as docs.tsv writes flags. documents.tsv holds them for each
// document, so that a record's row with just these flags leaves them out.
func SourceFlags(policy model.SourcePolicy) string {
	var flags []string
	if slices.Contains(load.Categories, policy.Category) {
		flags = append(flags, policy.Category)
	}
	if slices.Contains(load.Visibilities, policy.Visibility) {
		flags = append(flags, policy.Visibility)
	}
	slices.Sort(flags)
	return strings.Join(flags, ",")
}

// projectRecords appends to into the items of the records of a document
// whose field paths are compiled: those whose indexes order lists, in that
// order, or all when it is nil.
func projectRecords(cfg model.Config, tk *tokenizer, bodies map[string]model.Body, doc model.Document, order []int, fps []fieldPaths, ds *diag.List, into []Item) []Item {
	policy := cfg.Sources[doc.Source]
	sourceFlags := SourceFlags(policy)
	count := len(doc.Records)
	if order != nil {
		count = len(order)
	}
	items := slices.Grow(into, count)
	values := make([][]string, len(fps))
	valueOf := func(name string) []string {
		for i, fp := range fps {
			if fp.name == name {
				return values[i]
			}
		}
		return nil
	}
	for k := range count {
		n := k
		if order != nil {
			n = order[k]
		}
		rec := doc.Records[n]
		errorf := func(code, format string, args ...any) {
			ds.Errorf(doc.Path, rec.Line, rec.Col, code, "record %d: "+format, append([]any{n + 1}, args...)...)
		}
		v, err := tk.json.Parse(rec.Raw)
		if err != nil {
			errorf("json-syntax", "%v", err)
			continue
		}
		for i, fp := range fps {
			out := tk.evals[:0]
			for _, p := range fp.paths {
				out = p.Eval(&v, out)
			}
			tk.evals = out
			values[i] = tk.keep(out)
			for j, v := range values[i] {
				if len(v) > load.MaxValueBytes {
					values[i][j] = capValue(v)
					ds.Warnf(doc.Path, rec.Line, rec.Col, "value-capped", "record %d: field %q holds %d bytes, over the %d-byte cap on a field value; search and packs keep its first %d bytes and read shows the record whole; shorten the value or split it across records",
						n+1, fp.name, len(v), load.MaxValueBytes, len(values[i][j]))
				}
			}
			switch {
			case fp.card == "one" && len(out) != 1:
				errorf("cardinality", "field %q must have exactly one value, it has %d", fp.name, len(out))
			case fp.card == "optional" && len(out) > 1:
				errorf("cardinality", "field %q may have at most one value, it has %d", fp.name, len(out))
			}
		}
		idv := valueOf(FieldID)
		if len(idv) == 0 || idv[0] == "" {
			errorf("missing-id", "no id: the id path gives nothing for this record; every record needs an id")
			continue
		}
		it := Item{
			URI:         recordURI(doc, idv[0]),
			Kind:        doc.Layer,
			Source:      doc.Source,
			Date:        doc.Date,
			SourceFlags: sourceFlags,
			DocPath:     doc.Path,
			Line:        rec.Line,
			SpanOff:     rec.Offset,
			SpanLen:     rec.Length,
		}
		if t := valueOf(FieldTime); len(t) > 0 {
			ts, err := load.ParseStamp(t[0])
			if err != nil {
				errorf("date-no-zone", "time %q: %v", t[0], err)
			} else {
				it.Time = ts.UTC().Format(time.RFC3339Nano)
			}
		} else if doc.Layer == model.LayerEvents {
			errorf("missing-time", "no time: the time path gives nothing for this record; events need a time")
		}
		if t := valueOf(FieldTitle); len(t) > 0 {
			it.Title = t[0]
		}
		for _, u := range valueOf(FieldURL) {
			if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
				it.URL = u
				break
			}
		}
		category := first(valueOf(FieldCategory), policy.Category)
		visibility := first(valueOf(FieldVisible), policy.Visibility)
		if category != "" {
			if !slices.Contains(load.Categories, category) {
				errorf("bad-category", "category %q; use one of: %s", category, strings.Join(load.Categories, ", "))
			} else {
				it.Flags = append(it.Flags, category)
			}
		}
		if visibility != "" {
			if !slices.Contains(load.Visibilities, visibility) {
				errorf("bad-visibility", "visibility %q; use one of: %s", visibility, strings.Join(load.Visibilities, ", "))
			} else {
				it.Flags = append(it.Flags, visibility)
			}
		}
		tk.skip = tk.tokenize != nil && !tk.tokenize(it.URI, rec.Raw)
		it.Fields = make([]Field, 0, len(fps)+1)
		for i, fp := range fps {
			vals := values[i]
			if slices.Contains(notText, fp.name) || len(vals) == 0 {
				continue
			}
			var exact []string
			switch {
			case fp.relation:
				for _, val := range vals {
					if strings.TrimSpace(val) != "" {
						it.Relations = append(it.Relations, Relation{Field: fp.name, Value: val})
						if !tk.skip {
							exact = append(exact, tk.exactForms(val)...)
						}
					}
				}
			case fp.name == FieldTitle:
				// An id is found exactly through the item's URI, which holds
				// it; only a title needs its exact form indexed.
				exact = vals
			}
			it.Fields = append(it.Fields, tk.field(fp.name, vals, exact...))
		}
		if body, ok := bodies[it.URI]; ok {
			text := body.Text
			if len(text) > load.MaxValueBytes {
				text = capValue(text)
				ds.Warnf(body.Path, 0, 0, "value-capped", "the cached body of %s holds %d bytes, over the %d-byte cap on a field value; search and packs keep its first %d bytes; shorten the body",
					it.URI, len(body.Text), load.MaxValueBytes, len(text))
			}
			it.Fields = addValues(tk, it.Fields, FieldBody, text)
		}
		finish(&it)
		items = append(items, it)
	}
	return items
}

// capValue cuts v to at most load.MaxValueBytes, at the start of a
// character, so the kept part is still valid UTF-8 where v was.
func capValue(v string) string {
	n := load.MaxValueBytes
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

// first returns the first value, or def when there is none.
func first(vals []string, def string) string {
	if len(vals) > 0 && vals[0] != "" {
		return vals[0]
	}
	return def
}

// addValues appends text to the named field, creating it if needed.
func addValues(tk *tokenizer, fields []Field, name, text string) []Field {
	for i, f := range fields {
		if f.Name == name {
			fields[i] = tk.field(name, append(slices.Clone(f.Values), text))
			return fields
		}
	}
	return append(fields, tk.field(name, []string{text}))
}

// CompareStamps orders two item stamps, each a day or a UTC time as the
// projection writes it, in time. RFC 3339 with nanoseconds drops a
// fraction's trailing zeros, so "…:05Z" and "…:05.5Z" do not sort as
// strings ('.' is before 'Z'): the whole seconds are compared first, then
// the fraction digits, which compare as strings once trailing zeros are gone.
func CompareStamps(a, b string) int {
	const secs = len("2006-01-02T15:04:05")
	if len(a) > secs && len(b) > secs && a[10] == 'T' && b[10] == 'T' {
		if c := strings.Compare(a[:secs], b[:secs]); c != 0 {
			return c
		}
		return strings.Compare(fraction(a[secs:]), fraction(b[secs:]))
	}
	return strings.Compare(a, b)
}

// fraction is the digits of ".5Z" or "Z".
func fraction(rest string) string {
	return strings.TrimPrefix(strings.TrimSuffix(rest, "Z"), ".")
}

// finish sorts an item's fields, flags, tags and relations, and drops
// duplicate flags, tags and relations. Tags and relation values become
// graph nodes, one per table cell, so a tab or line break in them turns
// into a space here, before anything sorts them; a blank tag names nothing.
func finish(it *Item) {
	// The title is a docs.tsv cell, where a lone "-" stands for no title:
	// the item says what the row will say, so the index and a scan agree.
	if it.Title = artifacts.CleanCell(it.Title); it.Title == "-" {
		it.Title = ""
	}
	slices.SortStableFunc(it.Fields, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(it.Flags)
	it.Flags = slices.Compact(it.Flags)
	it.Tags = slices.DeleteFunc(it.Tags, func(t string) bool { return strings.TrimSpace(t) == "" })
	for i := range it.Tags {
		it.Tags[i] = artifacts.CleanCell(it.Tags[i])
	}
	for i := range it.Relations {
		it.Relations[i].Value = artifacts.CleanCell(it.Relations[i].Value)
	}
	slices.Sort(it.Tags)
	it.Tags = slices.Compact(it.Tags)
	slices.SortFunc(it.Relations, func(a, b Relation) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Value, b.Value))
	})
	it.Relations = slices.Compact(it.Relations)
}

// digest hashes everything about an item that ranking can see: its URI,
// kind, source, dates, validity, flags, relations, tags and every field's
// values. Raw fields that the map does not name never reach it. Parts are
// separated by bytes that cannot occur in them (0x1f between parts, 0x1e
// after each group), so different items cannot hash the same text.
func digest(it *Item, buf *[]byte) string {
	b := (*buf)[:0]
	w := func(parts ...string) {
		for _, p := range parts {
			b = append(b, p...)
			b = append(b, 0x1f)
		}
		b = append(b, 0x1e)
	}
	w("item", it.URI, it.Kind, it.Source, it.Date, it.Time, it.ValidFrom, it.ValidUntil, it.Title, it.URL)
	w("flags")
	w(it.Flags...)
	w("tags")
	w(it.Tags...)
	w("links")
	w(it.Links...)
	w("supersedes")
	w(it.Supersedes...)
	for _, r := range it.Relations {
		w("rel", r.Field, r.Value)
	}
	for _, f := range it.Fields {
		w("field", f.Name, strconv.Itoa(len(f.Values)))
		w(f.Values...)
	}
	*buf = b
	return artifacts.HashSum(xxhash.Sum64(b))
}

// nav reports whether a page is a navigation page of the wiki layer.
func nav(cfg model.Config, p string) bool {
	return p == path.Join(cfg.Layers.Wiki, "index.md") || p == path.Join(cfg.Layers.Wiki, "log.md")
}

// dropValues forgets an item's field values, keeping terms and lengths.
func dropValues(it *Item) {
	for i := range it.Fields {
		it.Fields[i].Values = nil
	}
}

// Record projects one record of doc (doc.Records is not read) the way
// Document would, but without terms: the query re-reads a candidate from
// its span with it, to show its values, and compares its digest with its
// row's to know the text is still what the build indexed. ok is false
// when the record has a mistake.
func (p *Projector) Record(doc model.Document, rec model.Record, s *Scratch) (Item, bool) {
	plan, ok := p.Plan(doc)
	if !ok {
		return Item{}, false
	}
	return p.RecordIn(plan, rec, s)
}

// DocumentPlan is a document with its field paths compiled, for a reader
// that re-projects several of its records one at a time.
type DocumentPlan struct {
	doc model.Document
	fps []fieldPaths
}

// Plan compiles a document's field paths; ok is false when one does not
// parse.
func (p *Projector) Plan(doc model.Document) (*DocumentPlan, bool) {
	fps, ok := compileFields(p.cfg, doc)
	if !ok {
		return nil, false
	}
	doc.Records = nil
	return &DocumentPlan{doc: doc, fps: fps}, true
}

// RecordIn is Record of a record of a planned document.
func (p *Projector) RecordIn(plan *DocumentPlan, rec model.Record, s *Scratch) (Item, bool) {
	one := plan.doc
	one.Records = []model.Record{rec}
	var ds diag.List
	// A re-read item is shown or checked through its values; its terms
	// are in the index already, so it is not tokenised.
	s.tk.tokenize = func(string, string) bool { return false }
	defer func() { s.tk.tokenize, s.tk.skip = nil, false }()
	items := projectRecords(p.cfg, &s.tk, p.bodies, one, nil, plan.fps, &ds, nil)
	if len(items) != 1 || ds.HasErrors() {
		return Item{}, false
	}
	it := items[0]
	p.settle(&it, s)
	return it, true
}

// settle gives a re-read item what Document and Pages give every item
// after projecting it: the superseded flag another page sets, and the
// digest.
func (p *Projector) settle(it *Item, s *Scratch) {
	if p.superseded[it.URI] && !it.HasFlag(FlagSuperseded) {
		it.Flags = append(it.Flags, FlagSuperseded)
		slices.Sort(it.Flags)
	}
	it.Digest = digest(it, &s.tk.buf)
}

// Page projects one page the way Pages would, but like Record without
// terms, and without its links: the query re-reading a candidate has
// those from the index. The links are read for the digest, which covers
// them, and let go.
func (p *Projector) Page(pg model.Page, s *Scratch) Item {
	s.tk.skip = true
	it := projectPage(p.cfg, p.ids, &s.tk, pg)
	s.tk.skip = false
	it.Links = resolveLinks(pg.Path, pg.Links)
	p.settle(&it, s)
	it.Links = nil
	return it
}
