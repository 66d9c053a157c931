package load

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// yamlDiags decodes src into out and returns the sorted diagnostics as
// printed lines.
func yamlDiags(t *testing.T, src string, firstLine int, out any) ([]string, bool) {
	t.Helper()
	var ds diag.List
	_, ok := decodeYAML("cairn.yaml", []byte(src), firstLine, out, &ds)
	var got []string
	for _, d := range ds.Sorted() {
		got = append(got, d.String())
	}
	if ok == ds.HasErrors() {
		t.Errorf("ok = %v but HasErrors = %v", ok, ds.HasErrors())
	}
	return got, ok
}

func TestYAMLDecodesValidInput(t *testing.T) {
	src := "schema:\n  title:\n    weight: 7\n    relation: false\ncontent: ['docs/**/*.md']\ngovernance:\n  points:\n    - name: web\n      paths: [web/**]\n"
	var cfg model.Config
	got, ok := yamlDiags(t, src, 1, &cfg)
	if !ok || len(got) != 0 {
		t.Fatalf("ok=%v diags=%v", ok, got)
	}
	if cfg.Schema["title"].Weight != 7 || cfg.Content[0] != "docs/**/*.md" || cfg.Governance.Points[0].Paths[0] != "web/**" {
		t.Errorf("decoded %+v", cfg)
	}
}

func TestYAMLEmptyInput(t *testing.T) {
	for _, src := range []string{"", "\n\n", "# only a comment\n", "~\n", "null", "---\n", "---\n...\n"} {
		var cfg model.Config
		got, ok := yamlDiags(t, src, 1, &cfg)
		if !ok || len(got) != 0 {
			t.Errorf("%q: ok=%v diags=%v", src, ok, got)
		}
		if cfg.Schema != nil || cfg.Content != nil {
			t.Errorf("%q: decoded %+v, want the zero value", src, cfg)
		}
	}
}

func TestYAMLUnknownKeyTopLevel(t *testing.T) {
	var cfg model.Config
	got, ok := yamlDiags(t, "content: []\nschemas:\n  id: {}\n", 1, &cfg)
	want := []string{`cairn.yaml:2:1: error: unknown key "schemas" at the top level; known keys: check, content, governance, identities, layers, name, schema, sources [unknown-key]`}
	if ok || !cmp.Equal(got, want) {
		t.Errorf("ok=%v diff (-want +got):\n%s", ok, cmp.Diff(want, got))
	}
}

