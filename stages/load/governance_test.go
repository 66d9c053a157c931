package load

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

const (
	cleanConfig = `governance:
  default_voice: plain
  axes:
    region:
      contains:
        emea: [fr, de]
        world: [emea, us]
  points:
    - name: docs
      paths: [docs/**]
      voice: plain
      axes: {region: fr}
    - name: site
      paths: ['site/**/*.md', 'blog/*.md']
      valid_from: 2026-01-01
      valid_until: 2026-12-31
`
	cleanVoice = `name: plain
description: Plain and direct.
tone:
  formality: neutral
patterns:
  prohibited:
    - regex: '\bleverage\b'
      description: say use
      severity: warning
  required:
    - regex: '^[A-Z]'
comments:
  max_lines: 3
valid_from: 2026-01-01
`
	cleanTerms = `- id: kb
  term: knowledge base
  status: preferred
  kind: term
  paths: [docs/**]
  axes: {region: emea}
- id: wiki-page
  term: wiki page
  status: deprecated
  replacement: page
  pattern: 'wiki[- ]pages?'
  valid_until: 2027-01-01
`
	cleanLog = `{"op":"20261102T091400.000Z-3f9a1c","at":"2026-11-02T09:14:00Z","actor":"agent:claude-code","session":"s1","kind":"suggest","target":"term:kb","text":"prefer kb"}

{"op":"20261102T101500.250Z-00ff00","at":"2026-11-02T11:15:00.25+01:00","actor":"person:marc","kind":"keep","target":"term:kb","ref":"20261102T091400.000Z-3f9a1c","paths":["docs/**"],"axes":{"region":"fr"}}
{"op":"20261103T080000.000Z-abcdef","at":"2026-11-03T08:00:00Z","actor":"person:marc","kind":"keep","target":"note:release-tone","ref":"20261102T091400.000Z-3f9a1c","valid_from":"2026-11-01"}
`
)

// govBase builds a base from the clean files, with overrides (an empty
// string removes a file).
func govBase(overrides map[string]string) (fstest.MapFS, string) {
	files := map[string]string{
		"cairn.yaml":                   cleanConfig,
		"governance/voices/plain.yaml": cleanVoice,
		"governance/terms.yaml":        cleanTerms,
		"governance/log.jsonl":         cleanLog,
	}
	for k, v := range overrides {
		files[k] = v
	}
	fsys := fstest.MapFS{}
	for k, v := range files {
		if v != "" {
			fsys[k] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	return fsys, files["cairn.yaml"]
}

type govResult struct {
	cfg    model.Config
	voices []model.Voice
	terms  []model.Term
	ops    []model.LogOp
	diags  []diag.Diagnostic
}

// runGovernance decodes cairn.yaml, loads governance and validates the
// config, as the loader does.
func runGovernance(t *testing.T, overrides map[string]string) govResult {
	t.Helper()
	fsys, cfgText := govBase(overrides)
	var ds diag.List
	var r govResult
	root, _ := decodeYAML("cairn.yaml", []byte(cfgText), 1, &r.cfg, &ds)
	r.cfg = r.cfg.WithDefaults()
	r.voices, r.terms, r.ops = loadGovernance(fsys, r.cfg, nil, &ds)
	validateGovernanceConfig("cairn.yaml", root, r.cfg, r.voices, &ds)
	r.diags = ds.Sorted()
	return r
}

// where renders diagnostics as file:line:col code, the part every case checks exactly.
func where(ds []diag.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s:%d:%d %s", d.File, d.Line, d.Col, d.Code))
	}
	return out
}

func TestGovernanceClean(t *testing.T) {
	r := runGovernance(t, nil)
	if len(r.diags) != 0 {
		t.Fatalf("unexpected diagnostics:\n%v", r.diags)
	}
	if len(r.voices) != 1 || r.voices[0].Name != "plain" || r.voices[0].Path != "governance/voices/plain.yaml" {
		t.Errorf("voices = %+v", r.voices)
	}
	if p := r.voices[0].Patterns; p.Prohibited[0].Line != 7 || p.Required[0].Line != 11 {
		t.Errorf("pattern lines = %d, %d; want 7, 11", p.Prohibited[0].Line, p.Required[0].Line)
	}
	if len(r.terms) != 2 || r.terms[0].Line != 1 || r.terms[1].Line != 7 || r.terms[1].ID != "wiki-page" {
		t.Errorf("terms = %+v", r.terms)
	}
	if len(r.ops) != 3 || r.ops[0].Line != 1 || r.ops[1].Line != 3 || r.ops[2].Line != 4 || r.ops[1].Axes["region"] != "fr" {
		t.Errorf("ops = %+v", r.ops)
	}
	if pts := r.cfg.Governance.Points; pts[0].Line != 9 || pts[1].Line != 13 {
		t.Errorf("point lines = %d, %d; want 9, 13", pts[0].Line, pts[1].Line)
	}
}

func TestGovernanceNothingPresent(t *testing.T) {
	var ds diag.List
	v, terms, ops := loadGovernance(fstest.MapFS{}, model.Config{}.WithDefaults(), nil, &ds)
	if v != nil || terms != nil || ops != nil || len(ds.Sorted()) != 0 {
		t.Errorf("got %v %v %v %v", v, terms, ops, ds.Sorted())
	}
}

func TestGovernanceVoicesSortedByName(t *testing.T) {
	r := runGovernance(t, map[string]string{
		"governance/voices/zest.yaml":  "name: zest\n",
		"governance/voices/alpha.yaml": "name: alpha\n",
		"governance/voices/README.md":  "not a voice\n",
	})
	var names []string
	for _, v := range r.voices {
		names = append(names, v.Name)
	}
	if !cmp.Equal(names, []string{"alpha", "plain", "zest"}) || len(r.diags) != 0 {
		t.Errorf("names = %v, diags = %v", names, r.diags)
	}
}

// govCase is one mistake and the exact diagnostics it must produce.
type govCase struct {
	name      string
	overrides map[string]string
	want      []string // file:line:col code
	message   string   // a substring of the first diagnostic's message
}

func runGovCases(t *testing.T, cases []govCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runGovernance(t, tc.overrides)
			if got := where(r.diags); !cmp.Equal(got, tc.want) {
				t.Fatalf("diff (-want +got):\n%s\nall: %v", cmp.Diff(tc.want, got), r.diags)
			}
			if tc.message != "" && !strings.Contains(r.diags[0].Message, tc.message) {
				t.Errorf("message %q does not contain %q", r.diags[0].Message, tc.message)
			}
		})
	}
}

