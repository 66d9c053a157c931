package project

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/lex"
)

// Flags an item can carry in docs.tsv. Policy roles come from the record's
// own fields or its source's defaults; the others from page frontmatter.
const (
	FlagCreated    = "created"
	FlagReceived   = "received"
	FlagSaved      = "saved"
	FlagPrivate    = "private"
	FlagShared     = "shared"
	FlagPublic     = "public"
	FlagSuperseded = "superseded" // superseded_by, supersedes from another page, or status: superseded
	FlagDone       = "done"       // status: done
	FlagDeprecated = "deprecated" // status: deprecated
	FlagNav        = "nav"        // navigation pages: wiki/index.md, wiki/log.md
	FlagActive     = "active"     // project with status: active
)

// Field names cairn gives meaning to.
const (
	FieldID       = "id"
	FieldTitle    = "title"
	FieldTime     = "time"
	FieldBody     = "body"
	FieldSlug     = "slug"
	FieldAliases  = "aliases"
	FieldURL      = "url"
	FieldCategory = "category"
	FieldVisible  = "visibility"
)

// Item is one searchable record or page, projected into fields.
type Item struct {
	URI        string
	Kind       string // events | index | wiki | projects | tasks
	Source     string
	Date       string
	Time       string // RFC 3339, UTC
	ValidFrom  string
	ValidUntil string
	Flags      []string // sorted
	// SourceFlags are the flags a record's source gives it when its own
	// fields say nothing of them, comma-joined (the function SourceFlags);
	// "" for a page.
	SourceFlags string
	Title       string
	// URL is the item's external URL: the first http(s) value of its url
	// field. Representations of one URL from several sources collapse.
	URL string
	// Fields holds every searchable field, sorted by name.
	Fields []Field
	// Relations are the values of relation fields (and page relations).
	Relations []Relation
	Tags      []string
	// Links are the Markdown link targets of a page, resolved to
	// base-relative paths (with #anchor) or kept as URLs.
	Links []string
	// Supersedes lists the pages this page replaces.
	Supersedes []string
	// DocPath and Line locate a record in its document (for messages and
	// read); SpanOff/SpanLen locate its bytes (-1 for pages).
	DocPath string
	Line    int
	SpanOff int64
	SpanLen int64
	// Digest is xxhash64 over the item's projected semantics.
	Digest string
}

// Field is one projected field of an item.
type Field struct {
	Name   string
	Values []string
	// Words is the field's length in word tokens (all of them, short ones
	// included), the n of the length normalisation.
	Words int
	// Terms are the indexed terms with their frequency, each once, in the
	// order they first occur:
	// words of lex.MinPlainRunes or more, identifier tokens, and the exact
	// identifiers the field holds (lex.ExactTerm: ids, titles, slugs, aliases,
	// relation values with their identity and suffix forms).
	Terms []TermFreq
}

// TermFreq is a term and how often it occurs in one field.
type TermFreq struct {
	Term string
	N    int32
	// ID numbers the term in the dictionary of the tokenizer that made
	// it (see Dict), so that a run's inversion need not look each term
	// up again.
	ID int32
}

// Dict is a tokenizer's term dictionary: Dict[t.ID] == t.Term for the
// TermFreq it made since its last reset (ProjectRuns resets it after each
// run it reduces). A reader checks that equality before it trusts an ID:
// a tokenizer whose dictionary reached maxDictTerms starts it again.
type Dict []string

// Relation is one relation value and the field that holds it.
type Relation struct {
	Field string
	Value string
}

// HasFlag reports whether the item carries flag f.
func (it *Item) HasFlag(f string) bool {
	_, ok := slices.BinarySearch(it.Flags, f)
	return ok
}

// Field returns the named field, if the item has it.
func (it *Item) Field(name string) (*Field, bool) {
	i, ok := slices.BinarySearchFunc(it.Fields, name, func(f Field, n string) int { return strings.Compare(f.Name, n) })
	if !ok {
		return nil, false
	}
	return &it.Fields[i], true
}

// tokenizer turns field values into a Field, reusing its buffers across
// calls; each projection worker owns one.
type tokenizer struct {
	json  fieldpath.Decoder
	buf   []byte     // the digest's scratch
	tfs   []TermFreq // a chunk that field carves its Terms from
	evals []string   // a path's values as they are evaluated
	vals  []string   // a chunk that keep carves field values from
	// tokenize, when set, decides per record whether fields get terms;
	// skip is its answer for the record being projected.
	tokenize func(uri, raw string) bool
	skip     bool
	// forms caches the exact forms of relation values, which repeat on
	// record after record.
	forms map[string][]string
	exact map[string]string // value → its exact term, "" when it has none
	// dict numbers the terms met since the last reset, terms lists them
	// by number; ids holds a field's terms by number as they are met, at
	// and marks are count's scratch by term number, and lowered is
	// tokenID's.
	dict      map[string]int32
	terms     Dict
	ids       []int32
	at, marks []int32
	mark      int32
	lowered   []byte
}

