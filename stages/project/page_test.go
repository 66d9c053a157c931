package project

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/markdown"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// page is a page as load makes it, its links read from its body.
func page(path, layer, slug string, fm model.Frontmatter, body string) model.Page {
	return model.Page{Path: path, Layer: layer, Slug: slug, Date: fm.Date, Front: fm, Body: body, BodyLine: 1, Links: markdown.Read(body).Links}
}

func TestRunPages(t *testing.T) {
	pages := []model.Page{
		page("wiki/index.md", model.LayerWiki, "index", model.Frontmatter{Title: "Index"}, "Start at [the new way](new.md)."),
		page("wiki/log.md", model.LayerWiki, "log", model.Frontmatter{Title: "Log"}, ""),
		page("wiki/guides/index.md", model.LayerWiki, "guides/index", model.Frontmatter{Title: "Guides"}, ""),
		page("wiki/new.md", model.LayerWiki, "new", model.Frontmatter{
			Title: "New way", Date: "2026-11-01", Tags: []string{"ci", "arm64", "ci"}, Supersedes: []string{"wiki/old.md"},
			Relations: map[string][]string{"owner": {"person:github/marc-b"}},
			Category:  "created", Visibility: "public", ValidFrom: "2026-11-01", Aliases: []string{"The New Way"},
		}, "Replaces [the old way](old.md#steps) and [outside](https://x.test/a)."),
		page("wiki/old.md", model.LayerWiki, "old", model.Frontmatter{Title: "Old way"}, ""),
		page("wiki/replaced.md", model.LayerWiki, "replaced", model.Frontmatter{Title: "Replaced", SupersededBy: "wiki/new.md"}, ""),
		page("wiki/done.md", model.LayerWiki, "done", model.Frontmatter{Title: "Done", Status: "Done"}, ""),
		page("wiki/deprecated.md", model.LayerWiki, "deprecated", model.Frontmatter{Title: "Deprecated", Status: "deprecated"}, ""),
		page("projects/harbor.md", model.LayerProjects, "harbor", model.Frontmatter{Title: "Harbor", Status: "active", NextAction: "Ship arm64 runners"}, ""),
		page("wiki/active.md", model.LayerWiki, "active", model.Frontmatter{Title: "Not a project", Status: "active"}, ""),
		{Path: "tasks/2026-11-02/fix-ci/TASKS.md", Layer: model.LayerTasks, Slug: "fix-ci", Date: "2026-11-02", Front: model.Frontmatter{Title: "Fix CI"}, Body: "- [ ] retry"},
	}
	out := run(t, model.Base{Config: testConfig(), Pages: pages})
	if len(out.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", diagStrings(out.Diagnostics))
	}
	wantFlags := map[string][]string{
		"projects/harbor.md":               {"active"},
		"tasks/2026-11-02/fix-ci/TASKS.md": nil,
		"wiki/active.md":                   nil,
		"wiki/deprecated.md":               {"deprecated"},
		"wiki/done.md":                     {"done"},
		"wiki/guides/index.md":             nil,
		"wiki/index.md":                    {"nav"},
		"wiki/log.md":                      {"nav"},
		"wiki/new.md":                      {"created", "public"},
		"wiki/old.md":                      {"superseded"},
		"wiki/replaced.md":                 {"superseded"},
	}
	for _, it := range out.Items {
		if diff := cmp.Diff(wantFlags[it.URI], it.Flags); diff != "" {
			t.Errorf("%s flags (-want +got):\n%s", it.URI, diff)
		}
		if it.SpanOff != -1 || it.Line != 1 || it.DocPath != it.URI || it.Kind != it.Source {
			t.Errorf("%s: span %d line %d doc %s kind %s source %s", it.URI, it.SpanOff, it.Line, it.DocPath, it.Kind, it.Source)
		}
	}
	if len(out.Items) != len(wantFlags) {
		t.Errorf("%d items, want %d", len(out.Items), len(wantFlags))
	}

	nw := item(t, out, "wiki/new.md")
	if nw.Date != "2026-11-01" || nw.ValidFrom != "2026-11-01" || nw.Kind != "wiki" {
		t.Errorf("new: date %q valid_from %q kind %q", nw.Date, nw.ValidFrom, nw.Kind)
	}
	if diff := cmp.Diff([]string{"arm64", "ci"}, nw.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"https://x.test/a", "wiki/old.md#steps"}, nw.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"wiki/old.md"}, nw.Supersedes); diff != "" {
		t.Errorf("supersedes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Relation{{"owner", "person:github/marc-b"}}, nw.Relations); diff != "" {
		t.Errorf("relations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"aliases", "body", "owner", "slug", "tags", "title"}, fieldNames(nw)); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	for field, want := range map[string][]string{
		"slug":    {"new"},
		"title":   {"new", "way"},
		"aliases": {"new", "the", "way"},
		"tags":    {"arm64"},
		"owner":   {"github", "marc", "person", "person:github/marc-b"},
	} {
		if diff := cmp.Diff(want, terms(t, nw, field)); diff != "" {
			t.Errorf("new %s terms (-want +got):\n%s", field, diff)
		}
	}
	// Slugs, titles, aliases and relation values are exact identifiers;
	// a value with a space is not indexed, as no query term can equal it.
	for field, want := range map[string][]string{
		"slug":    {"=new"},
		"title":   nil,
		"aliases": nil,
		"tags":    nil,
	} {
		if diff := cmp.Diff(want, exactTerms(t, nw, field)); diff != "" {
			t.Errorf("new %s exact terms (-want +got):\n%s", field, diff)
		}
	}
	index, log, harbor := item(t, out, "wiki/index.md"), item(t, out, "wiki/log.md"), item(t, out, "projects/harbor.md")
	if f, _ := index.Field("body"); f == nil || f.Values[0] != "Start at [the new way](new.md)." {
		t.Errorf("index body field = %+v", f)
	}
	if _, ok := log.Field("body"); ok {
		t.Errorf("an empty body became a field")
	}
	if f, ok := harbor.Field("next_action"); !ok || f.Values[0] != "Ship arm64 runners" {
		t.Errorf("next_action = %+v", f)
	}
	task := item(t, out, "tasks/2026-11-02/fix-ci/TASKS.md")
	if task.Kind != "tasks" || task.Date != "2026-11-02" {
		t.Errorf("task kind %q date %q", task.Kind, task.Date)
	}
}

func TestRunNavFollowsWikiFolder(t *testing.T) {
	cfg := testConfig()
	cfg.Layers.Wiki = "kb"
	out := run(t, model.Base{Config: cfg, Pages: []model.Page{
		page("kb/index.md", model.LayerWiki, "index", model.Frontmatter{Title: "Index"}, ""),
		page("kb/log.md", model.LayerWiki, "log", model.Frontmatter{Title: "Log"}, ""),
		page("kb/other.md", model.LayerWiki, "other", model.Frontmatter{Title: "Other"}, ""),
	}})
	for _, it := range out.Items {
		if want := it.URI != "kb/other.md"; it.HasFlag(FlagNav) != want {
			t.Errorf("%s nav = %v, want %v", it.URI, it.HasFlag(FlagNav), want)
		}
	}
}

// TestPageProjectionLeavesPageAlone: projecting a page must not change the
// loaded page, since the query's scan projects the same model.Page again and
// must get the item the build indexed. Found as a bug (finish sorted and
// compacted the page's own tag slice) and fixed; the test keeps it fixed.
func TestPageProjectionLeavesPageAlone(t *testing.T) {
	pg := page("wiki/a.md", model.LayerWiki, "a", model.Frontmatter{Title: "A", Tags: []string{"zeta", "alpha", "zeta"}}, "")
	p := NewProjector(model.Base{Config: testConfig(), Pages: []model.Page{pg}})
	var s Scratch
	first := p.Page(pg, &s)
	if want := []string{"zeta", "alpha", "zeta"}; !slices.Equal(pg.Front.Tags, want) {
		t.Fatalf("projection changed the page's tags to %q, want %q", pg.Front.Tags, want)
	}
	second := p.Page(pg, &s)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("a second projection of the same page differs (-first +second):\n%s", diff)
	}
	if want := []string{"alpha", "zeta"}; !slices.Equal(first.Tags, want) {
		t.Errorf("item tags %q, want %q", first.Tags, want)
	}
}

