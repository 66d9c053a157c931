package load

import (
	"io/fs"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/golden"
	"github.com/cairn-kb/cairn/stages/diag"
)

// decodeBoth decodes a page's bytes with the quick path allowed and with
// the YAML library alone, and reports any difference in what a caller
// sees: the frontmatter (with its point position), body, body line, ok
// and diagnostics. quick says whether the quick path took it.
func decodeBoth(t *testing.T, data string) (quick bool) {
	t.Helper()
	type result struct {
		fm       frontmatter
		body     string
		bodyLine int
		ok       bool
		diags    []diag.Diagnostic
	}
	run := func(allow bool) result {
		defer func(was bool) { quickYAML = was }(quickYAML)
		quickYAML = allow
		var ds diag.List
		fm, body, line, ok := decodeFrontmatter("wiki/p.md", []byte(data), &ds)
		return result{fm, string(body), line, ok, ds.Sorted()}
	}
	fast, slow := run(true), run(false)
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("quick and YAML decodes differ for\n%s\nquick: %+v\nyaml:  %+v", data, fast, slow)
	}
	yml, _, _, found, ok := splitFrontmatter("wiki/p.md", []byte(data), &diag.List{})
	if !found || !ok {
		return false
	}
	_, _, quick = quickFrontmatter(yml)
	return quick
}

// TestQuickFrontmatterCases: shapes the quick path takes, and shapes it
// must leave to the YAML library, all decoded as the library does.
func TestQuickFrontmatterCases(t *testing.T) {
	for _, c := range []struct {
		yml   string
		quick bool
	}{
		{`title: "Accessibility Test"`, true},
		{"title: Retention policy v1\nstatus: superseded", true},
		{"title: 'single quoted'\ndate: 2026-10-26", true},
		{"tags: [gateway, \"two words\", 'x']", true},
		{"tags: []", true},
		{"tags:\n- a\n- b\ntitle: x", true},
		{"tags:\n  - a\n  - \"b, c\"\n\ntitle: x", true},
		{"relations:\n  repo: [\"repo:github.com/acme/beacon\"]\n  owner: [\"person:email/j@acme.test\", 'p']", true},
		{"relations:\n  repo:\n    - repo:github.com/acme/x\n  owner:\n  - a", true},
		{"relations:\n  Repo: [a]", false},
		{"relations:\n  repo_1: [a]\ndescription: x", true},
		{"date: 2026-13-45\nvalid_from: 2026-01-02\nvalid_until: 2026-01-01", true}, // reported at keys
		{"category: nonsense\nvisibility: secret", true},
		{"point: docs", true},
		{"# a comment\ntitle: x\n  # indented comment\ntags:\n  # inside\n  - a", true},
		{"title: 123\ndescription: true\ntype: null", false},
		{"title: x # trailing comment", false},
		{`title: "esc\"aped"`, false},
		{"title: it's", true},
		{"title: 'it''s'", false},
		{"title: a: b", false},
		{"title:\n  folded\n  plain", false},
		{"title: |\n  block", false},
		{"title: &a x\ndescription: *a", false},
		{"title: !!str x", false},
		{"extra: 1\ntitle: x", false},
		{"title: x\ntitle: y", false},
		{"tags: x", false},
		{"tags: [a, [b]]", false},
		{"tags: [a,]", false},
		{"tags: [a: b]", false},
		{"tags: [repo:github.com/x]", true},
		{"tags:", false},
		{"tags:\n-a", false},
		{"relations: {}", false},
		{"relations:\n  repo: x", false},
		{"relations:\n  repo: [a]\n  repo: [b]", false},
		{"relations:\n  yes: [a]", false},
		{"relations:\n  repo: [a]\n   owner: [b]", false},
		{"title:\tx", false},
		{"title: x\r", false},
		{"Title: x", false},
		{"title : x", false},
		{"title:x", false},
		{"  title: x", false},
		{"- a\n- b", false},
		{"title: ~", false},
		{"title: -1", false},
		{"title: é à ü", true},
		{"", true},
	} {
		data := "---\n" + c.yml + "\n---\n# Body\n\ntext\n"
		if got := decodeBoth(t, data); got != c.quick {
			t.Errorf("quick path %v, want %v, for\n%s", got, c.quick, c.yml)
		}
	}
}

