package load

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/markdown"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// loadOnePage loads the page at p whose bytes are data, under the default
// layers.
func loadOnePage(t *testing.T, p, data string) (model.Page, bool, []string) {
	t.Helper()
	var ds diag.List
	pg, ok := loadPage(fstest.MapFS{p: {Data: []byte(data)}}, model.Config{}.WithDefaults(), p, &ds)
	return pg, ok, diagLines(ds.Sorted())
}

func TestPageFrontmatter(t *testing.T) {
	cases := []struct {
		name, path, data string
		want             model.Page
	}{
		{"LF", "wiki/a.md", "---\ntitle: Harbor CI\ntags: [ci, arm64]\n---\n# Setup\nbody\n", model.Page{
			Path: "wiki/a.md", Layer: "wiki", Slug: "a", Body: "# Setup\nbody\n", BodyLine: 5,
			Front:    model.Frontmatter{Title: "Harbor CI", Tags: []string{"ci", "arm64"}},
			Headings: []model.Heading{{Level: 1, Text: "Setup", Anchor: "setup", Line: 5}},
		}},
		{"CRLF", "wiki/a.md", "---\r\ntitle: Harbor CI\r\ntags: [ci, arm64]\r\n---\r\n# Setup\r\nbody\r\n", model.Page{
			Path: "wiki/a.md", Layer: "wiki", Slug: "a", Body: "# Setup\r\nbody\r\n", BodyLine: 5,
			Front:    model.Frontmatter{Title: "Harbor CI", Tags: []string{"ci", "arm64"}},
			Headings: []model.Heading{{Level: 1, Text: "Setup", Anchor: "setup", Line: 5}},
		}},
		{"BOM", "wiki/b.md", "\xef\xbb\xbf---\ntitle: With BOM\n---\nx", model.Page{
			Path: "wiki/b.md", Layer: "wiki", Slug: "b", Body: "x", BodyLine: 4, Front: model.Frontmatter{Title: "With BOM"},
		}},
		{"closed by ... and opened with trailing space", "wiki/i.md", "--- \ntitle: Dots\n...\nbody", model.Page{
			Path: "wiki/i.md", Layer: "wiki", Slug: "i", Body: "body", BodyLine: 4, Front: model.Frontmatter{Title: "Dots"},
		}},
		{"empty frontmatter, title from the first heading", "wiki/f.md", "---\n---\n\n## Only heading\n# Later\n", model.Page{
			Path: "wiki/f.md", Layer: "wiki", Slug: "f", Body: "\n## Only heading\n# Later\n", BodyLine: 3,
			Front: model.Frontmatter{Title: "Only heading"},
			Headings: []model.Heading{
				{Level: 2, Text: "Only heading", Anchor: "only-heading", Line: 4},
				{Level: 1, Text: "Later", Anchor: "later", Line: 5},
			},
		}},
		{"no frontmatter, no heading: title from the slug", "wiki/guides/set-up.md", "plain text\n", model.Page{
			Path: "wiki/guides/set-up.md", Layer: "wiki", Slug: "guides/set-up", Body: "plain text\n", BodyLine: 1,
			Front: model.Frontmatter{Title: "set-up"},
		}},
		// Not frontmatter, so CommonMark reads a rule and a setext heading.
		{"a --- that is not on the first line", "wiki/n.md", "\n---\ntitle: not frontmatter\n---\n", model.Page{
			Path: "wiki/n.md", Layer: "wiki", Slug: "n", Body: "\n---\ntitle: not frontmatter\n---\n", BodyLine: 1,
			Front:    model.Frontmatter{Title: "title: not frontmatter"},
			Headings: []model.Heading{{Level: 2, Text: "title: not frontmatter", Anchor: "title-not-frontmatter", Line: 3}},
		}},
		{"unknown keys kept", "wiki/e.md", "---\ntitle: T\nowner_team: infra\nscore: 3\nnested: {a: [1, 2]}\n---\n", model.Page{
			Path: "wiki/e.md", Layer: "wiki", Slug: "e", BodyLine: 7, Front: model.Frontmatter{Title: "T"},
			FrontExtras: map[string]any{"owner_team": "infra", "score": 3, "nested": map[string]any{"a": []any{1, 2}}},
		}},
		{"every interpreted key", "projects/harbor.md", `---
title: Harbor
description: The container registry.
type: project
status: active
tags: [registry]
aliases: [harbor-registry]
relations:
  owner: [person:github/marc-b]
  repo: [repo:github.com/acme/harbor]
date: 2026-11-02
valid_from: 2026-01-01
valid_until: 2026-12-31
next_action: Ship arm64 runners
blocker: CI quota
reviewed: 2026-10-30
due: 2026-11-20
category: created
visibility: shared
supersedes: [projects/old-harbor.md]
superseded_by: projects/harbor-2.md
---
`, model.Page{
			Path: "projects/harbor.md", Layer: "projects", Slug: "harbor", Date: "2026-11-02", BodyLine: 23,
			Front: model.Frontmatter{
				Title: "Harbor", Description: "The container registry.", Type: "project", Status: "active",
				Tags: []string{"registry"}, Aliases: []string{"harbor-registry"},
				Relations: map[string][]string{"owner": {"person:github/marc-b"}, "repo": {"repo:github.com/acme/harbor"}},
				Date:      "2026-11-02", ValidFrom: "2026-01-01", ValidUntil: "2026-12-31",
				NextAction: "Ship arm64 runners", Blocker: "CI quota", Reviewed: "2026-10-30", Due: "2026-11-20",
				Category: "created", Visibility: "shared",
				Supersedes: []string{"projects/old-harbor.md"}, SupersededBy: "projects/harbor-2.md",
			},
		}},
		{"task page: day and slug from the path", "tasks/2026-11-02/fix-ci/TASKS.md", "# Fix CI\n- [ ] retry\n", model.Page{
			Path: "tasks/2026-11-02/fix-ci/TASKS.md", Layer: "tasks", Slug: "fix-ci", Date: "2026-11-02",
			Body: "# Fix CI\n- [ ] retry\n", BodyLine: 1, Front: model.Frontmatter{Title: "Fix CI"},
			Headings: []model.Heading{{Level: 1, Text: "Fix CI", Anchor: "fix-ci", Line: 1}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pg, ok, diags := loadOnePage(t, c.path, c.data)
			if !ok || len(diags) != 0 {
				t.Fatalf("ok = %v, diagnostics %q", ok, diags)
			}
			if diff := cmp.Diff(c.want, pg, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPageErrors(t *testing.T) {
	cases := []struct {
		name, path, data string
		ok               bool
		want             []string
	}{
		{"unclosed", "wiki/c.md", "---\ntitle: T\n", false, []string{
			"wiki/c.md:1:1: error: the frontmatter opened with --- is never closed; add a --- line after the YAML, or remove the opening --- [frontmatter-unclosed]",
		}},
		{"unclosed, only the opening line", "wiki/c.md", "---", false, []string{
			"wiki/c.md:1:1: error: the frontmatter opened with --- is never closed; add a --- line after the YAML, or remove the opening --- [frontmatter-unclosed]",
		}},
		{"a list, not a mapping", "wiki/d.md", "---\n- a\n- b\n---\nbody", false, []string{
			"wiki/d.md:2:1: error: the frontmatter must be YAML keys and values (title: ..., tags: [...]); fix it or remove the --- block [frontmatter-not-mapping]",
			"wiki/d.md:2:1: error: wrong type for the top level: expected a mapping, found a list; write a mapping instead [yaml-type]",
		}},
		{"a string, not a mapping", "wiki/k.md", "---\njust a string\n---\n", false, []string{
			"wiki/k.md:2:1: error: the frontmatter must be YAML keys and values (title: ..., tags: [...]); fix it or remove the --- block [frontmatter-not-mapping]",
			`wiki/k.md:2:1: error: wrong type for the top level: expected a mapping, found "just a string"; write a mapping instead [yaml-type]`,
		}},
		{"broken YAML, line in the file", "wiki/broken-frontmatter.md", "---\ntitle: Broken frontmatter\ntags: [ci, arm64\ndescription: The bracket on the line above is never closed.\n---\n\n# Broken frontmatter\n", false, []string{
			"wiki/broken-frontmatter.md:3:1: error: invalid YAML: did not find expected ',' or ']'; fix the syntax on or just before this line (indentation, a missing ':' or an unclosed bracket or quote) [yaml-syntax]",
		}},
		{"wrong type", "wiki/m.md", "---\ntitle: 42\ntags: x\n---\n", false, []string{
			`wiki/m.md:3:7: error: wrong type for tags: expected a list, found "x"; write a list instead [yaml-type]`,
		}},
		{"bad values", "wiki/l.md", "---\ncategory: stolen\nvisibility: secret\nvalid_from: 2026-12-01\nvalid_until: 2026-01-01\n---\n", false, []string{
			`wiki/l.md:2:1: error: category "stolen"; use one of: created, received, saved [bad-category]`,
			`wiki/l.md:3:1: error: visibility "secret"; use one of: private, shared, public [bad-visibility]`,
			"wiki/l.md:5:1: error: valid_from 2026-12-01 is after valid_until 2026-01-01; swap or fix them [bad-window]",
		}},
		{"bad day and point on a page", "projects/p.md", "---\nstatus: active\ndue: tomorrow\npoint: docs\n---\n", false, []string{
			`projects/p.md:3:1: error: due "tomorrow" is not a day; write YYYY-MM-DD [bad-date]`,
			"projects/p.md:4:1: warning: point: binds content files, not projects pages; it is ignored here [point-on-page]",
		}},
		{"task folder is not a day", "tasks/2026-02-30/fix-ci/TASKS.md", "# Fix CI\n", false, []string{
			`tasks/2026-02-30/fix-ci/TASKS.md:1:1: error: folder "2026-02-30" is not a real day; name it YYYY-MM-DD [bad-date]`,
		}},
		{"point alone is only a warning", "wiki/w.md", "---\npoint: docs\n---\n", true, []string{
			"wiki/w.md:2:1: warning: point: binds content files, not wiki pages; it is ignored here [point-on-page]",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ok, got := loadOnePage(t, c.path, c.data)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if ok != c.ok {
				t.Errorf("ok = %v, want %v", ok, c.ok)
			}
		})
	}
}

func TestPageDays(t *testing.T) {
	pg, ok, diags := loadOnePage(t, "wiki/d.md", "---\ndate: 2026-11-02T09:00:00Z\nreviewed: 2026-10-01T08:00:00+00:00\n---\n")
	if !ok || len(diags) != 0 {
		t.Fatalf("ok = %v, diagnostics %q", ok, diags)
	}
	if pg.Date != "2026-11-02" || pg.Front.Date != "2026-11-02" || pg.Front.Reviewed != "2026-10-01" {
		t.Errorf("date %q / %q reviewed %q; want the days of the timestamps", pg.Date, pg.Front.Date, pg.Front.Reviewed)
	}
}

// TestTimestampKeepsItsWrittenDay: a frontmatter timestamp is filed under the
// day it was written in, in its own zone.
func TestTimestampKeepsItsWrittenDay(t *testing.T) {
	pg, _, _ := loadOnePage(t, "wiki/d.md", "---\ndate: 2026-11-02T23:30:00-02:00\n---\n")
	if pg.Date != "2026-11-02" {
		t.Errorf("date = %q, want 2026-11-02, the day the author wrote", pg.Date)
	}
}

func heading(level int, text, anchor string, line int) model.Heading {
	return model.Heading{Level: level, Text: text, Anchor: anchor, Line: line}
}

func TestHeadings(t *testing.T) {
	body := "" +
		"# Hello, World!\n" + // 10
		"## Hello World\n" +
		"### Hello World ###\n" +
		"#NotAHeading\n" +
		"    # indented code\n" +
		"   # Three spaces is fine\n" + // 15
		"```go\n" +
		"# in a fence\n" +
		"```\n" +
		"####### seven is too many\n" +
		"## Café Crème\n" + // 20
		"## `code` & stuff\n" +
		"## foo_bar-baz\n" +
		"#\n" +
		"## Hello World\n" +
		"~~~~\n" + // 25
		"# inside a tilde fence\n" +
		"~~~\n" +
		"# still inside: the closing fence is shorter\n" +
		"````\n" +
		"# still inside: backticks do not close tildes\n" + // 30
		"~~~~~\n" +
		"## After\n" +
		"#\tTabbed\n" +
		"# 日本語の見出し\n" +
		"## Q&A: what's next?\n" + // 35
		"###### Six\n" +
		"# Trailing   #####   \n" +
		"## Straße 1.2.3\n"
	want := []model.Heading{
		heading(1, "Hello, World!", "hello-world", 10),
		heading(2, "Hello World", "hello-world-1", 11),
		heading(3, "Hello World", "hello-world-2", 12),
		heading(1, "Three spaces is fine", "three-spaces-is-fine", 15),
		heading(2, "Café Crème", "café-crème", 20),
		heading(2, "code & stuff", "code--stuff", 21), // the text it shows, as GitHub anchors it
		heading(2, "foo_bar-baz", "foo_bar-baz", 22),
		heading(2, "Hello World", "hello-world-3", 24),
		heading(2, "After", "after", 32),
		heading(1, "Tabbed", "tabbed", 33),
		heading(1, "日本語の見出し", "日本語の見出し", 34),
		heading(2, "Q&A: what's next?", "qa-whats-next", 35),
		heading(6, "Six", "six", 36),
		heading(1, "Trailing", "trailing", 37),
		heading(2, "Straße 1.2.3", "straße-123", 38),
	}
	if diff := cmp.Diff(want, pageHeadings(body, 10)); diff != "" {
		t.Errorf("Headings (-want +got):\n%s", diff)
	}
}

func TestHeadingsCRLFAndUnclosedFence(t *testing.T) {
	got := pageHeadings("# One\r\n```\r\n# In code\r\n", 1)
	want := []model.Heading{heading(1, "One", "one", 1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Headings (-want +got):\n%s", diff)
	}
}

func TestAnchor(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello, World!", "hello-world"},
		{"  Leading and trailing  ", "--leading-and-trailing--"},
		{"v1.2 → v2.0", "v12--v20"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"ÉCOLE", "école"},
		{"e\u0301te\u0301", "e\u0301te\u0301"},
		{"100% done", "100-done"},
		{"🙂 emoji", "-emoji"},
		{"", ""},
	}
	for _, c := range cases {
		if got := markdown.Anchor(c.in); got != c.want {
			t.Errorf("Anchor(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestHeadingKeepsTrailingHashInText: only a closing run of # after a space or
// tab is stripped, as in CommonMark.
func TestHeadingKeepsTrailingHashInText(t *testing.T) {
	got := pageHeadings("# Learning F#\n## C# ##\n", 1)
	want := []model.Heading{heading(1, "Learning F#", "learning-f", 1), heading(2, "C#", "c", 2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Headings (-want +got):\n%s", diff)
	}
}

// TestPageRelationNamesAreChecked: page relation names must be field names, or
// they could break the edge format.
func TestPageRelationNamesAreChecked(t *testing.T) {
	_, ok, diags := loadOnePage(t, "wiki/r.md", "---\nrelations:\n  a=b: [person:x/y]\n  Owner: [person:x/z]\n---\n")
	if ok || len(diags) != 2 {
		t.Errorf("ok = %v, diagnostics %q; want two bad-field-name errors", ok, diags)
	}
}

// TestPageRefusesOtherPaths: Page is also called with URIs read back from
// docs.tsv, so a path of no page shape gets a diagnostic, never a panic.
func TestPageRefusesOtherPaths(t *testing.T) {
	for _, p := range []string{"tasks/x.md", "tasks/2026-11-02/TASKS.md", "notes.md", "tasks/2026-11-02/a/b/TASKS.md"} {
		_, ok, diags := loadOnePage(t, p, "---\ntitle: X\n---\n")
		if ok || len(diags) != 1 || !strings.Contains(diags[0], "error: not a page path: pages are wiki/**.md, projects/**.md or tasks/YYYY-MM-DD/<slug>/TASKS.md [not-a-page]") {
			t.Errorf("%s: ok = %v, diagnostics %q; want one not-a-page error", p, ok, diags)
		}
	}
}

// pageHeadings is a body's headings as a page holds them, its first line
// numbered first.
func pageHeadings(body string, first int) []model.Heading {
	return headings(markdown.Read(body), first)
}
