package load

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"testing/fstest"
)

// configErrors reads a cairn.yaml and returns its diagnostics, a line each.
func configErrors(t *testing.T, yaml string) string {
	t.Helper()
	_, ds := ReadConfig(fstest.MapFS{ConfigFile: {Data: []byte(yaml)}})
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// TestCollectConfig: the collection keys of a source are checked where
// they are written, and a valid source has no diagnostic.
func TestCollectConfig(t *testing.T) {
	ok := "sources:\n  tickets:\n    run: [python3, t.py]\n    fields: {id: .key, title: .t, time: [.at, .opened]}\n    timeout: 90s\n  app: {collector: git, path: ../app}\n  git: {recency: {half_life_days: 7}}\n  snap: {run: [x], layer: index, fields: {id: .id, title: .t}}\n"
	if got := configErrors(t, ok); got != "" {
		t.Errorf("a valid configuration: %s", got)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"sources:\n  t:\n    run: [x]\n    fields: {id: .id, title: .t}\n", `cairn.yaml:3:5: error: source "t" has a command but its fields map does not map "time"`},
		{"sources:\n  t:\n    run: [x, '']\n    fields: {id: .id, title: .t, time: .at}\n", `cairn.yaml:3:14: error: word 2 of the command of source "t" is empty`},
		{"sources:\n  t:\n    run: [x]\n    fields: {id: .id, title: .t, time: at}\n", `cairn.yaml:4:34: error: field "time" of source "t", path "at"`},
		{"sources:\n  t:\n    run: [x]\n    timeout: soon\n    fields: {id: .id, title: .t, time: .at}\n", `cairn.yaml:4:5: error: timeout "soon" of source "t"`},
		{"sources:\n  t:\n    run: [x]\n    layer: daily\n    fields: {id: .id, title: .t}\n", `cairn.yaml:4:5: error: layer "daily" of source "t"`},
		{"sources:\n  t: {collector: svn}\n", `cairn.yaml:2:7: error: collector "svn" of source "t"; the built-in collectors are git, markdown`},
		{"sources:\n  git: {fields: {id: .x}}\n", `source "git" uses the git collector, which writes its own fields map; remove fields`},
		{"sources:\n  t: {path: notes}\n", `path is what a built-in collector reads, and source "t" has none`},
		{"sources:\n  t: {timeout: 5s}\n", `source "t" sets how it is collected (fields, layer or timeout) but has no run command`},
		{"sources:\n  t: {rn: [x]}\n", `unknown key "rn" in sources.t`},
	} {
		if got := configErrors(t, tc.yaml); !strings.Contains(got, tc.want) {
			t.Errorf("%q:\ngot  %s\nwant %s", tc.yaml, got, tc.want)
		}
	}
}

// TestCollectKeysLeaveSemantics: how a source is collected never changes
// how it ranks, so the semantics digest ignores it.
func TestCollectKeysLeaveSemantics(t *testing.T) {
	read := func(yaml string) string {
		cfg, ds := ReadConfig(fstest.MapFS{ConfigFile: {Data: []byte(yaml)}})
		if len(ds) > 0 {
			t.Fatalf("%q: %v", yaml, ds)
		}
		return SemanticsDigest(cfg)
	}
	plain := read("sources:\n  t: {recency: {half_life_days: 7}}\n")
	collected := read("sources:\n  t:\n    recency: {half_life_days: 7}\n    run: [python3, t.py]\n    timeout: 1m\n    fields: {id: .id, title: .t, time: .at}\n")
	if plain != collected {
		t.Errorf("adding run, timeout and fields changed the semantics digest: %s → %s", plain, collected)
	}
	if read("sources:\n  t: {recency: {half_life_days: 8}}\n") == plain {
		t.Error("a recency change left the digest as it was")
	}
}

// TestFkfConfig: fkf.yaml alone configures the base; a layer set to false
// is off; a source with a command keeps its fields map for collect.
func TestFkfConfig(t *testing.T) {
	fsys := fstest.MapFS{FkfConfigFile: {Data: []byte("schema:\n  repo: {relation: true}\nlayers: {wiki: true, projects: false}\nsources:\n  a: {fields: {id: .id}, recency: {half_life_days: 3}}\n  b: {run: [x], fields: {id: .id, title: .t, time: .at}}\n")}}
	cfg, ds := ReadConfig(fsys)
	if len(ds) > 0 {
		t.Fatalf("fkf.yaml: %v", ds)
	}
	if !cfg.Schema["repo"].Relation || cfg.Sources["a"].Recency.HalfLifeDays != 3 || len(cfg.Sources["a"].Fields) != 0 || len(cfg.Sources["b"].Fields) != 3 {
		t.Errorf("decoded %+v", cfg)
	}
	if !cfg.IsOff("projects/p.md") || cfg.IsOff("wiki/p.md") {
		t.Errorf("layers off: %v", cfg.LayersOff)
	}
	both := fstest.MapFS{ConfigFile: {Data: []byte("schema: {}\n")}, FkfConfigFile: {Data: []byte("bogus: 1\n")}}
	if _, ds := ReadConfig(both); len(ds) > 0 {
		t.Errorf("with cairn.yaml there, fkf.yaml is fkf's alone, but it was read: %v", ds)
	}
}

