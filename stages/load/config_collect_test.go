package load

import (
	"strings"
	"testing"
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
