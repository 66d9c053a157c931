package load

import (
	"fmt"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

func TestWithDefaults(t *testing.T) {
	got := model.Config{}.WithDefaults()
	if got.Layers != model.DefaultLayers {
		t.Errorf("layers = %+v, want %+v", got.Layers, model.DefaultLayers)
	}
	if c := got.Governance.Caps; c != (model.RulesCaps{Rules: 40, Notes: 20, LineRunes: 200}) {
		t.Errorf("caps = %+v, want 40/20/200", c)
	}

	set := model.Config{
		Layers:     model.Layers{Wiki: "kb", Bodies: "cache/bodies"},
		Governance: model.GovernanceConfig{Caps: model.RulesCaps{Rules: 5}},
	}.WithDefaults()
	want := model.Layers{Events: "events", Index: "index", Wiki: "kb", Projects: "projects", Tasks: "tasks", Bodies: "cache/bodies", Governance: "governance"}
	if set.Layers != want {
		t.Errorf("layers = %+v, want %+v", set.Layers, want)
	}
	if c := set.Governance.Caps; c != (model.RulesCaps{Rules: 5, Notes: 20, LineRunes: 200}) {
		t.Errorf("caps = %+v, want 5/20/200", c)
	}
	if again := set.WithDefaults(); again.Layers != set.Layers || again.Governance.Caps != set.Governance.Caps {
		t.Errorf("WithDefaults is not idempotent")
	}
}

func TestWeight(t *testing.T) {
	cfg := model.Config{Schema: map[string]model.FieldSpec{
		"title":   {Weight: 8},
		"summary": {Weight: 3},
		"labels":  {Relation: true},
	}}
	for field, want := range map[string]int{"id": 10, "title": 8, "summary": 3, "labels": 1, "body": 1, "unknown": 1} {
		if got := cfg.Weight(field); got != want {
			t.Errorf("Weight(%q) = %d, want %d", field, got, want)
		}
	}
	if got := (model.Config{}).Weight("title"); got != 5 {
		t.Errorf("default title weight = %d, want 5", got)
	}
}

// loadConfigText decodes and validates text as cairn.yaml.
func loadConfigText(t *testing.T, text string) (model.Config, bool, []string) {
	t.Helper()
	var ds diag.List
	cfg, _, hash, ok := loadConfig(fstest.MapFS{ConfigFile: {Data: []byte(text)}}, &ds)
	if ok && hash != artifacts.Hash([]byte(text)) {
		t.Errorf("config hash %s is not the hash of its bytes", hash)
	}
	return cfg, ok, diagLines(ds.Sorted())
}

func TestConfigValidation(t *testing.T) {
	cases := []struct {
		name, text string
		ok         bool
		want       []string
	}{
		{"clean", `schema:
  title: {weight: 5}
  author: {relation: true, cardinality: many, description: who wrote it, examples: [person:email/marc@x.test]}
sources:
  github:
    recency: {half_life_days: 14}
    category: created
    visibility: shared
identities:
  marc:
    canonical: person:email/marc@x.test
    aliases: [person:github/marc-b, marc@old.test]
content: ['docs/**/*.md', README.md]
layers:
  wiki: kb
`, true, []string{}},
		{"empty file", "", true, []string{}},
		{"weights and cardinality", "schema:\n  summary:\n    weight: 101\n  labels:\n    weight: -3\n    cardinality: lots\n  Bad:\n    weight: 0\n", true, []string{
			`cairn.yaml:3:5: error: weight of "summary" is 101; use a whole number from 1 to 100 [bad-weight]`,
			`cairn.yaml:5:5: error: weight of "labels" is -3; use a whole number from 1 to 100 [bad-weight]`,
			`cairn.yaml:6:5: error: cardinality of "labels" is "lots"; use one of: one, optional, many [bad-cardinality]`,
			`cairn.yaml:7:3: error: field name "Bad" must match ^[a-z][a-z0-9_-]*$; rename it [bad-field-name]`,
		}},
		{"source policies", "sources:\n  github:\n    category: stolen\n    visibility: secret\n    recency: {half_life_days: -1}\n  'bad name':\n    category: saved\n", true, []string{
			`cairn.yaml:3:5: error: category "stolen" of source "github"; use one of: created, received, saved [bad-category]`,
			`cairn.yaml:4:5: error: visibility "secret" of source "github"; use one of: private, shared, public [bad-visibility]`,
			`cairn.yaml:5:15: error: half_life_days of "github" is negative; use a positive number of days, or omit it for no recency bonus [bad-half-life]`,
			`cairn.yaml:6:3: error: source name "bad name" must be letters, digits, dot, dash or underscore; rename it [bad-source-name]`,
		}},
		{"half-life past the bound", "sources:\n  chat:\n    recency: {half_life_days: 1000001}\n  mail:\n    recency: {half_life_days: 1000000}\n", true, []string{
			`cairn.yaml:3:15: error: half_life_days of "chat" is 1000001; use at most 1000000 days, or omit it for no recency bonus [bad-half-life]`,
		}},
		{"identities", "identities:\n  marc:\n    canonical: person:email/marc@x.test\n    aliases: [person:github/marc-b, marc@old.test]\n  mark:\n    canonical: person:email/mark@x.test\n    aliases: [marc@old.test, '']\n  bad:\n    canonical: not a uri\n", true, []string{
			`cairn.yaml:7:5: error: identity "mark" has an empty alias; remove it [bad-identity]`,
			`cairn.yaml:7:5: error: "marc@old.test" names both identity "marc" and "mark"; an alias belongs to one identity [duplicate-alias]`,
			`cairn.yaml:9:5: error: canonical URI of identity "bad" is "not a uri"; write scheme:identity, e.g. person:email/marc@x.test [bad-identity]`,
		}},
		{"canonical of one is the alias of another", "identities:\n  a:\n    canonical: person:github/marc-b\n  b:\n    canonical: person:email/marc@x.test\n    aliases: [person:github/marc-b]\n", true, []string{
			`cairn.yaml:6:5: error: "person:github/marc-b" names both identity "a" and "b"; an alias belongs to one identity [duplicate-alias]`,
		}},
		{"layer folders", "layers:\n  events: ../outside\n  index: /abs\n  wiki: .hidden\n  tasks: a/./b\n  bodies: ok/fine\n", true, []string{
			`cairn.yaml:2:3: error: layer folder "../outside" is not a plain relative folder inside the base; use a name like "events" [bad-layer]`,
			`cairn.yaml:3:3: error: layer folder "/abs" is not a plain relative folder inside the base; use a name like "index" [bad-layer]`,
			`cairn.yaml:4:3: error: layer folder ".hidden" is not a plain relative folder inside the base; use a name like "wiki" [bad-layer]`,
			`cairn.yaml:5:3: error: layer folder "a/./b" is not a plain relative folder inside the base; use a name like "tasks" [bad-layer]`,
		}},
		{"shared layer folder", "layers:\n  wiki: index\n", true, []string{
			`cairn.yaml:2:3: error: layers index and wiki share the folder "index"; give each its own [bad-layer]`,
		}},
		{"alias listed twice", "identities:\n  a:\n    canonical: person:github/marc-b\n    aliases: [person:email/marc@x.test, person:email/marc@x.test]\n", true, []string{
			`cairn.yaml:4:5: error: identity "a" lists "person:email/marc@x.test" twice; keep one [duplicate-alias]`,
		}},
		{"nested layer folders", "layers:\n  wiki: kb\n  projects: kb/projects\n", true, []string{
			`cairn.yaml:3:3: error: layer projects ("kb/projects") and layer wiki ("kb") are nested; give each a folder outside the other [bad-layer]`,
		}},
		{"bad glob", "content: ['docs/[', '**/*.md']\n", true, []string{
			`cairn.yaml:1:11: error: content glob 1 "docs/[" is not a valid doublestar pattern; fix its brackets or braces [bad-glob]`,
		}},
		{"bad exclusion glob", "content:\n  - '**/*.md'\n  - '!vendor/['\n", true, []string{
			`cairn.yaml:3:5: error: content glob 2 "!vendor/[" is not a valid doublestar pattern; fix its brackets or braces [bad-glob]`,
		}},
		{"wrong type still usable", "schema: [1, 2]\n", true, []string{
			`cairn.yaml:1:9: error: wrong type for schema: expected a mapping, found a list; write a mapping instead [yaml-type]`,
		}},
		{"broken YAML is not usable", "schema:\n  title: {weight: 5\n", false, []string{
			`cairn.yaml:2:1: error: invalid YAML: did not find expected ',' or '}'; fix the syntax on or just before this line (indentation, a missing ':' or an unclosed bracket or quote) [yaml-syntax]`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ok, got := loadConfigText(t, c.text)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if ok != c.ok {
				t.Errorf("usable = %v, want %v", ok, c.ok)
			}
		})
	}
}

func TestConfigDecoded(t *testing.T) {
	cfg, ok, diags := loadConfigText(t, "schema:\n  author: {relation: true, cardinality: many}\nsources:\n  github: {category: created, recency: {half_life_days: 14}}\nlayers:\n  wiki: kb\n")
	if !ok || len(diags) != 0 {
		t.Fatalf("ok = %v, diagnostics %q", ok, diags)
	}
	if got := cfg.Schema["author"]; !got.Relation || got.Cardinality != "many" {
		t.Errorf("schema author = %+v", got)
	}
	if got := cfg.Sources["github"]; got.Category != "created" || got.Recency.HalfLifeDays != 14 {
		t.Errorf("source github = %+v", got)
	}
	if cfg.Layers.Wiki != "kb" || cfg.Layers.Events != "events" || cfg.Governance.Caps.Rules != model.DefaultRulesCap {
		t.Errorf("defaults not applied around the set values: %+v %+v", cfg.Layers, cfg.Governance.Caps)
	}
}

func TestNoConfig(t *testing.T) {
	var ds diag.List
	_, _, _, ok := loadConfig(fstest.MapFS{"wiki/a.md": {Data: []byte("# A\n")}}, &ds)
	want := []string{"cairn.yaml:1:1: error: this folder has no cairn.yaml, so it is not a cairn base; run `cairn init` here or pass --base [no-config]"}
	if diff := cmp.Diff(want, diagLines(ds.Sorted())); diff != "" || ok {
		t.Errorf("ok = %v; diagnostics (-want +got):\n%s", ok, diff)
	}
}

func TestIsEntityURI(t *testing.T) {
	for s, want := range map[string]bool{
		"person:email/marc@x.test":    true,
		"repo:github.com/acme/harbor": true,
		"x-y.z+1:a":                   true,
		"Person:x":                    false,
		"1abc:x":                      false,
		":x":                          false,
		"person:":                     false,
		"person":                      false,
		"person:a b":                  false,
		"":                            false,
	} {
		if got := IsEntityURI(s); got != want {
			t.Errorf("IsEntityURI(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestConfigCache: a configuration comes back from its cache exactly as
// decoding the YAML gives it, and only while cairn.yaml's stat and hash
// match what the cache was made from.
func TestConfigCache(t *testing.T) {
	for _, base := range []string{"../../golden/demo/base", "../../golden/edge/base"} {
		fsys := os.DirFS(base)
		var ds diag.List
		want, _, hash, ok := loadConfig(fsys, &ds)
		if !ok || ds.HasErrors() {
			t.Fatalf("%s: the configuration does not load: %v", base, ds.Sorted())
		}
		st, err := fs.Stat(fsys, ConfigFile)
		if err != nil {
			t.Fatal(err)
		}
		stat := artifacts.StatCache{ConfigFile: {Bytes: st.Size(), MtimeNS: st.ModTime().UnixNano(), CtimeNS: artifacts.ChangeNS(st), XXHash: hash}}
		cached := artifacts.ConfigCache{XXHash: hash, Data: EncodeConfigCache(want)}
		// Without a memo, then twice with one: the second answer is the
		// memo's, and all three are the configuration YAML decodes to.
		var memo ConfigMemo
		for i, m := range []*ConfigMemo{nil, &memo, &memo} {
			got, gotHash, ok := cachedConfig(fsys, stat, cached, m)
			if !ok || gotHash != hash {
				t.Fatalf("%s: call %d: the cache was not used", base, i)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: call %d: cached configuration differs (-yaml +cache):\n%s", base, i, diff)
			}
		}
		refused := map[string]func() (artifacts.StatCache, artifacts.ConfigCache){
			"another hash": func() (artifacts.StatCache, artifacts.ConfigCache) {
				return stat, artifacts.ConfigCache{XXHash: "0000000000000000", Data: cached.Data}
			},
			"touched since": func() (artifacts.StatCache, artifacts.ConfigCache) {
				e := stat[ConfigFile]
				e.MtimeNS++
				return artifacts.StatCache{ConfigFile: e}, cached
			},
			"changed since": func() (artifacts.StatCache, artifacts.ConfigCache) {
				e := stat[ConfigFile]
				e.CtimeNS++
				return artifacts.StatCache{ConfigFile: e}, cached
			},
			"no stat entry": func() (artifacts.StatCache, artifacts.ConfigCache) { return nil, cached },
			"other format": func() (artifacts.StatCache, artifacts.ConfigCache) {
				return stat, artifacts.ConfigCache{XXHash: hash, Data: fmt.Appendf(nil, `{"cairn-config-cache":%d,"config":{}}`, configCacheFormat+1)}
			},
			"unknown key": func() (artifacts.StatCache, artifacts.ConfigCache) {
				return stat, artifacts.ConfigCache{XXHash: hash, Data: fmt.Appendf(nil, `{"cairn-config-cache":%d,"config":{"Shards":4}}`, configCacheFormat)}
			},
			"damaged": func() (artifacts.StatCache, artifacts.ConfigCache) {
				return stat, artifacts.ConfigCache{XXHash: hash, Data: cached.Data[:len(cached.Data)/2]}
			},
		}
		for name, make := range refused {
			s, c := make()
			if _, _, ok := cachedConfig(fsys, s, c, nil); ok {
				t.Errorf("%s: %s: the cache was used", base, name)
			}
			// A memo holding the good cache's decoding is not fooled.
			if _, _, ok := cachedConfig(fsys, s, c, &memo); ok {
				t.Errorf("%s: %s: the cache was used through the memo", base, name)
			}
		}
	}
}
