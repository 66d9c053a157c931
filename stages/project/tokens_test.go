package project

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// words collects Words output as "word/runes".
func words(s string) []string {
	out := []string{}
	Words(s, func(w string, runes int) { out = append(out, fmt.Sprintf("%s/%d", w, runes)) })
	return out
}

func idents(s string) []string {
	out := []string{}
	Identifiers(s, func(id string) { out = append(out, id) })
	return out
}

func TestWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"  \t\n ", []string{}},
		{"Fix the Harbor build", []string{"fix/3", "the/3", "harbor/6", "build/5"}},
		{"a I ok to", []string{"a/1", "i/1", "ok/2", "to/2"}},
		{"HAR-142: arm64 runners", []string{"har/3", "142/3", "arm64/5", "runners/7"}},
		{"snake_case and __init__", []string{"snake_case/10", "and/3", "__init__/8"}},
		{"Café CRÈME brûlée", []string{"café/4", "crème/5", "brûlée/6"}},
		{"ÉCOLE Ελληνικά Москва", []string{"école/5", "ελληνικά/8", "москва/6"}},
		// e + U+0301 combining acute stays inside the word and counts as a rune.
		{"cafe\u0301 ok", []string{"cafe\u0301/5", "ok/2"}},
		{"\u0301lead", []string{"\u0301lead/5"}},
		{"日本語の文章", []string{"日本語の文章/6"}},
		{"٣ apples ১২৩", []string{"٣/1", "apples/6", "১২৩/3"}},
		{"repo:github.com/acme/harbor", []string{"repo/4", "github/6", "com/3", "acme/4", "harbor/6"}},
		{"marc@x.test,", []string{"marc/4", "x/1", "test/4"}},
		{"end.", []string{"end/3"}},
		{"emoji🙂between", []string{"emoji/5", "between/7"}},
		{"x—y", []string{"x/1", "y/1"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, words(c.in)); diff != "" {
			t.Errorf("Words(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"see repo:github.com/acme/harbor now", []string{"repo:github.com/acme/harbor"}},
		{"ping marc@x.test, then leave", []string{"marc@x.test"}},
		{"Mail <Marc@X.Test>.", []string{"marc@x.test"}},
		{"fixed in (HAR-142)", []string{"har-142"}},
		{"tickets HAR-142, HAR-7; done", []string{"har-142", "har-7"}},
		{"https://x.test/a?b=c", []string{"https://x.test/a?b=c"}},
		{"read https://x.test/a?b=c.", []string{"https://x.test/a?b=c"}},
		{"path repo:github.com/acme/harbor/ here", []string{"repo:github.com/acme/harbor"}},
		{"v1.2.3 released", []string{"v1.2.3"}},
		{"person:email/marc@x.test", []string{"person:email/marc@x.test"}},
		{"wiki/café-crème.md", []string{"wiki/café-crème.md"}},
		{"plain words are not identifiers", []string{}},
		{"hello. world! C# 50% a+b x=y", []string{}},
		{"--- ... /// @@@", []string{}},
		// The shortest identifier: one rune each side of a mark.
		{"x-y a.b é/ü", []string{"x-y", "a.b", "é/ü"}},
		// Trimming leaves fewer than two runes, or no mark inside.
		{"-x- .a @b: /c/", []string{}},
		{"~/notes/todo.md", []string{"notes/todo.md"}},
		{"a:b:c", []string{"a:b:c"}},
		{"TODO:", []string{}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, idents(c.in)); diff != "" {
			t.Errorf("Identifiers(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestIsIdentifierShaped(t *testing.T) {
	for term, want := range map[string]bool{
		"har-142": true, "a.b": true, "repo:x": true, "marc@x": true, "a/b": true,
		"harbor": false, "snake_case": false, "c#": false, "": false,
	} {
		if got := IsIdentifierShaped(term); got != want {
			t.Errorf("IsIdentifierShaped(%q) = %v, want %v", term, got, want)
		}
	}
}

func TestExact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"Acme Harbor", "acme harbor"},
		{"  Acme   Harbor\t\n", "acme harbor"},
		{"line\r\nbreak", "line break"},
		{"nul\x00byte", "nul byte"},
		{"bell\x07\x1fseparated", "bell separated"},
		{"ÉCOLE  Normale", "école normale"},
		{"person:email/Marc@X.test", "person:email/marc@x.test"},
		{"nbsp\u00a0space", "nbsp space"},
		{"HAR-142", "har-142"},
		{"har-142", "har-142"},
		{"del\x7fbyte", "del byte"},
		{"person:email/marc@x.test", "person:email/marc@x.test"},
	}
	for _, c := range cases {
		if got := Exact(c.in); got != c.want {
			t.Errorf("Exact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzExact checks Exact, whose already-normal values skip the folding,
// against the folding itself.
func FuzzExact(f *testing.F) {
	for _, s := range []string{"", "har-142", "HAR-142", "a b", "a\x7f", "é", "x\u2028y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
		if got, want := Exact(s), strings.ToLower(strings.Join(fields, " ")); got != want {
			t.Fatalf("Exact(%q) = %q, want %q", s, got, want)
		}
	})
}

func TestEncodeID(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"HAR-142", "HAR-142"},
		{"AZaz09._:/@+-", "AZaz09._:/@+-"},
		{"café/crème?brûlée%20#1", "caf%C3%A9/cr%C3%A8me%3Fbr%C3%BBl%C3%A9e%2520%231"},
		{"a b", "a%20b"},
		{"100%", "100%25"},
		{"#", "%23"},
		{"?&=;,", "%3F%26%3D%3B%2C"},
		{"~!$'()*", "%7E%21%24%27%28%29%2A"},
		{"\"<>\\^`{|}[]", "%22%3C%3E%5C%5E%60%7B%7C%7D%5B%5D"},
		{"\x00\t\n\r\x1f\x7f", "%00%09%0A%0D%1F%7F"},
		{"\xff\x80", "%FF%80"},
		{"日", "%E6%97%A5"},
		{"person:email/marc@x.test", "person:email/marc@x.test"},
	}
	for _, c := range cases {
		if got := EncodeID(c.in); got != c.want {
			t.Errorf("EncodeID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Every byte: kept exactly when it is in the unreserved set.
	for b := 0; b < 256; b++ {
		s := string([]byte{byte(b)})
		keep := b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || strings.IndexByte("._:/@+-", byte(b)) >= 0
		want := fmt.Sprintf("%%%02X", b)
		if keep {
			want = s
		}
		if got := EncodeID(s); got != want {
			t.Errorf("EncodeID(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestEntitySuffix(t *testing.T) {
	cases := []struct{ in, want string }{
		{"person:email/marc@x.test", "marc@x.test"},
		{"repo:github.com/acme/harbor", "harbor"},
		{"person:github/marc-b", "marc-b"},
		{"tag:ci/arm64", "arm64"},
		{"person:marc", ""},
		{"repo:github.com/acme/", ""},
		{"https://x.test/a", ""},
		{"http://x.test/a", ""},
		{"file://host/a/b", ""},
		{"mailto:marc@x.test", ""},
		{":x/y", ""},
		{"wiki/a.md", ""},
		{"marc@x.test", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := EntitySuffix(c.in); got != c.want {
			t.Errorf("EntitySuffix(%q) = %q, want %q", c.in, got, c.want)
		}
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
	}, "\n")
	got := Links("wiki/guides/setup.md", body)
	want := []string{
		"cairn.yaml",
		"http://old.test/x",
		"https://x.test/a?b=c",
		"wiki/guides/img/flow.png",
		"wiki/guides/other.md",
		"wiki/guides/setup.md#local-anchor",
		"wiki/guides/spaced.md",
		"wiki/guides/sub/last.md#end",
		"wiki/index.md#top",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Links (-want +got):\n%s", diff)
	}
}

func TestLinksNone(t *testing.T) {
	for _, body := range []string{"", "no links here", "[not a link] (x.md)", "[escape](../../x.md)"} {
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

// TestRuneClass: the class table says what isWordRune, isIdentRune and
// identMarks say, for every rune of the Basic Multilingual Plane.
func TestRuneClass(t *testing.T) {
	for r := rune(0); r <= 0xffff; r++ {
		c := runeClass(r)
		if c&classWord != 0 != isWordRune(r) || c&classIdent != 0 != isIdentRune(r) || c&classMark != 0 != strings.ContainsRune(identMarks, r) {
			t.Fatalf("rune %U: class %03b, word %v ident %v mark %v", r, c, isWordRune(r), isIdentRune(r), strings.ContainsRune(identMarks, r))
		}
	}
}
