package list

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/project"
)

// Request asks for the items of one layer, newest first.
type Request struct {
	Layer   string // events, index, wiki, projects or tasks
	Sources []string
	Tags    []string // every one of them
	Status  string
	Type    string
	Since   string // YYYY-MM-DD or ""
	Until   string // YYYY-MM-DD or ""
	Limit   int    // 0 means DefaultSearchLimit
	Cursor  string
	Format  string // text or json
}

// Answer is a layer's page of items as a document.
type Answer struct {
	Layer  string            `json:"layer"`
	Filter Filter            `json:"filter"`
	Count  int               `json:"count"`
	Offset int               `json:"offset"`
	More   int               `json:"more"`
	Next   string            `json:"next_cursor,omitempty"`
	Items  []Item            `json:"items"`
	Index  render.IndexState `json:"index"`
	Notice string            `json:"notice"`
}

// Filter is what a listing was narrowed by.
type Filter struct {
	Sources []string `json:"sources"`
	Tags    []string `json:"tags"`
	Status  string   `json:"status,omitempty"`
	Type    string   `json:"type,omitempty"`
	Since   string   `json:"since,omitempty"`
	Until   string   `json:"until,omitempty"`
}

// Item is one listed record or page.
type Item struct {
	Kind   string   `json:"kind"`
	Date   string   `json:"date,omitempty"`
	URI    string   `json:"uri"`
	Title  string   `json:"title"`
	Source string   `json:"source"`
	Status string   `json:"status,omitempty"`
	Type   string   `json:"type,omitempty"`
	Tags   []string `json:"tags"`
}

// listChunk is how many rows a listing reads at a time, so that listing
// a large layer holds one chunk of rows rather than the layer's.
const listChunk = 512

// List answers a listing of the base at root, from its artifacts when
// they are current, else from a scan (the same rule as Context).
func List(ctx context.Context, root string, req Request) ([]byte, error) {
	return With(ctx, root, req, corpus.Pick)
}

// With is List with the corpus opened by open.
func With(ctx context.Context, root string, req Request, open corpus.Opener) ([]byte, error) {
	if req.Format != render.FormatText && req.Format != render.FormatJSON {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--format %q: a listing is text or json", req.Format)}
	}
	if req.Limit < 0 {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--limit %d: give a positive number of items", req.Limit)}
	}
	if req.Limit == 0 {
		req.Limit = render.DefaultLimit
	}
	for _, d := range []struct{ flag, v string }{{"--since", req.Since}, {"--until", req.Until}} {
		if d.v != "" {
			if _, err := question.FlagDay(d.flag, d.v); err != nil {
				return nil, err
			}
		}
	}
	offset, bind := 0, ""
	if req.Cursor != "" {
		parts := strings.Split(req.Cursor, ":")
		off, err := -1, error(nil)
		if len(parts) == 3 {
			off, err = strconv.Atoi(parts[1])
		}
		if len(parts) != 3 || parts[0] != "list" || err != nil || off < 0 {
			return nil, &corpus.UsageError{Msg: fmt.Sprintf("--cursor %q is not a list cursor; take the one a listing prints after \"and N more\"", req.Cursor)}
		}
		offset, bind = off, parts[2]
	}
	c, state, closeFn, err := open(ctx, root, nil)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	dir, ok := corpus.Layers(c.Config().Layers)[req.Layer]
	if !ok {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("%q is not a layer; list one of %s", req.Layer, strings.Join(corpus.LayerNames, ", "))}
	}
	cfg := c.Config()
	dated := dir == cfg.Layers.Events || dir == cfg.Layers.Tasks
	sp, err := words.LayerSpan(c, dir, cond(dated, req.Since), cond(dated, req.Until))
	if err != nil {
		return nil, err
	}
	ords := make([]int, 0, sp.Hi-sp.Lo)
	for o := sp.Lo; o < sp.Hi; o++ {
		ords = append(ords, o)
	}
	keys, err := c.Keys(ords)
	if err != nil {
		return nil, err
	}
	// Newest first: a key's chrono rank is its place in that order.
	order := make([]int, len(ords))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(keys[a].Chrono, keys[b].Chrono) })
	doc := &Answer{
		Layer: req.Layer, Offset: offset, Items: []Item{}, Notice: render.Notice,
		Filter: Filter{Sources: render.NonNil(req.Sources), Tags: render.NonNil(req.Tags), Status: req.Status, Type: req.Type, Since: req.Since, Until: req.Until},
		Index:  render.IndexState{Path: state.Path, State: string(state.State), Reason: render.IndexReason(state.Reason)},
	}
	h := xxhash.New()
	var digest [8]byte
	needItem := len(req.Tags) > 0 || req.Status != "" || req.Type != ""
	for start := 0; start < len(order); start += listChunk {
		chunk := order[start:min(start+listChunk, len(order))]
		sorted := make([]int, len(chunk))
		for i, k := range chunk {
			sorted[i] = ords[k]
		}
		slices.Sort(sorted)
		rows, err := c.Rows(sorted)
		if err != nil {
			return nil, err
		}
		for _, k := range chunk {
			i, _ := slices.BinarySearch(sorted, ords[k])
			row := rows[i]
			if !listKeeps(req, row, dated) {
				continue
			}
			var it *project.Item
			show := doc.Count >= offset && len(doc.Items) < req.Limit
			if needItem || show {
				item, err := c.Item(ords[k], row)
				if err != nil {
					return nil, err
				}
				it = &item
				if !itemKeeps(req, it) {
					continue
				}
			}
			if doc.Count >= offset && len(doc.Items) < req.Limit {
				doc.Items = append(doc.Items, listItem(row, it))
			}
			doc.Count++
			binary.BigEndian.PutUint64(digest[:], keys[k].Digest)
			h.Write(digest[:])
		}
	}
	state64 := h.Sum64()
	if bind != "" && bind != listBind(req, offset, state64) {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--cursor %s was made for another listing or an earlier state of the base; run the listing again without --cursor", req.Cursor)}
	}
	end := offset + len(doc.Items)
	doc.More = max(0, doc.Count-max(end, offset))
	if doc.More > 0 {
		doc.Next = "list:" + strconv.Itoa(end) + ":" + listBind(req, end, state64)
	}
	if req.Format == render.FormatJSON {
		return append(render.Marshal(doc, "", "  "), '\n'), nil
	}
	return listText(doc), nil
}