// TestQuickFrontmatterRandom decodes thousands of frontmatters put
// together from pieces, quick-shaped and not, and checks the two decodes
// agree on every one, and that the quick path took a fair share.
func TestQuickFrontmatterRandom(t *testing.T) {
	keys := []string{"title", "description", "type", "status", "date", "valid_from", "valid_until", "reviewed", "due",
		"category", "visibility", "point", "superseded_by", "next_action", "blocker", "tags", "aliases", "supersedes", "relations", "other"}
	// The first pieces of each list are quick-shaped, the last ones not;
	// picks favour the first, so both paths get a fair share.
	scalars := []string{`"quoted text"`, `'single'`, `plain words`, `2026-10-26`, `2026-02-30`, `received`, `private`,
		`"with, comma"`, `x:y`, `"a # b"`, `a#b`, `.5`, `yes`, `é`, `~`, `"esc\n"`, `-dash`, `[flow]`, `"`, ``}
	items := []string{`a`, `"b c"`, `'d'`, `repo:github.com/acme/x`, `"person:email/m@x.test"`, `1`, `null`, `[x]`, `"`}
	names := []string{"repo", "owner", "team-1", "x_y", "Owner", "on", "9z"}
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(s []string) string { return s[min(rng.IntN(len(s)), rng.IntN(len(s)))] }
	list := func(indent string) string {
		var b strings.Builder
		n := rng.IntN(3)
		if rng.IntN(2) == 0 {
			b.WriteString(" [")
			for i := range n {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(pick(items))
			}
			b.WriteString("]")
			return b.String()
		}
		for range n + 1 {
			b.WriteString("\n" + indent + "- " + pick(items))
		}
		return b.String()
	}
	quick := 0
	const runs = 3000
	for range runs {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			k := pick(keys)
			switch k {
			case "tags", "aliases", "supersedes":
				b.WriteString(k + ":" + list(pick([]string{"", "  ", "    "})))
			case "relations":
				b.WriteString(k + ":")
				for range 1 + rng.IntN(3) {
					b.WriteString("\n  " + pick(names) + ":" + list(pick([]string{"  ", "    ", ""})))
				}
			default:
				b.WriteString(k + ": " + pick(scalars))
			}
			b.WriteString(pick([]string{"\n", "\n\n", "\n# note\n", " # trailing\n", "\n\t\n"}))
		}
		if decodeBoth(t, "---\n"+b.String()+"---\nbody\n") {
			quick++
		}
	}
	if quick < runs/5 || quick > runs*4/5 {
		t.Errorf("the quick path took %d of %d frontmatters; the pieces should give both paths a fair share", quick, runs)
	}
	t.Logf("quick path: %d of %d", quick, runs)
}

// TestQuickFrontmatterDemoPages: the demo base's pages, written as people
// write frontmatter, decode on the quick path, and as the library would.
func TestQuickFrontmatterDemoPages(t *testing.T) {
	demo := golden.Demo()
	pages, quick := 0, 0
	err := fs.WalkDir(demo, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || !strings.Contains(p, "/") {
			return err
		}
		data, err := fs.ReadFile(demo, p)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(string(data), "---\n") {
			return nil
		}
		pages++
		if decodeBoth(t, string(data)) {
			quick++
		} else {
			t.Logf("%s: left to the YAML library", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages == 0 || quick*10 < pages*8 {
		t.Errorf("the quick path took %d of the demo's %d pages with frontmatter, want at least 80%%", quick, pages)
	}
	t.Logf("demo pages on the quick path: %d of %d", quick, pages)
}

// FuzzQuickFrontmatter: whatever the frontmatter, the quick path never
// decodes it differently from the YAML library.
func FuzzQuickFrontmatter(f *testing.F) {
	for _, s := range []string{"title: x", "tags: [a, 'b']", "relations:\n  repo:\n  - a", "tags:\n- a\ntitle: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, yml string) {
		if strings.Contains(yml, "\n---") || strings.Contains(yml, "\n...") {
			return // the frontmatter would end there
		}
		decodeBoth(t, "---\n"+yml+"\n---\nbody\n")
	})
}
