package fieldpath

import (
	"slices"
	"strings"
	"testing"
)

func decode(t testing.TB, s string) *Value {
	t.Helper()
	v, err := ParseJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

func TestEval(t *testing.T) {
	doc := decode(t, `{
		"title": "Fix retrieval",
		"n": 12345678901234567890,
		"ok": true,
		"nil": null,
		"commit": {"message": "m", "author": {"email": "marc@x.test"}},
		"labels": ["a", "b", {"x": 1}, ["nested"]],
		"people": [{"email": "p1"}, {"email": "p2"}, {"name": "no email"}],
		"odd key": "odd",
		"ünï": "unicode",
		"a.b": "dotted",
		"obj": {"k2": "v2", "k1": "v1"}
	}`)
	cases := []struct {
		path string
		want []string
	}{
		{".title", []string{"Fix retrieval"}},
		{".n", []string{"12345678901234567890"}},
		{".ok", []string{"true"}},
		{".nil", nil},
		{".missing", nil},
		{".missing.deeper[0]", nil},
		{".commit.message", []string{"m"}},
		{".commit.author.email", []string{"marc@x.test"}},
		{".commit", nil},
		{".labels", []string{"a", "b"}},
		{".labels[]", []string{"a", "b", "nested"}},
		{".labels[0]", []string{"a"}},
		{".labels[-1]", []string{"nested"}},
		{".labels[-4]", []string{"a"}},
		{".labels[9]", nil},
		{".people[].email", []string{"p1", "p2"}},
		{".people[-1].name", []string{"no email"}},
		{`."odd key"`, []string{"odd"}},
		{`."ünï"`, []string{"unicode"}},
		{`."a.b"`, []string{"dotted"}},
		{".obj[]", []string{"v1", "v2"}},
		{".title.x", nil},
	}
	for _, c := range cases {
		p, err := Parse(c.path)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.path, err)
		}
		got := p.Eval(doc, nil)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		path string
		col  int
		frag string
	}{
		{"", 1, "empty path"},
		{"title", 1, "starts with"},
		{".a..b", 4, "empty key"},
		{".a | length", 3, "unexpected space"},
		{".a|length", 3, "pipes"},
		{".a[", 3, "unclosed ["},
		{".a[x]", 3, "not an array index"},
		{".a[1:2]", 3, "not an array index"},
		{`."open`, 2, "unclosed quoted key"},
		{".a.", 4, "cannot end"},
		{".-x", 2, "unexpected"},
		{"length(.a)", 1, "starts with"},
	}
	for _, c := range cases {
		_, err := Parse(c.path)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%q) = %v, want *Error", c.path, err)
			continue
		}
		if e.Col != c.col || !strings.Contains(e.Msg, c.frag) {
			t.Errorf("Parse(%q) = col %d %q, want col %d containing %q", c.path, e.Col, e.Msg, c.col, c.frag)
		}
	}
}

// FuzzParse checks that no input crashes the parser or the evaluator and
// that an accepted path round-trips through String.
func FuzzParse(f *testing.F) {
	for _, s := range []string{".a", ".a.b[0]", ".a[]", `."x y"[-1]`, ".", "[0]", ".a[", `."\u00e9"`} {
		f.Add(s)
	}
	doc := decode(f, `{"a": {"b": [1, {"c": "d"}]}, "x y": [true, null]}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if p.String() != s {
			t.Fatalf("String() = %q, want %q", p.String(), s)
		}
		p.Eval(doc, nil)
	})
}