func TestGovernanceVoiceErrors(t *testing.T) {
	const vf = "governance/voices/plain.yaml"
	runGovCases(t, []govCase{
		{"name differs from file", map[string]string{vf: "name: plainer\n"},
			[]string{vf + ":1:7 voice-name"}, `set name: plain or rename the file to plainer.yaml`},
		{"no name", map[string]string{vf: "description: x\n"},
			[]string{vf + ":1:1 voice-name"}, "add name: plain"},
		{"bad regex", map[string]string{vf: "name: plain\npatterns:\n  required:\n    - regex: ok\n    - description: x\n      regex: 'a(b'\n"},
			[]string{vf + ":6:14 bad-regex"}, "patterns.required[1].regex on line 6 does not compile: error parsing regexp: missing closing ): `a(b`"},
		{"pattern without regex", map[string]string{vf: "name: plain\npatterns:\n  prohibited:\n    - description: x\n"},
			[]string{vf + ":4:7 missing-key"}, "patterns.prohibited[0] has no regex"},
		{"bad severity", map[string]string{vf: "name: plain\npatterns:\n  prohibited:\n    - {regex: x, severity: fatal}\n"},
			[]string{vf + ":4:28 bad-severity"}, "use one of: error, warning, info"},
		{"bad date", map[string]string{vf: "name: plain\nvalid_from: 2026-13-01\n"},
			[]string{vf + ":2:13 bad-date"}, "YYYY-MM-DD"},
		{"dates out of order", map[string]string{vf: "name: plain\nvalid_from: 2026-05-01\nvalid_until: 2026-04-30\n"},
			[]string{vf + ":3:14 date-order"}, "valid_until 2026-04-30 is before valid_from 2026-05-01"},
		{"negative comment limit", map[string]string{vf: "name: plain\ncomments:\n  max_line_length: -1\n"},
			[]string{vf + ":3:20 bad-limit"}, "comments.max_line_length is -1"},
		{"unknown key", map[string]string{vf: "name: plain\ntone:\n  formal: yes\n"},
			[]string{vf + ":3:3 unknown-key"}, `unknown key "formal" in tone; known keys: emotion, formality, guidelines, humor, personality`},
		{"syntax error", map[string]string{vf: "name: plain\ntone: [\n"},
			[]string{"cairn.yaml:2:18 unknown-voice", "cairn.yaml:11:14 unknown-voice", vf + ":3:0 yaml-syntax"}, ""},
		{".yml is ignored with a warning", map[string]string{"governance/voices/other.yml": "name: other\n"},
			[]string{"governance/voices/other.yml:0:0 voice-ext"}, "rename it to other.yaml"},
	})
}

