package main

import (
	"fmt"
	"strings"
)

// fileOut is one generated file, base-relative path and bytes.
type fileOut struct {
	path string
	data []byte
}

// frontmatter renders a YAML frontmatter block from ordered key/value
// lines; values are already YAML text.
func frontmatter(kv ...string) string {
	var b strings.Builder
	b.WriteString("---\n")
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		b.WriteString(kv[i])
		b.WriteString(":")
		if !strings.HasPrefix(kv[i+1], "\n") {
			b.WriteString(" ")
		}
		b.WriteString(kv[i+1])
		b.WriteString("\n")
	}
	b.WriteString("---\n")
	return b.String()
}

// relationsYAML renders a relations map as an indented block.
func relationsYAML(rel ...any) string {
	var b strings.Builder
	for i := 0; i+1 < len(rel); i += 2 {
		vals := rel[i+1].([]string)
		if len(vals) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n  %s: %s", rel[i].(string), yqList(vals))
	}
	return b.String()
}

func slugTitle(slug string) string { return titleCase(strings.ReplaceAll(slug, "-", " ")) }

// paragraph writes n sentences, some mentioning a ticket, a repository or
// a term of the terms store, so pages connect to records and usage counts.
func (w *world) paragraph(r *rng, b *strings.Builder, n int) {
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		s := w.voc.appendSentence(nil, r, 7, 16)
		switch x := r.intn(100); {
		case x < 12:
			s = append(s[:len(s)-1], " (see "+w.hotTicket(r)+")."...)
		case x < 20:
			s = append(s[:len(s)-1], " in "+w.repo(r).Name+"."...)
		case x < 40:
			s = append(s[:len(s)-1], ", with "+pick(r, w.terms).term+"."...)
		}
		b.Write(s)
	}
	b.WriteString("\n\n")
}

func (w *world) tags(r *rng, lo, hi int) []string {
	var out []string
	for range r.between(lo, hi) {
		t := slugify(w.voc.contentWord(r))
		if t != "" && !strings.Contains(strings.Join(out, ","), t) {
			out = append(out, t)
		}
	}
	return out
}

func (w *world) personURIs(r *rng, lo, hi int) []string {
	var out []string
	for range r.between(lo, hi) {
		u := w.person(r).URI
		if !strings.Contains(strings.Join(out, ","), u) {
			out = append(out, u)
		}
	}
	return out
}