func cond(ok bool, v string) string {
	if ok {
		return v
	}
	return ""
}

// listKeeps applies the filters a row answers: source, and the day of an
// undated layer's item (a dated layer's window is its span).
func listKeeps(req Request, row artifacts.Doc, dated bool) bool {
	if len(req.Sources) > 0 && !slices.Contains(req.Sources, row.Source) {
		return false
	}
	if !dated && (req.Since != "" || req.Until != "") {
		d := row.Date
		if d == "" || (req.Since != "" && d < req.Since) || (req.Until != "" && d > req.Until) {
			return false
		}
	}
	return true
}

// itemKeeps applies the filters only the projected item answers: tags,
// status and type.
func itemKeeps(req Request, it *project.Item) bool {
	for _, t := range req.Tags {
		if !slices.Contains(it.Tags, t) {
			return false
		}
	}
	if req.Status != "" && fieldValue(it, "status") != req.Status {
		return false
	}
	return req.Type == "" || fieldValue(it, "type") == req.Type
}

// fieldValue is the first value of an item's field, "" when it has none.
func fieldValue(it *project.Item, name string) string {
	if f, ok := it.Field(name); ok && len(f.Values) > 0 {
		return f.Values[0]
	}
	return ""
}

func listItem(row artifacts.Doc, it *project.Item) Item {
	li := Item{Kind: render.DisplayKind(row.Kind), Date: row.Date, URI: row.URI, Title: render.Inert(row.Title), Source: row.Source, Tags: []string{}}
	if it != nil {
		li.Status, li.Type, li.Tags = render.Inert(fieldValue(it, "status")), render.Inert(fieldValue(it, "type")), render.InertAll(it.Tags)
	}
	return li
}

// listBind binds a list cursor to the listing and what it holds.
func listBind(req Request, offset int, state uint64) string {
	h := xxhash.New()
	for _, p := range append([]string{"list", req.Layer, strconv.Itoa(offset), strconv.FormatUint(state, 16), req.Status, req.Type, req.Since, req.Until, "sources"},
		append(append(slices.Clone(req.Sources), "tags"), req.Tags...)...) {
		h.WriteString(p)
		h.WriteString("\x1f")
	}
	return artifacts.HashSum(h.Sum64())
}

func listText(doc *Answer) []byte {
	var b strings.Builder
	f := doc.Filter
	fmt.Fprintf(&b, "list: %s · %d item(s) · source=%s tag=%s status=%s type=%s since=%s until=%s\n", doc.Layer, doc.Count,
		render.ListOrDash(f.Sources), escape.Line(render.ListOrDash(f.Tags)), escape.Line(render.OrDash(f.Status)), escape.Line(render.OrDash(f.Type)), render.OrDash(f.Since), render.OrDash(f.Until))
	for _, it := range doc.Items {
		fmt.Fprintf(&b, "%s %s %s %s · source=%s", it.Kind, render.OrDash(it.Date), it.URI, render.OrDash(it.Title), it.Source)
		if it.Status != "" {
			fmt.Fprintf(&b, " status=%s", it.Status)
		}
		if it.Type != "" {
			fmt.Fprintf(&b, " type=%s", it.Type)
		}
		if len(it.Tags) > 0 {
			fmt.Fprintf(&b, " tags=%s", strings.Join(it.Tags, ","))
		}
		b.WriteByte('\n')
	}
	if doc.More > 0 {
		fmt.Fprintf(&b, "and %d more: --cursor %s\n", doc.More, doc.Next)
	}
	fmt.Fprintf(&b, "index=%s %s", doc.Index.Path, doc.Index.State)
	if doc.Index.Reason != "" {
		fmt.Fprintf(&b, " · index_reason=%s", doc.Index.Reason)
	}
	fmt.Fprintf(&b, "\n%s\n", doc.Notice)
	return escape.Bytes([]byte(b.String()))
}