// maxDictTerms bounds a tokenizer's dictionary between resets: a
// projector that no run reduces (a query's, item by item) starts it again
// before a field once it is past the bound.
const maxDictTerms = 1 << 17

// resetDict forgets the terms numbered so far.
func (tk *tokenizer) resetDict() {
	clear(tk.dict)
	clear(tk.terms)
	tk.terms = tk.terms[:0]
}

// tokenID numbers a token of lex.RawTokens as the term lex.Tokens gives,
// lowercased: a token with capitals is lowercased into a buffer and looked
// up from there, and copied only when the dictionary does not hold it yet.
func (tk *tokenizer) tokenID(tok string) int32 {
	if lex.IsLowerASCII(tok) {
		return tk.termID(tok)
	}
	tk.lowered = lex.AppendLower(tk.lowered[:0], tok)
	if id, ok := tk.dict[string(tk.lowered)]; ok {
		return id
	}
	return tk.termID(string(tk.lowered))
}

// termID numbers t in the dictionary.
func (tk *tokenizer) termID(t string) int32 {
	if id, ok := tk.dict[t]; ok {
		return id
	}
	if tk.dict == nil {
		tk.dict = map[string]int32{}
	}
	id := int32(len(tk.terms))
	tk.dict[t] = id
	tk.terms = append(tk.terms, t)
	if len(tk.marks) < len(tk.terms) {
		tk.marks = append(tk.marks, 0)
		tk.at = append(tk.at, 0)
	}
	return id
}

// exactTerm is lex.ExactTerm(v) when a query term could equal it (it is not
// empty and holds no space), remembered per value: relation values repeat
// on record after record.
func (tk *tokenizer) exactTerm(v string) (string, bool) {
	if t, ok := tk.exact[v]; ok {
		return t, t != ""
	}
	v = strings.Clone(v) // the cache outlives the document v is cut from
	t := ""
	if trimmed := strings.TrimFunc(v, spaceOrControl); trimmed != "" && strings.IndexFunc(trimmed, spaceOrControl) < 0 {
		t = lex.ExactTerm(trimmed)
	}
	if tk.exact == nil {
		tk.exact = map[string]string{}
	} else if len(tk.exact) > maxFormsCached {
		clear(tk.exact) // its table stays: filling it again does not regrow it
	}
	tk.exact[v] = t
	return t, t != ""
}

func spaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// exactForms returns lex.ValueForms(v), remembered per value.
func (tk *tokenizer) exactForms(v string) []string {
	if f, ok := tk.forms[v]; ok {
		return f
	}
	if tk.forms == nil {
		tk.forms = map[string][]string{}
	} else if len(tk.forms) > maxFormsCached {
		clear(tk.forms)
	}
	v = strings.Clone(v) // the cache outlives the document v is cut from
	f := lex.ValueForms(v)
	tk.forms[v] = f
	return f
}

// newDocument lets go of what the tokenizer's reused memory holds of the
// previous document, so that a worker does not keep that document's text
// while it projects the next: the chunks carved for its items, and the
// values last evaluated. The caches hold copies (see exactTerm). It is
// worth a fresh chunk before a large document only: the small documents
// a chunk serves in a row keep little text alive between them, and a
// chunk per small document costs more than the texts it frees.
func (tk *tokenizer) newDocument() {
	tk.tfs, tk.vals = nil, nil
	clear(tk.evals[:cap(tk.evals)])
}

// maxFormsCached bounds each cache of exact forms a tokenizer keeps, which
// is emptied when full. The caches pay for the values that repeat from
// record to record (a repository, a status, a person); ids, hashes and URLs
// never repeat, and a larger cache holds more of them for the collector to
// trace: 4,096 measured 2% less CPU than 65,536 on a 100k build, and the
// same as 1,024.
const maxFormsCached = 1 << 12

// tfChunk is how many TermFreq one allocation holds. Carving every field's
// terms out of shared chunks turns millions of small allocations into a
// few hundred large ones.
const tfChunk = 1 << 14

// valChunk is how many field values one allocation holds: every record
// evaluates a path per field, and most give one value.
const valChunk = 1 << 12

// keep copies evaluated values into a slice of their own, carved from a
// chunk; no values stay nil.
func (tk *tokenizer) keep(vals []string) []string {
	if len(vals) == 0 {
		return nil
	}
	if len(tk.vals) < len(vals) {
		tk.vals = make([]string, max(len(vals), valChunk))
	}
	out := tk.vals[:len(vals):len(vals)]
	tk.vals = tk.vals[len(vals):]
	copy(out, vals)
	return out
}