func TestGovernanceTermErrors(t *testing.T) {
	const tf = "governance/terms.yaml"
	term := func(extra string) map[string]string {
		return map[string]string{tf: cleanTerms + "- id: x\n  term: x\n  status: approved\n" + extra}
	}
	runGovCases(t, []govCase{
		{"no id", map[string]string{tf: cleanTerms + "- term: x\n  status: approved\n"},
			[]string{tf + ":13:3 missing-key"}, "the term has no id"},
		{"duplicate id", map[string]string{tf: cleanTerms + "- id: kb\n  term: x\n  status: approved\n"},
			[]string{tf + ":13:7 duplicate-id"}, `term id "kb" is already used on line 1`},
		{"no term", map[string]string{tf: cleanTerms + "- id: x\n  status: approved\n"},
			[]string{tf + ":13:3 missing-key"}, `term "x" has no term`},
		{"unknown status", map[string]string{tf: cleanTerms + "- id: x\n  term: x\n  status: banned\n"},
			[]string{tf + ":15:11 unknown-status"}, `unknown status "banned"; use one of: preferred, approved, admitted, proposed, deprecated, forbidden`},
		{"no status", map[string]string{tf: cleanTerms + "- id: x\n  term: x\n"},
			[]string{tf + ":13:3 unknown-status"}, "has no status"},
		{"bad kind", term("  kind: brand\n"),
			[]string{tf + ":16:9 bad-kind"}, "use one of: term, name, keep"},
		{"bad pattern", term("  pattern: '[a-'\n"),
			[]string{tf + ":16:12 bad-regex"}, "on line 16 does not compile"},
		{"bad glob", term("  paths: [docs/**, 'a/[b']\n"),
			[]string{tf + ":16:20 bad-glob"}, `paths[1] "a/[b" is not a valid glob`},
		{"glob escaping the base", term("  paths: [../x/**]\n"),
			[]string{tf + ":16:11 bad-glob"}, "not relative to the base root"},
		{"bad date", term("  valid_until: 2026-02-30\n"),
			[]string{tf + ":16:16 bad-date"}, ""},
		{"unknown axis", term("  axes: {country: fr}\n"),
			[]string{tf + ":16:10 unknown-axis"}, `axis "country" is not declared; declare it under governance.axes in cairn.yaml or use one of: region`},
		{"unknown axis value", term("  axes: {region: jp}\n"),
			[]string{tf + ":16:18 unknown-axis-value"}, `axis "region" has no value "jp"; use one of: de, emea, fr, us, world`},
		{"not a list", map[string]string{tf: "id: x\n", "governance/log.jsonl": ""},
			[]string{tf + ":1:1 yaml-type"}, "expected a list, found a mapping"},
		{"unknown key", term("  defintion: x\n"),
			[]string{tf + ":16:3 unknown-key"}, `unknown key "defintion" in [2]`},
	})
}