func TestYAMLUnknownKeyInMapOfStruct(t *testing.T) {
	var cfg model.Config
	got, _ := yamlDiags(t, "schema:\n  title:\n    wieght: 3\n", 1, &cfg)
	want := []string{`cairn.yaml:3:5: error: unknown key "wieght" in schema.title; known keys: cardinality, description, examples, relation, weight [unknown-key]`}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestYAMLUnknownKeyInListOfStruct(t *testing.T) {
	var cfg model.Config
	src := "governance:\n  points:\n    - name: a\n      paths: [a/**]\n    - name: b\n      path: [b/**]\n"
	got, _ := yamlDiags(t, src, 1, &cfg)
	want := []string{`cairn.yaml:6:7: error: unknown key "path" in governance.points[1]; known keys: axes, name, paths, valid_from, valid_until, voice [unknown-key]`}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestYAMLReportsEveryProblem(t *testing.T) {
	var cfg model.Config
	src := strings.Join([]string{
		"colour: red",            // 1 unknown top-level key
		"schema:",                // 2
		"  id:",                  // 3
		"    weight: heavy",      // 4 type error
		"    wieght: 2",          // 5 unknown nested key
		"layers:",                // 6
		"  wikis: w",             // 7 unknown key in a struct field
		"sources:",               // 8
		"  git:",                 // 9
		"    recency:",           // 10
		"      half_life: 3",     // 11 unknown key two levels down
		"content: docs/**",       // 12 a string where a list belongs
		"identities:",            // 13
		"  marc: [a, b]",         // 14 a list where a mapping belongs
		"governance:",            // 15
		"  caps: {rules: 1.5}",   // 16 a float where an int belongs
		"  default_voice: plain", // 17
	}, "\n") + "\n"
	got, ok := yamlDiags(t, src, 1, &cfg)
	want := []string{
		`cairn.yaml:1:1: error: unknown key "colour" at the top level; known keys: check, content, governance, identities, layers, name, schema, sources [unknown-key]`,
		`cairn.yaml:4:13: error: wrong type for schema.id.weight: expected an integer, found "heavy"; write an integer instead [yaml-type]`,
		`cairn.yaml:5:5: error: unknown key "wieght" in schema.id; known keys: cardinality, description, examples, relation, weight [unknown-key]`,
		`cairn.yaml:7:3: error: unknown key "wikis" in layers; known keys: bodies, events, governance, index, projects, tasks, wiki [unknown-key]`,
		`cairn.yaml:11:7: error: unknown key "half_life" in sources.git.recency; known keys: half_life_days [unknown-key]`,
		`cairn.yaml:12:10: error: wrong type for content: expected a list, found "docs/**"; write a list instead [yaml-type]`,
		`cairn.yaml:14:9: error: wrong type for identities.marc: expected a mapping, found a list; write a mapping instead [yaml-type]`,
		`cairn.yaml:16:17: error: wrong type for governance.caps.rules: expected an integer, found "1.5"; write an integer instead [yaml-type]`,
	}
	if ok || !cmp.Equal(got, want) {
		t.Errorf("ok=%v diff (-want +got):\n%s", ok, cmp.Diff(want, got))
	}
	if cfg.Governance.DefaultVoice != "plain" {
		t.Errorf("the valid parts should still decode; default_voice = %q", cfg.Governance.DefaultVoice)
	}
}

func TestYAMLSyntaxErrorLines(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
	}{
		{"tab indentation", "schema:\n  id: {}\n\t- x\n", 3},
		{"mapping in a scalar", "content: []\nschema:\n  id: 1\n   x: 2\n", 4},
		{"unclosed flow list", "layers: {}\ncontent: [a, b\nschema: {}\n", 2},
		{"sequence item in a mapping", "layers: {}\n- x\n", 2},
		{"dedented key", "schema:\n  id:\n    weight: 1\n  title:\n    weight: 2\n weird: 3\n", 6},
		{"first line", "a: b: c\n", 1},
		{"unclosed quote", "content: []\nlayers:\n  wiki: \"w\n", 3},
		{"unknown anchor", "content: []\nschema: *nowhere\n", 2},
		{"second document", "content: []\n---\nschema: {}\n", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ds diag.List
			root, ok := decodeYAML("cairn.yaml", []byte(tc.src), 1, &model.Config{}, &ds)
			got := ds.Sorted()
			if ok || root != nil || len(got) != 1 {
				t.Fatalf("ok=%v root=%v diags=%v", ok, root, got)
			}
			if got[0].Code != "yaml-syntax" || got[0].Line != tc.line {
				t.Errorf("got %s, want line %d [yaml-syntax]", got[0], tc.line)
			}
		})
	}
}

func TestYAMLFirstLineOffset(t *testing.T) {
	// Frontmatter that starts on line 2 of its page (after the opening ---).
	var fm model.Frontmatter
	got, _ := yamlDiags(t, "title: T\ntags: x\n", 2, &fm)
	want := []string{`cairn.yaml:3:7: error: wrong type for tags: expected a list, found "x"; write a list instead [yaml-type]`}
	if !cmp.Equal(got, want) {
		t.Errorf("type error: diff (-want +got):\n%s", cmp.Diff(want, got))
	}

	var cfg model.Config
	got, _ = yamlDiags(t, "content: []\nextra: 1\n", 10, &cfg)
	if len(got) != 1 || !strings.HasPrefix(got[0], "cairn.yaml:11:1: error: unknown key \"extra\"") {
		t.Errorf("unknown key: got %v, want it on line 11", got)
	}

	var ds diag.List
	decodeYAML("page.md", []byte("title: T\nbad: [\n"), 2, &fm, &ds)
	if d := ds.Sorted(); len(d) != 1 || d[0].Line < 3 || d[0].Code != "yaml-syntax" {
		t.Errorf("syntax error: got %v, want one yaml-syntax at line 3 or later", d)
	}
}

