package project

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/markdown"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Page statuses that mean "no longer current".
var closedStatuses = map[string]string{
	"done":       FlagDone,
	"deprecated": FlagDeprecated,
	"superseded": FlagSuperseded,
}

// projectPage projects a wiki, project or task page: its slug, title,
// description, type, status, tags, aliases, body, relations and commitment
// metadata are searchable.
func projectPage(cfg model.Config, ids lex.Identities, tk *tokenizer, p model.Page) Item {
	f := p.Front
	it := Item{
		URI:        p.Path,
		Kind:       p.Layer,
		Source:     p.Layer,
		Date:       p.Date,
		ValidFrom:  f.ValidFrom,
		ValidUntil: f.ValidUntil,
		Title:      f.Title,
		Tags:       slices.Clone(f.Tags), // finish sorts and compacts them in place
		DocPath:    p.Path,
		Line:       1,
		SpanOff:    -1,
	}
	if flag, ok := closedStatuses[strings.ToLower(f.Status)]; ok {
		it.Flags = append(it.Flags, flag)
	}
	if f.SupersededBy != "" {
		it.Flags = append(it.Flags, FlagSuperseded)
	}
	if p.Layer == model.LayerProjects && strings.EqualFold(f.Status, "active") {
		it.Flags = append(it.Flags, FlagActive)
	}
	if nav(cfg, p.Path) {
		it.Flags = append(it.Flags, FlagNav)
	}
	if f.Category != "" {
		it.Flags = append(it.Flags, f.Category)
	}
	if f.Visibility != "" {
		it.Flags = append(it.Flags, f.Visibility)
	}
	add := func(name string, exact bool, vals ...string) {
		var kept, ex []string
		for _, v := range vals {
			if strings.TrimSpace(v) != "" {
				kept = append(kept, v)
			}
		}
		if exact {
			ex = kept
		}
		if len(kept) > 0 {
			it.Fields = append(it.Fields, tk.field(name, kept, ex...))
		}
	}
	add(FieldSlug, true, p.Slug)
	add(FieldTitle, true, f.Title)
	add("description", false, f.Description)
	add("type", false, f.Type)
	add("status", false, f.Status)
	add("tags", false, f.Tags...)
	add(FieldAliases, true, f.Aliases...)
	add(FieldBody, false, p.Body)
	add("next_action", false, f.NextAction)
	add("blocker", false, f.Blocker)
	add("reviewed", false, f.Reviewed)
	add("due", false, f.Due)
	for _, field := range slices.Sorted(maps.Keys(f.Relations)) {
		var kept, exact []string
		for _, v := range f.Relations[field] {
			if strings.TrimSpace(v) != "" {
				it.Relations = append(it.Relations, Relation{Field: field, Value: v})
				kept = append(kept, v)
				if !tk.skip {
					exact = append(exact, tk.exactForms(v)...)
				}
			}
		}
		if len(kept) > 0 {
			it.Fields = append(it.Fields, tk.field(field, kept, exact...))
		}
	}
	for _, u := range f.Relations[FieldURL] {
		if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
			it.URL = u
			break
		}
	}
	if !tk.skip {
		it.Links = resolveLinks(p.Path, p.Links)
	}
	it.Supersedes = slices.Clone(f.Supersedes)
	mergeFields(tk, &it)
	finish(&it)
	return it
}

// mergeFields joins fields of the same name (a relation named like a
// built-in field) so that every item has each field once.
func mergeFields(tk *tokenizer, it *Item) {
	slices.SortStableFunc(it.Fields, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	out := it.Fields[:0]
	for _, f := range it.Fields {
		if n := len(out); n > 0 && out[n-1].Name == f.Name {
			var exact []string
			for _, t := range append(slices.Clone(out[n-1].Terms), f.Terms...) {
				if e, ok := strings.CutPrefix(t.Term, lex.ExactPrefix); ok {
					exact = append(exact, e)
				}
			}
			out[n-1] = tk.field(f.Name, append(slices.Clone(out[n-1].Values), f.Values...), exact...)
			continue
		}
		out = append(out, f)
	}
	it.Fields = out
}

// Links lists the targets of a body's Markdown links and images (inline,
// reference and autolinks, never anything in code; see package markdown),
// resolved against the page's path, sorted and once each.
func Links(pagePath, body string) []string {
	return resolveLinks(pagePath, markdown.Read(body).Links)
}

// resolveLinks resolves link destinations against the page's path, keeps
// those that name a page, a file of the base or a web address, and sorts
// them once each.
func resolveLinks(pagePath string, dests []string) []string {
	var out []string
	for _, d := range dests {
		if l := resolveLink(pagePath, d); l != "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func resolveLink(pagePath, target string) string {
	switch {
	case target == "":
		return "" // [text]() points nowhere, as in "GetTickCount[64]()"
	case strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "http://"):
		return target
	case strings.HasPrefix(target, "#"):
		return pagePath + target
	case strings.Contains(target, ":") || strings.HasPrefix(target, "/"):
		return "" // mailto:, other schemes, absolute paths
	}
	file, anchor, _ := strings.Cut(target, "#")
	resolved := path.Clean(path.Join(path.Dir(pagePath), file))
	if resolved == ".." || strings.HasPrefix(resolved, "../") {
		return ""
	}
	if anchor != "" {
		resolved += "#" + anchor
	}
	return resolved
}
