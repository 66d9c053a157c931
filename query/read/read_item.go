package read

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// lookup finds the row of exactly uri by the corpus's lower bound: a
// binary search in docs.tsv, never a scan of it.
func lookup(c corpus.Corpus, uri string) (int, artifacts.Doc, bool, error) {
	ord, err := c.Search(uri)
	if err != nil || ord >= c.Len() {
		return 0, artifacts.Doc{}, false, err
	}
	row, err := c.Row(ord)
	if err != nil {
		return 0, artifacts.Doc{}, false, err
	}
	return ord, row, row.URI == uri, nil
}

// item reads a record, a page, or a section of a page (path#anchor).
func (r *reader) item(uri string) (*Answer, bool, error) {
	c, err := r.corpus()
	if err != nil {
		return nil, false, err
	}
	for _, u := range slices.Compact([]string{uri, canonicalURI(uri)}) {
		ord, row, ok, err := lookup(c, u)
		if err != nil || ok {
			if err != nil {
				return nil, false, err
			}
			a, err := r.itemAnswer(c, ord, row)
			return a, true, err
		}
	}
	path, anchor, ok := strings.Cut(uri, "#")
	if !ok {
		return nil, false, nil
	}
	ord, row, ok, err := lookup(c, path)
	if err != nil || !ok || row.SpanOff >= 0 {
		return nil, false, err
	}
	a, err := r.itemAnswer(c, ord, row)
	if err != nil {
		return nil, false, err
	}
	sec, ok := sectionOf(a.Text, anchor)
	if !ok {
		return nil, false, &corpus.UsageError{Msg: fmt.Sprintf("%s has no section #%s; %s", path, anchor, nearestAnchors(a.Sections, anchor))}
	}
	a.URI, a.Kind, a.Text, a.Sections, a.Graph = path+"#"+sec.Anchor, kindSection, sec.text, nil, nil
	a.Section = &SectionRef{Page: path, Anchor: sec.Anchor, Heading: sec.Heading, Level: sec.Level}
	return a, true, nil
}

// itemAnswer reads one item in full.
func (r *reader) itemAnswer(c corpus.Bodies, ord int, row artifacts.Doc) (*Answer, error) {
	it, err := c.Item(ord, row)
	if err != nil {
		return nil, err
	}
	a := &Answer{
		URI: row.URI, Kind: render.DisplayKind(row.Kind), Title: cmp.Or(it.Title, row.Title), Source: row.Source,
		Date: row.Date, Time: row.Time, ValidFrom: row.ValidFrom, ValidUntil: row.ValidUntil,
		Flags: row.Flags, Fields: itemFields(&it, row.SpanOff < 0 || c.HasBody(row.URI)), Index: r.indexState(),
	}
	if row.SpanOff >= 0 {
		path, _, _ := strings.Cut(row.URI, "#")
		raw, err := c.RawRecord(row)
		if err != nil {
			return nil, err
		}
		a.Document, a.Raw = path, raw
		b, text, ok, err := c.CachedBody(row.URI)
		if err != nil {
			return nil, err
		}
		if ok {
			a.Body = &Body{Path: b.Path, Bytes: b.Bytes, SHA256: b.SHA256, Text: text}
		}
		return a, nil
	}
	text, err := r.pageText(row.URI)
	if err != nil {
		return nil, err
	}
	a.Text, a.Sections = text, sections(text)
	// What links to the page, supersedes it or names it: its inbound
	// edges (its outbound ones are its fields).
	g, edges, err := r.neighbours(c, row.URI, false)
	if err != nil {
		return nil, err
	}
	if edges > 0 || r.req.Cursor != "" {
		a.Graph = g
	}
	return a, nil
}

// pageText is a page's file as stored, read inside the base.
func (r *reader) pageText(path string) (string, error) {
	osRoot, err := load.OpenDir(r.root)
	if err != nil {
		return "", err
	}
	defer osRoot.Close()
	data, err := load.ReadCapped(osRoot, path, load.MaxPageBytes)
	if err != nil {
		return "", &artifacts.CorruptError{Path: path, Msg: "the page cannot be read: " + err.Error()}
	}
	return string(data), nil
}

// itemFields are an item's projected values, one per field and value,
// by field name (values in their order): its searchable fields, then
// relations and links a field does not already show. With skipBody the
// body field is left out: the answer shows the page's text or the
// record's cached body whole instead.
func itemFields(it *project.Item, skipBody bool) []render.KV {
	var out []render.KV
	seen := map[render.KV]bool{}
	add := func(field, value string) {
		kv := render.KV{Field: field, Value: value}
		if value != "" && !seen[kv] {
			seen[kv] = true
			out = append(out, kv)
		}
	}
	for _, f := range it.Fields {
		if f.Name == project.FieldBody && skipBody {
			continue // shown whole: a page's text, a record's cached body
		}
		for _, v := range f.Values {
			add(f.Name, v)
		}
	}
	for _, rel := range it.Relations {
		add(rel.Field, rel.Value)
	}
	for _, l := range it.Links {
		add("link", l)
	}
	for _, s := range it.Supersedes {
		add("supersedes", s)
	}
	slices.SortStableFunc(out, func(a, b render.KV) int { return cmp.Compare(a.Field, b.Field) })
	return out
}