func TestYAMLTypeErrors(t *testing.T) {
	var terms []model.Term
	got, _ := yamlDiags(t, "id: t1\nterm: x\n", 1, &terms)
	want := []string{`cairn.yaml:1:1: error: wrong type for the top level: expected a list, found a mapping; write a list instead [yaml-type]`}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}

	var cfg model.Config
	got, _ = yamlDiags(t, "schema:\n  id:\n    relation: maybe\n", 1, &cfg)
	want = []string{`cairn.yaml:3:15: error: wrong type for schema.id.relation: expected true or false, found "maybe"; write true or false instead [yaml-type]`}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestYAMLDuplicateKey(t *testing.T) {
	var cfg model.Config
	got, _ := yamlDiags(t, "layers:\n  wiki: a\n  wiki: b\n", 1, &cfg)
	want := []string{`cairn.yaml:3:3: error: key "wiki" appears twice in layers (first on line 2); keep one [duplicate-key]`}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestYAMLAliasesAndMerges(t *testing.T) {
	src := "schema:\n  base: &b\n    weight: 2\n    wieght: 3\n  id: *b\n  title:\n    <<: *b\n    relation: true\n"
	var cfg model.Config
	got, _ := yamlDiags(t, src, 1, &cfg)
	// The anchored mapping is checked once, however often it is used.
	want := []string{`cairn.yaml:4:5: error: unknown key "wieght" in schema.base; known keys: cardinality, description, examples, relation, weight [unknown-key]`}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
	if cfg.Schema["title"].Weight != 2 || !cfg.Schema["title"].Relation {
		t.Errorf("merge not applied: %+v", cfg.Schema["title"])
	}
}

func TestYAMLInlineAndPointers(t *testing.T) {
	type inner struct {
		N int `yaml:"n"`
	}
	type withExtras struct {
		Title  string         `yaml:"title"`
		Ptr    *inner         `yaml:"ptr"`
		List   []*inner       `yaml:"list"`
		Extras map[string]int `yaml:",inline"`
	}
	var v withExtras
	got, _ := yamlDiags(t, "title: x\nptr: {n: 1, m: 2}\nlist: [{n: 1}, {k: 2}]\nanything: 3\nother: no\n", 1, &v)
	want := []string{
		`cairn.yaml:2:13: error: unknown key "m" in ptr; known keys: n [unknown-key]`,
		`cairn.yaml:3:17: error: unknown key "k" in list[1]; known keys: n [unknown-key]`,
		`cairn.yaml:5:8: error: wrong type for other: expected an integer, found "no"; write an integer instead [yaml-type]`,
	}
	if !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
	if v.Extras["anything"] != 3 || v.Ptr.N != 1 {
		t.Errorf("decoded %+v", v)
	}
}

func TestYAMLInvalidUTF8(t *testing.T) {
	var cfg model.Config
	got, ok := yamlDiags(t, "content: []\nlayers:\n  wiki: \xff\n", 1, &cfg)
	want := []string{`cairn.yaml:3:9: error: the YAML is not valid UTF-8; save the file as UTF-8 [yaml-syntax]`}
	if ok || !cmp.Equal(got, want) {
		t.Errorf("diff (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestYAMLReturnsRootNode(t *testing.T) {
	var ds diag.List
	root, ok := decodeYAML("cairn.yaml", []byte("content: []\ngovernance:\n  default_voice: x\n"), 1, &model.Config{}, &ds)
	if !ok || root == nil || len(root.Content) != 4 || root.Content[2].Value != "governance" || root.Content[2].Line != 2 {
		t.Fatalf("root = %+v", root)
	}
}

// FuzzDecodeYAML checks that no input crashes the decoder and that ok
// agrees with the diagnostics.
func FuzzDecodeYAML(f *testing.F) {
	for _, seed := range []string{
		"", "schema:\n  id: {weight: 3}\n", "a: b: c\n", "x: &a [*a]\n", "layers:\n  wiki: a\n  wiki: b\n",
		"governance:\n  points:\n    - <<: {name: a}\n      paths: [a]\n", "content: [\n", "schema: {id: {weight: 1.5}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ds diag.List
		var cfg model.Config
		if _, ok := decodeYAML("cairn.yaml", data, 1, &cfg, &ds); ok == ds.HasErrors() {
			t.Fatalf("ok = %v with diagnostics %v", ok, ds.Sorted())
		}
	})
}