// wikiPages renders wiki/<slug>.md concept pages plus the two navigation
// pages, index.md and log.md. A few pages are superseded by the next one.
func wikiPages(w *world) []fileOut {
	var out []fileOut
	n := len(w.wiki)
	for i, slug := range w.wiki {
		r := newRNG(w.p.Seed, "wiki/"+slug)
		title := slugTitle(slug)
		status, supersedes, supersededBy := "", "", ""
		switch {
		case i%37 == 5 && i+1 < n:
			status = yq("superseded")
			supersededBy = yq("wiki/" + w.wiki[i+1] + ".md")
		case i%37 == 6:
			supersedes = yqList([]string{"wiki/" + w.wiki[i-1] + ".md"})
		case i%29 == 3:
			status = yq("deprecated")
		}
		var aliases string
		if r.chance(30) {
			aliases = yqList([]string{strings.ToUpper(initials(slug))})
		}
		date := w.days[r.intn(len(w.days))]
		var b strings.Builder
		b.WriteString(frontmatter(
			"title", yq(title),
			"description", yq(string(w.voc.appendSentence(nil, r, 8, 14))),
			"type", "concept",
			"status", status,
			"tags", yqList(w.tags(r, 1, 3)),
			"aliases", aliases,
			"relations", relationsYAML("repo", []string{w.repo(r).URI}, "owner", w.personURIs(r, 1, 2)),
			"date", yq(date),
			"reviewed", yq(w.days[len(w.days)-1]),
			"supersedes", supersedes,
			"superseded_by", supersededBy,
		))
		fmt.Fprintf(&b, "# %s\n\n", title)
		w.paragraph(r, &b, r.between(2, 4))
		b.WriteString("## Overview\n\n")
		for range r.between(1, 3) {
			w.paragraph(r, &b, r.between(3, 5))
		}
		b.WriteString("## Related\n\n")
		for range r.between(2, 4) {
			o := w.wiki[r.intn(n)]
			fmt.Fprintf(&b, "- [%s](%s.md)\n", slugTitle(o), o)
		}
		p := w.projects[r.intn(len(w.projects))]
		fmt.Fprintf(&b, "- Project: [%s](../projects/%s.md)\n\n", slugTitle(p), p)
		if r.chance(40) {
			b.WriteString("## Open questions\n\n")
			for range r.between(1, 3) {
				fmt.Fprintf(&b, "- %s\n", w.voc.appendSentence(nil, r, 6, 12))
			}
			b.WriteString("\n")
		}
		out = append(out, fileOut{"wiki/" + slug + ".md", []byte(b.String())})
	}
	var idx strings.Builder
	idx.WriteString(frontmatter("title", yq("Index"), "type", "navigation"))
	idx.WriteString("# Index\n\nEvery concept page of the wiki.\n\n")
	for _, s := range w.wiki {
		fmt.Fprintf(&idx, "- [%s](%s.md)\n", slugTitle(s), s)
	}
	out = append(out, fileOut{"wiki/index.md", []byte(idx.String())})
	r := newRNG(w.p.Seed, "wiki/log")
	var lg strings.Builder
	lg.WriteString(frontmatter("title", yq("Log"), "type", "navigation"))
	lg.WriteString("# Log\n\n")
	for d := len(w.days) - 1; d >= 0; d-- {
		fmt.Fprintf(&lg, "## %s\n\n", w.days[d])
		for range r.between(1, 4) {
			s := w.wiki[r.intn(n)]
			fmt.Fprintf(&lg, "- updated [%s](%s.md)\n", slugTitle(s), s)
		}
		lg.WriteString("\n")
	}
	out = append(out, fileOut{"wiki/log.md", []byte(lg.String())})
	return out
}

func initials(slug string) string {
	var b strings.Builder
	for _, p := range strings.Split(slug, "-") {
		if p != "" {
			b.WriteByte(p[0])
		}
	}
	if b.Len() < 2 {
		return slug
	}
	return b.String()
}

// projectPages renders projects/<slug>.md with status, next_action,
// blocker and due, as project pages carry them.
func projectPages(w *world) []fileOut {
	var out []fileOut
	for i, slug := range w.projects {
		r := newRNG(w.p.Seed, "project/"+slug)
		title := slugTitle(slug)
		status := []string{"active", "active", "active", "paused", "done"}[i%5]
		var next, blocker string
		if status != "done" {
			next = yq(titleCase(pick(r, verbs)) + " " + w.voc.contentWord(r) + " " + w.voc.contentWord(r) + " (" + w.hotTicket(r) + ")")
		}
		if status == "paused" || (status == "active" && r.chance(30)) {
			blocker = yq("Waiting on " + w.hotTicket(r) + ": " + string(w.voc.appendWords(nil, r, 4)))
		}
		rp := w.repo(r)
		var b strings.Builder
		b.WriteString(frontmatter(
			"title", yq(title),
			"description", yq(string(w.voc.appendSentence(nil, r, 8, 14))),
			"type", "project",
			"status", status,
			"next_action", next,
			"blocker", blocker,
			"due", yq(firstDay.AddDate(0, 0, len(w.days)+r.between(3, 40)).Format("2006-01-02")),
			"tags", yqList(w.tags(r, 1, 3)),
			"relations", relationsYAML("repo", []string{rp.URI}, "owner", w.personURIs(r, 1, 1), "members", w.personURIs(r, 2, 5)),
		))
		fmt.Fprintf(&b, "# %s\n\n## Goal\n\n", title)
		w.paragraph(r, &b, r.between(2, 4))
		b.WriteString("## Milestones\n\n")
		for k := range r.between(3, 6) {
			mark := " "
			if k < 2 || status == "done" {
				mark = "x"
			}
			fmt.Fprintf(&b, "- [%s] %s %s %s\n", mark, w.hotTicket(r), pick(r, verbs), w.voc.appendWords(nil, r, 3))
		}
		b.WriteString("\n## Notes\n\n")
		w.paragraph(r, &b, r.between(2, 5))
		o := w.wiki[r.intn(len(w.wiki))]
		fmt.Fprintf(&b, "Background: [%s](../wiki/%s.md).\n", slugTitle(o), o)
		out = append(out, fileOut{"projects/" + slug + ".md", []byte(b.String())})
	}
	return out
}