// field tokenises values into a field: its length in words and its
// indexed terms (words of lex.MinPlainRunes or more, and identifier tokens)
// with their frequencies. Each term is numbered as it is met.
func (tk *tokenizer) field(name string, values []string, exact ...string) Field {
	f := Field{Name: name, Values: values}
	if tk.skip {
		return f
	}
	if len(tk.terms) > maxDictTerms {
		tk.resetDict() // before the field, so that its numbers hold
	}
	ids := tk.ids[:0]
	for _, e := range exact {
		// A query term never holds a space, so an exact value with one
		// could never be matched: it is not indexed.
		if t, ok := tk.exactTerm(e); ok {
			ids = append(ids, tk.termID(t))
		}
	}
	word := func(w string, runes int) {
		f.Words++
		if runes >= lex.MinPlainRunes {
			ids = append(ids, tk.tokenID(w))
		}
	}
	ident := func(id string) { ids = append(ids, tk.tokenID(id)) }
	for _, v := range values {
		lex.RawTokens(v, word, ident)
	}
	f.Terms = tk.count(ids)
	tk.ids = ids[:0]
	return f
}

// count counts how often each numbered term occurs, in the order they
// first occur: each term's first place in the field is noted by its
// number, so that no term is compared with another.
func (tk *tokenizer) count(ids []int32) []TermFreq {
	tk.mark++
	if tk.mark <= 0 { // wrapped: every old mark is stale
		clear(tk.marks)
		tk.mark = 1
	}
	n := int32(0)
	for _, id := range ids {
		if tk.marks[id] != tk.mark {
			tk.marks[id], tk.at[id] = tk.mark, n
			n++
		}
	}
	// Each entry is written before it is read: the chunk is fresh memory,
	// and a page read first is mapped to the zero page, then copied on
	// the first write, a fault that also flushes every core's TLB.
	out := tk.carve(int(n))
	for _, id := range ids {
		if at := int(tk.at[id]); at < len(out) {
			out[at].N++
		} else {
			out = append(out, TermFreq{Term: tk.terms[id], N: 1, ID: id}) // its first place: at == len(out)
		}
	}
	return out
}

// carve takes room for n frequencies from the tokenizer's chunk.
func (tk *tokenizer) carve(n int) []TermFreq {
	if len(tk.tfs) < n {
		tk.tfs = make([]TermFreq, max(n, tfChunk))
	}
	out := tk.tfs[:0:n]
	tk.tfs = tk.tfs[n:]
	return out
}

// Row is the item's docs.tsv row; field gives each field's ordinal. The
// build's index and the query's scan both make rows here, so they agree.
func (it *Item) Row(field func(name string) int) artifacts.Doc {
	row := artifacts.Doc{
		URI: it.URI, Kind: it.Kind, Source: it.Source, Date: it.Date, Time: it.Time,
		ValidFrom: it.ValidFrom, ValidUntil: it.ValidUntil, Flags: it.Flags, SourceFlags: it.SourceFlags,
		Digest: it.Digest, SpanOff: it.SpanOff, SpanLen: it.SpanLen,
		Title: it.Title,
	}
	if it.URL != "" {
		row.URLKey = artifacts.Hash([]byte(it.URL))
	}
	// Rows live as long as the index or the scan that makes them, and a
	// scan's items mostly have no words (they were not tokenised): the
	// lengths get exactly the room they fill.
	n := 0
	for _, f := range it.Fields {
		if f.Words > 0 {
			n++
		}
	}
	if n > 0 {
		row.Lengths = make([]artifacts.FieldLen, 0, n)
	}
	for _, f := range it.Fields {
		if f.Words > 0 {
			row.Lengths = append(row.Lengths, artifacts.FieldLen{Field: int32(field(f.Name)), N: int32(min(f.Words, math.MaxInt32))})
		}
	}
	return row
}

// Edges lists the item's outgoing graph edges, sorted by kind then
// destination, without duplicates: relation values, tags, Markdown links
// and the pages it supersedes. The build's graph and the query's scan both
// take edges from here.
func (it *Item) Edges() []artifacts.Link {
	var links []artifacts.Link
	if n := len(it.Relations) + len(it.Tags) + len(it.Links) + len(it.Supersedes); n > 0 {
		links = make([]artifacts.Link, 0, n)
	}
	for _, r := range it.Relations {
		links = append(links, artifacts.Link{Kind: artifacts.EdgeRelPrefix + r.Field, Node: r.Value})
	}
	for _, t := range it.Tags {
		links = append(links, artifacts.Link{Kind: artifacts.EdgeTag, Node: "tag:" + t})
	}
	for _, l := range it.Links {
		links = append(links, artifacts.Link{Kind: artifacts.EdgeLink, Node: l})
	}
	for _, s := range it.Supersedes {
		links = append(links, artifacts.Link{Kind: artifacts.EdgeSupersedes, Node: s})
	}
	slices.SortFunc(links, CompareLinks)
	return slices.Compact(links)
}

// CompareLinks orders links by kind, then node.
func CompareLinks(a, b artifacts.Link) int {
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return strings.Compare(a.Node, b.Node)
}
