package search

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// renderSearch renders an answer in its format. With counts only, the
// groups carry no items.
func renderSearch(doc *Answer, format string, countOnly bool) []byte {
	switch format {
	case render.FormatJSON:
		return append(render.Marshal(doc, "", "  "), '\n')
	case render.FormatJSONL:
		return searchJSONL(doc)
	}
	return searchText(doc, countOnly)
}

// searchJSONL is the answer without its items on the first line, then one
// line per shown item with its group and rank.
func searchJSONL(doc *Answer) []byte {
	var b bytes.Buffer
	head := *doc
	head.Groups = nil
	for _, g := range doc.Groups {
		c := *g
		c.Items = []searchItem{}
		head.Groups = append(head.Groups, &c)
	}
	b.Write(render.Marshal(&head, "", ""))
	b.WriteByte('\n')
	for _, g := range doc.Groups {
		for i, it := range g.Items {
			b.Write(render.Marshal(struct {
				Group string     `json:"group"`
				Rank  int        `json:"rank"`
				Item  searchItem `json:"item"`
			}{g.Name, g.Offset + i + 1, it}, "", ""))
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// searchText is the answer for a reader: a head line, each group with its
// count, its items and how to page on, then provenance and the notice.
func searchText(doc *Answer, countOnly bool) []byte {
	var b strings.Builder
	window := "every day"
	if doc.Window.Since != "" || doc.Window.Until != "" {
		window = render.OrDash(doc.Window.Since) + ".." + render.OrDash(doc.Window.Until)
	}
	if doc.Window.DerivedFrom != "" {
		window += " (" + doc.Window.DerivedFrom + ")"
	}
	if doc.Moved != "" {
		fmt.Fprintf(&b, "note: %s\n", doc.Moved)
	}
	fmt.Fprintf(&b, "search: %s · terms=%s · filtered=%s · window=%s · as_of=%s · scope=%s\n",
		escape.Line(doc.Query), render.ListOrDash(doc.Terms), render.ListOrDash(doc.FilteredTerms), window, doc.AsOf, doc.Scope)
	if f := doc.Filters; len(f.Sources) > 0 || f.Layer != "" || len(f.Where) > 0 {
		fmt.Fprintf(&b, "filters: source=%s · layer=%s · where=%s\n", render.ListOrDash(f.Sources), render.OrDash(f.Layer), escape.Line(render.ListOrDash(f.Where)))
	}
	cov := doc.Coverage
	fmt.Fprintf(&b, "coverage: %s · has=%s · missing=%s · pending suggestions=%d\n", cov.Grade, render.ListOrDash(cov.Kinds), render.ListOrDash(cov.Missing), cov.Pending)
	for _, g := range doc.Groups {
		fmt.Fprintf(&b, "## %s: %d", g.Name, g.Count)
		if g.Offset > 0 {
			fmt.Fprintf(&b, " (from %d)", g.Offset+1)
		}
		b.WriteByte('\n')
		if countOnly {
			continue
		}
		for _, it := range g.Items {
			b.WriteString(it.text())
		}
		if g.More > 0 {
			fmt.Fprintf(&b, "and %d more: --cursor %s\n", g.More, g.Next)
		}
	}
	if doc.HeldBack > 0 {
		fmt.Fprintf(&b, "held back: %d received or private record(s) match; name their role in the query (category:received, visibility:private) to see them\n", doc.HeldBack)
	}
	if doc.Empty != "" {
		fmt.Fprintf(&b, "%s\n%s\n", doc.Empty, doc.Record)
	}
	p := doc.Provenance
	fmt.Fprintf(&b, "provenance: project=%s · log=%s (%d operation(s)) · usage=%s %s · index=%s %s",
		p.Project, render.OrDash(p.LogRevision), p.LogOperations, p.Artifacts.Path, p.Artifacts.State, doc.Index.Path, doc.Index.State)
	if doc.Index.Reason != "" {
		fmt.Fprintf(&b, " · index_reason=%s", doc.Index.Reason)
	}
	fmt.Fprintf(&b, " · ranking=%d\n%s\n", doc.RankingVersion, render.Notice)
	return escape.Bytes([]byte(b.String()))
}