// TestTagsAndRelationsAreOneLine: tags and relation values become graph
// nodes, each a table cell the edge tables sort by; a tab or line break in
// one would change its order once written, so projection turns them into
// spaces, and a blank tag names no node at all.
func TestTagsAndRelationsAreOneLine(t *testing.T) {
	pg := page("wiki/a.md", model.LayerWiki, "a", model.Frontmatter{
		Title: "A", Tags: []string{"b\tc", " ", "a"},
		Relations: map[string][]string{"owner": {"person:github/x\ny"}},
	}, "")
	var s Scratch
	it := NewProjector(model.Base{Config: testConfig(), Pages: []model.Page{pg}}).Page(pg, &s)
	if want := []string{"a", "b c"}; !slices.Equal(it.Tags, want) {
		t.Errorf("tags %q, want %q", it.Tags, want)
	}
	if len(it.Relations) != 1 || it.Relations[0].Value != "person:github/x y" {
		t.Errorf("relations %+v, want one with value %q", it.Relations, "person:github/x y")
	}
}

func TestLinks(t *testing.T) {
	body := strings.Join([]string{
		"# Setup",
		"See [the other page](other.md) and [the index](../index.md#top).",
		"Jump to [a section](#local-anchor), read [docs](https://x.test/a?b=c \"Docs\").",
		"Old site: [old](http://old.test/x).",
		"Write to [Marc](mailto:marc@x.test) or call [phone](tel:+331).",
		"![diagram](img/flow.png \"Flow\") and [angle](<spaced.md>)",
		"Absolute [root](/etc/passwd) and [escape](../../../outside.md) and [config](../../cairn.yaml).",
		"Twice: [other again](other.md) [( dup)](./other.md)",
		"```",
		"[in fence](fenced.md)",
		"```",
		"~~~ text",
		"[in tilde fence](tilde.md)",
		"~~~",
		"  ```go",
		"[indented fence](indented.md)",
		"  ```",
		"After the fences, [last](sub/last.md#end).",
		"In code: `[not a link](code.md)`, and a [reference link][ref] across",
		"[a line break](",
		"wrapped.md) and <https://auto.test/link>.",
		"",
		"[ref]: referenced.md",
	}, "\n")
	got := Links("wiki/guides/setup.md", body)
	want := []string{
		"cairn.yaml",
		"http://old.test/x",
		"https://auto.test/link",
		"https://x.test/a?b=c",
		"wiki/guides/img/flow.png",
		"wiki/guides/other.md",
		"wiki/guides/referenced.md",
		"wiki/guides/setup.md#local-anchor",
		"wiki/guides/spaced.md",
		"wiki/guides/sub/last.md#end",
		"wiki/guides/wrapped.md",
		"wiki/index.md#top",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Links (-want +got):\n%s", diff)
	}
}