func TestGovernanceLogErrors(t *testing.T) {
	const lf = "governance/log.jsonl"
	const (
		a = "20261102T091400.000Z-3f9a1c" // the first op of cleanLog
		z = "20261104T000000.000Z-000001" // after every op of cleanLog
	)
	op := func(fields string) map[string]string {
		return map[string]string{lf: cleanLog + "{" + fields + "}\n"}
	}
	good := func(id string) string {
		return `"op":"` + id + `","at":"2026-11-04T00:00:00Z","actor":"person:marc","kind":"keep","target":"term:kb","ref":"` + a + `"`
	}
	runGovCases(t, []govCase{
		{"not JSON, and the next line still read", map[string]string{lf: cleanLog + "{\"op\": oops}\n{" + good(z) + ",\"colour\":1}\n"},
			[]string{lf + ":5:8 log-json", lf + ":6:156 unknown-key"}, "line is not JSON: invalid character 'o' looking for beginning of value; write one JSON object per line"},
		{"not an object", map[string]string{lf: "[1]\nnull\n"},
			[]string{lf + ":1:1 log-json", lf + ":2:1 log-json"}, "line is not JSON"},
		{"unknown key", op(good(z) + `,"note":"x"`),
			[]string{lf + ":5:156 unknown-key"}, `unknown key "note" in this operation; known keys: actor, at, axes, evidence, kind, op, paths, ref, session, target, text, valid_from, valid_until`},
		{"duplicate key", op(good(z) + `,"kind":"drop"`),
			[]string{lf + ":5:156 duplicate-key"}, ""},
		{"duplicate key spelled with an escape", op(good(z) + `,"kin\u0064":"drop"`),
			[]string{lf + ":5:156 duplicate-key"}, ""},
		{"trailing text after the object", map[string]string{lf: cleanLog + "{" + good(z) + "} x\n"},
			[]string{lf + ":5:157 log-json"}, "invalid character 'x' after top-level value"},
		{"wrong type", op(good(z) + `,"paths":"docs/**"`),
			[]string{lf + ":5:156 json-type"}, "wrong type for paths: expected a list of strings"},
		{"bad op id", op(good("20261104T000000Z-000001")),
			[]string{lf + ":5:2 bad-op-id"}, ""},
		{"op id time that does not exist", op(good("20261304T000000.000Z-000001")),
			[]string{lf + ":5:2 bad-op-id"}, ""},
		{"duplicate op id", op(good("20261103T080000.000Z-abcdef")),
			[]string{lf + ":5:2 duplicate-op"}, "already used on line 4"},
		{"out of order", op(good("20261102T120000.000Z-000001")),
			[]string{lf + ":5:2 op-order"}, "comes after op 20261103T080000.000Z-abcdef"},
		{"time without zone", op(strings.Replace(good(z), "00:00:00Z", "00:00:00", 1)),
			[]string{lf + ":5:37 date-no-zone"}, `at "2026-11-04T00:00:00" has no time zone`},
		{"bad time", op(strings.Replace(good(z), "2026-11-04T00:00:00Z", "yesterday", 1)),
			[]string{lf + ":5:37 bad-time"}, ""},
		{"bad actor", op(strings.Replace(good(z), "person:marc", "marc", 1)),
			[]string{lf + ":5:65 bad-actor"}, "person:<name> nor agent:<client>"},
		{"bad kind", op(strings.Replace(good(z), `"keep"`, `"approve"`, 1)),
			[]string{lf + ":5:87 bad-op-kind"}, "use one of: suggest, keep, drop, widen, reset, correct, merge"},
		{"bad target", op(strings.Replace(good(z), "term:kb", "page:kb", 1)),
			[]string{lf + ":5:101 bad-target"}, ""},
		{"unknown term", op(strings.Replace(good(z), "term:kb", "term:kbase", 1)),
			[]string{lf + ":5:101 unknown-term"}, "target term:kbase names no term in terms.yaml"},
		{"missing ref", op(strings.Replace(good(z), `,"ref":"`+a+`"`, "", 1)),
			[]string{lf + ":5:1 bad-ref"}, "keep needs a ref"},
		{"ref to a later op", map[string]string{lf: "{" + strings.Replace(good(a), `"ref":"`+a, `"ref":"`+z, 1) + "}\n{" + strings.Replace(good(z), `"kind":"keep"`, `"kind":"suggest"`, 1) + "}\n"},
			[]string{lf + ":1:120 bad-ref"}, "keep refers to op " + z + ", which is not an earlier operation in this log"},
		{"missing keys", op(`"op":"` + z + `"`),
			[]string{lf + ":5:1 missing-key", lf + ":5:1 missing-key", lf + ":5:1 missing-key", lf + ":5:1 missing-key"}, ""},
		{"bad glob and axis", op(good(z) + `,"paths":["/abs/**"],"axes":{"region":"mars"}`),
			[]string{lf + ":5:156 bad-glob", lf + ":5:176 unknown-axis-value"}, ""},
	})
}