// TestFkfConfigMistakes: the keys fkf documents are read, and a value fkf
// would refuse is an error naming the file, the line and what to write.
func TestFkfConfigMistakes(t *testing.T) {
	cfg := `fkf: 2
sources:
  a:
    enabled: true
    run: [x, "{{Date}}", "{{start}}-{{end"]
    format: xml
    fields: {id: .id, time: .at}
  b:
    run: [y, "{{date}}"]
    format: ndjson
    records: .items
    fields: {id: .id, time: .at}
`
	_, ds := ReadConfig(fstest.MapFS{FkfConfigFile: {Data: []byte(cfg)}})
	want := []string{
		`fkf.yaml:1:1: error: fkf: 2 is not a configuration contract this cairn reads; it reads fkf: 1 [wrong-marker]`,
		`fkf.yaml:5:14: error: word 2 of the command of source "a": {{Date}} is not a placeholder; the placeholders are {{date}}, {{next_date}}, {{start}}, {{end}}, {{base}}, {{home}} [bad-run]`,
		`fkf.yaml:5:26: error: word 3 of the command of source "a": "{{start}}-{{end" opens {{ and never closes it [bad-run]`,
		`fkf.yaml:6:5: error: format "xml" of source "a"; use json (one array, or an object holding it) or ndjson (one record a line) [bad-format]`,
		`fkf.yaml:11:5: error: source "b" prints ndjson, one record a line, so there is no wrapper for records to select; remove records [bad-records]`,
	}
	if diff := cmp.Diff(want, diagLines(ds)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestFkfSourceEnabled: fkf runs only the sources fkf.yaml enables, so an
// fkf source without enabled: true is read but never collected; an
// enabled one keeps its command the fkf way, with the sync timeout for
// one of its own.
func TestFkfSourceEnabled(t *testing.T) {
	cfg, ds := ReadConfig(fstest.MapFS{FkfConfigFile: {Data: []byte(`sources:
  on: {enabled: true, run: [x], body: [x, show, "{{id}}"], fields: {id: .id, time: .at}}
  off: {run: [y], fields: {id: .id, time: .at}}
sync: {timeout: 3m}
`)}})
	if len(ds) > 0 {
		t.Fatalf("fkf.yaml: %v", ds)
	}
	on, off := cfg.Sources["on"], cfg.Sources["off"]
	if on.Disabled || !on.Placeholders || !on.BodyDeclared || on.Timeout != "3m" {
		t.Errorf("enabled source: %+v", on)
	}
	if !off.Disabled || off.BodyDeclared {
		t.Errorf("source without enabled: %+v", off)
	}
}

// TestCheckIgnoreMistakes: a check.ignore entry without paths, with a glob
// that does not compile or a rule that is no rule id is refused at its
// line, saying what to write.
func TestCheckIgnoreMistakes(t *testing.T) {
	got := configErrors(t, "check:\n  ignore:\n    - rules: [terms]\n    - paths: [\"docs/[a\"]\n    - paths: [docs/**]\n      rules: [\"terms forbidden\"]\n")
	want := strings.Join([]string{
		`cairn.yaml:3:7: error: check.ignore entry 1 has no paths; give the files it is for, like paths: [docs/style-guide.md] [bad-ignore]`,
		`cairn.yaml:4:7: error: check.ignore entry 2: path "docs/[a" is not a valid doublestar pattern; fix its brackets or braces [bad-glob]`,
		`cairn.yaml:5:7: error: check.ignore entry 3: rule "terms forbidden" is not a rule id; write one as findings show it, like terms.forbidden:sprint, or its start, like terms [bad-ignore]`,
	}, "\n")
	if got != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
	if got := configErrors(t, "check:\n  ignore:\n    - paths: [docs/style-guide.md]\n      rules: [terms, voice.prohibited:docs]\n"); got != "" {
		t.Errorf("a valid check.ignore: %s", got)
	}
}

// TestFkfRecordsPathMistake: a records path outside the field-path subset
// is refused at its key.
func TestFkfRecordsPathMistake(t *testing.T) {
	_, ds := ReadConfig(fstest.MapFS{FkfConfigFile: {Data: []byte("sources:\n  a:\n    enabled: true\n    run: [x]\n    records: .data | first\n    fields: {id: .id, time: .at}\n")}})
	if got := diagLines(ds); len(got) != 1 || !strings.HasPrefix(got[0], `fkf.yaml:5:5: error: records ".data | first" of source "a": column 6: unexpected space`) {
		t.Errorf("diagnostics: %q", got)
	}
}