func TestLinksNone(t *testing.T) {
	for _, body := range []string{"", "no links here", "[not a link] (x.md)", "[escape](../../x.md)", "GetTickCount[64]() and [none](<>)"} {
		if got := Links("wiki/a.md", body); len(got) != 0 {
			t.Errorf("Links(%q) = %q, want none", body, got)
		}
	}
	// A link from a top-level page to its parent leaves the layer but not the base.
	if got := Links("wiki/a.md", "[up](../projects/p.md)"); !cmp.Equal(got, []string{"projects/p.md"}) {
		t.Errorf("Links up one level = %q, want [projects/p.md]", got)
	}
}

// TestLinksRespectFenceLength: a fence closes only with the same character at
// least as long.
func TestLinksRespectFenceLength(t *testing.T) {
	for _, body := range []string{
		"```\n~~~\n[x](in-code.md)\n```\n",
		"````markdown\n```\n[x](in-code.md)\n```\n````\n",
	} {
		if got := Links("wiki/a.md", body); len(got) != 0 {
			t.Errorf("Links(%q) = %q, want none: the link is inside a code block", body, got)
		}
	}
}

// TestReReadDigest: a page or record projected again, as a query re-reads
// a candidate, has the digest the build gave it, links and the superseded
// flag another page sets included; the query compares the two to know
// the text it shows is the text the build indexed.
func TestReReadDigest(t *testing.T) {
	old := page("wiki/old.md", model.LayerWiki, "old", model.Frontmatter{Title: "Old"}, "See [the new one](new.md).\n")
	current := page("wiki/new.md", model.LayerWiki, "new", model.Frontmatter{Title: "New", Supersedes: []string{"wiki/old.md"}}, "Replaces [old](old.md) and links [out](https://x.test/a).\n")
	doc := document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields, recHAR, recDessert)
	b := model.Base{Config: testConfig(), Pages: []model.Page{old, current}, Documents: []model.Document{doc}}
	out := run(t, b)
	p := NewProjector(b)
	var s Scratch
	for _, pg := range b.Pages {
		built := item(t, out, pg.Path)
		if again := p.Page(pg, &s); again.Digest != built.Digest {
			t.Errorf("%s: re-read digest %s, built %s", pg.Path, again.Digest, built.Digest)
		}
	}
	if oldItem := item(t, out, "wiki/old.md"); !oldItem.HasFlag(FlagSuperseded) {
		t.Fatal("wiki/old.md is not superseded, so the test does not cover the flag")
	}
	for _, rec := range doc.Records {
		again, ok := p.Record(doc, rec, &s)
		if !ok {
			t.Fatalf("record at %d does not project again", rec.Offset)
		}
		if built := item(t, out, again.URI); again.Digest != built.Digest {
			t.Errorf("%s: re-read digest %s, built %s", again.URI, again.Digest, built.Digest)
		}
	}
	// A changed text gives another digest.
	edited := current
	edited.Body = "Replaces [old](old.md) and links [out](https://x.test/b).\n"
	if p.Page(edited, &s).Digest == item(t, out, current.Path).Digest {
		t.Error("a page whose link changed keeps its digest")
	}
}