func TestGovernanceConfigErrors(t *testing.T) {
	const cf = "cairn.yaml"
	// The clean terms and log bind region values emea and fr.
	const regionAxis = "  axes: {region: {contains: {emea: [fr]}}}\n"
	points := func(p string) map[string]string {
		return map[string]string{cf: "governance:\n  axes:\n    region:\n      contains: {emea: [fr]}\n  points:\n" + p}
	}
	runGovCases(t, []govCase{
		{"unknown default voice", map[string]string{cf: "governance:\n  default_voice: loud\n" + regionAxis},
			[]string{cf + ":2:18 unknown-voice"}, `default_voice "loud" names no voice; add a voice file loud.yaml to the voices folder or use one of: plain`},
		{"point without name", points("    - paths: [a/**]\n"),
			[]string{cf + ":6:7 missing-key"}, "governance.points[0] has no name"},
		{"duplicate point", points("    - {name: a, paths: [a/**]}\n    - {name: a, paths: [b/**]}\n"),
			[]string{cf + ":7:14 duplicate-point"}, `point "a" is already defined on line 6`},
		{"point without paths", points("    - name: a\n"),
			[]string{cf + ":6:7 point-no-paths"}, `point "a" has no paths`},
		{"bad glob", points("    - {name: a, paths: ['{a,b']}\n"),
			[]string{cf + ":6:25 bad-glob"}, ""},
		{"unknown voice", points("    - {name: a, paths: [a/**], voice: loud}\n"),
			[]string{cf + ":6:39 unknown-voice"}, `voice "loud" names no voice`},
		{"unknown axis", points("    - name: a\n      paths: [a/**]\n      axes:\n        lang: fr\n"),
			[]string{cf + ":9:9 unknown-axis"}, ""},
		{"unknown axis value", points("    - name: a\n      paths: [a/**]\n      axes:\n        region: apac\n"),
			[]string{cf + ":9:17 unknown-axis-value"}, `use one of: emea, fr`},
		{"bad window", points("    - {name: a, paths: [a/**], valid_from: 2026-1-1}\n"),
			[]string{cf + ":6:44 bad-date"}, ""},
		{"axis cycle", map[string]string{cf: "governance:\n  axes:\n    region:\n      contains:\n        emea: [fr]\n        fr: [paris]\n        paris: [emea]\n"},
			[]string{cf + ":5:9 axis-cycle"}, `axis "region" contains itself: emea contains fr contains paris contains emea`},
		{"value containing itself", map[string]string{cf: "governance:\n  axes:\n    region:\n      contains: {emea: [fr, emea]}\n"},
			[]string{cf + ":4:18 axis-cycle"}, ""},
		{"negative cap", map[string]string{cf: "governance:\n  caps: {notes: -2}\n" + regionAxis},
			[]string{cf + ":2:17 bad-limit"}, ""},
	})
}

// FuzzGovernanceLog checks that no log content crashes the loader and that
// every operation it returns has its line.
func FuzzGovernanceLog(f *testing.F) {
	f.Add([]byte(cleanLog))
	f.Add([]byte("{\"op\": oops}\n[1]\nnull\n{\"a\":1,\"a\":2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"governance/log.jsonl": &fstest.MapFile{Data: data}}
		var ds diag.List
		_, _, ops := loadGovernance(fsys, model.Config{}.WithDefaults(), nil, &ds)
		for _, op := range ops {
			if op.Line < 1 {
				t.Fatalf("op without a line: %+v", op)
			}
		}
	})
}

// TestLogLineDecodedWhole checks that a line taken in one typed pass
// decodes as the key-by-key reading does, and that every line the typed
// pass must not take (a repeat, an escape, an unknown key, a wrong type,
// trailing text, null) is left to it.
func TestLogLineDecodedWhole(t *testing.T) {
	good := `{"op":"20261104T000000.000Z-000001","at":"2026-11-04T00:00:00Z","actor":"person:marc","kind":"suggest","target":"term:kb","text":"say \"base\"","paths":["docs/**"],"axes":{"region":"x"},"evidence":["wiki/a.md"]}`
	op, ok := decodeWhole([]byte(good))
	if !ok {
		t.Fatal("a clean line was not decoded whole")
	}
	var ds diag.List
	lg := opLog{file: "log.jsonl", terms: map[string]bool{}, seen: map[string]int{}, ds: &ds}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(good), &obj); err != nil {
		t.Fatal(err)
	}
	var slow model.LogOp
	fields := reflect.ValueOf(&slow).Elem()
	for key, v := range obj {
		if err := json.Unmarshal(v, fields.Field(logFields[key]).Addr().Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(op, slow) {
		t.Errorf("decoded whole:\n%+v\nkey by key:\n%+v", op, slow)
	}
	if _, at, ok := lg.decode(1, []byte(good)); !ok || len(ds.Sorted()) != 0 {
		t.Errorf("decode: ok %v, diagnostics %v", ok, ds.Sorted())
	} else if _, col := at.pos("kind"); col != strings.Index(good, `"kind"`)+1 {
		t.Errorf("kind at column %d, want %d", col, strings.Index(good, `"kind"`)+1)
	}
	nested := strings.Replace(good, `"region"`, `"kind"`, 1)
	if _, ok := decodeWhole([]byte(nested)); ok {
		t.Error("a nested key named like an operation's key was taken as no repeat")
	}
	if _, _, ok := lg.decode(1, []byte(nested)); !ok || len(ds.Sorted()) != 0 {
		t.Errorf("a nested key named like an operation's key: ok %v, diagnostics %v", ok, ds.Sorted())
	}
	for _, bad := range []string{
		`{"op":"a","op":"b"}`,
		`{"op":"a","o\u0070":"b"}`,
		`{"op":"a","colour":1}`,
		`{"op":"a","paths":"docs/**"}`,
		`{"op":"a"} {}`,
		`null`,
		`[1]`,
	} {
		if _, ok := decodeWhole([]byte(bad)); ok {
			t.Errorf("%s was decoded whole", bad)
		}
	}
}