// taskPages renders tasks/<day>/<slug>/TASKS.md: a few checklists a day.
func taskPages(w *world) []fileOut {
	var out []fileOut
	for d, day := range w.days {
		r := newRNG(w.p.Seed, "tasks/"+day)
		seen := map[string]bool{}
		for range r.between(1, 3) + w.p.Records/200000 {
			slug := slugify(pick(r, verbs) + " " + w.voc.contentWord(r))
			if slug == "" || seen[slug] {
				continue
			}
			seen[slug] = true
			status := ""
			if d < len(w.days)-2 && r.chance(50) {
				status = "done"
			}
			var b strings.Builder
			b.WriteString(frontmatter("title", yq(slugTitle(slug)), "status", status, "tags", yqList(w.tags(r, 1, 2))))
			fmt.Fprintf(&b, "# %s\n\n", slugTitle(slug))
			for range r.between(3, 8) {
				mark := " "
				if status == "done" || r.chance(40) {
					mark = "x"
				}
				p := w.person(r)
				fmt.Fprintf(&b, "- [%s] %s: %s (@%s)\n", mark, w.hotTicket(r), w.voc.appendWords(nil, r, r.between(3, 7)), p.Login)
			}
			out = append(out, fileOut{"tasks/" + day + "/" + slug + "/TASKS.md", []byte(b.String())})
		}
	}
	return out
}

// reposIndex renders index/repos.json, an undated snapshot of every
// repository.
func reposIndex(w *world) []byte {
	r := newRNG(w.p.Seed, "index/repos")
	var b []byte
	b = append(b, "{\n  \"cairn\": 1,\n  \"source\": \"repos\",\n  \"layer\": \"index\",\n"...)
	b = append(b, "  \"schema\": {\n    \"maintainers\": {\"relation\": true, \"cardinality\": \"many\", \"description\": \"people who own the repository\"}\n  },\n"...)
	b = appendFieldsMap(b, []fieldPaths{
		fp("id", ".full_name"), fp("title", ".name"), fp("body", ".description"),
		fp("topics", ".topics[]"), fp("maintainers", ".maintainers[]"), fp("url", ".html_url"),
		fp("repo", ".uri"),
	}, "  ")
	b = append(b, ",\n  \"collected_at\": "...)
	b = appendJSON(b, firstDay.AddDate(0, 0, len(w.days)).Format("2006-01-02")+"T00:10:00Z")
	b = append(b, ",\n  \"body\": \"Every repository of the organisation as of the last collection.\",\n"...)
	b = append(b, "  \"count\": "...)
	b = append(b, fmt.Sprint(len(w.repos))...)
	b = append(b, ",\n  \"records\": [\n"...)
	for i, rp := range w.repos {
		b = append(b, "    {"...)
		b = appendKey(b, "full_name")
		b = appendJSON(b, rp.FullName)
		b = append(b, ',')
		b = appendKey(b, "name")
		b = appendJSON(b, rp.Name)
		b = append(b, ',')
		b = appendKey(b, "uri")
		b = appendJSON(b, rp.URI)
		b = append(b, ',')
		b = appendKey(b, "description")
		b = appendJSONBytes(b, w.voc.appendProse(nil, r, 2, 8, 14))
		b = append(b, ',')
		b = appendKey(b, "topics")
		b = appendStrList(b, w.tags(r, 1, 4))
		b = append(b, ',')
		b = appendKey(b, "maintainers")
		b = appendStrList(b, w.personURIs(r, 1, 3))
		b = append(b, ',')
		b = appendKey(b, "html_url")
		b = appendJSON(b, "https://"+rp.FullName)
		b = append(b, `,"default_branch":"main","stars":`...)
		b = append(b, fmt.Sprint(r.intn(900))...)
		b = append(b, `,"archived":`...)
		b = append(b, fmt.Sprint(i%13 == 12)...)
		b = append(b, '}')
		if i < len(w.repos)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	return append(b, "  ]\n}\n"...)
}
