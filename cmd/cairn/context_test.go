package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// goldenQuery is one line of golden/<case>/queries.txt.
type goldenQuery struct {
	name string
	args []string
}

// readQueries parses a case's queries.txt; a case without one has none.
func readQueries(t *testing.T, name string) []goldenQuery {
	t.Helper()
	return goldenLines(t, name, "queries.txt")
}

// goldenLines parses one of a case's golden command files (queries.txt,
// reads.txt, searches.txt): "name: args" a line, # comments and blank
// lines skipped. A case without the file has none.
func goldenLines(t *testing.T, name, file string) []goldenQuery {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenRoot, name, file))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenQuery
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n, rest, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s line %q has no name", file, line)
		}
		out = append(out, goldenQuery{name: n, args: strings.Fields(rest)})
	}
	return out
}

// runContext runs cairn context on a base and returns what a user sees.
func runContext(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return runCommand(t, dir, "context", args...)
}

// runCommand runs a command on a base and returns what a user sees:
// stdout, then, when it failed, the exit status and stderr.
func runCommand(t *testing.T, dir, command string, args ...string) string {
	t.Helper()
	code, stdout, stderr := cairn(t, append([]string{"--base", dir, command}, args...)...)
	if code == 0 {
		return stdout
	}
	return fmt.Sprintf("%sexit %d\n%s", stdout, code, strings.ReplaceAll(stderr, dir, "$BASE"))
}

// contextOutputs answers every golden query of a built base in text and
// JSON, keyed by their file in want/.
func contextOutputs(t *testing.T, name, dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, q := range readQueries(t, name) {
		for _, f := range formatsOf(q) {
			ext := map[string]string{"text": ".txt", "json": ".json", "jsonl": ".jsonl", "markdown": ".md"}[f]
			out["context/"+q.name+ext] = []byte(runContext(t, dir, withFormat(q.args, f)...))
		}
	}
	return out
}

var (
	textIndexState = regexp.MustCompile(`index=\S+ (used|missing|stale|corrupt|query-too-short)`)
	textEncoded    = regexp.MustCompile(`encoded=\d+`)
	textReason     = regexp.MustCompile(`index_reason=[^·\n]*(· )?`)
	minimumBudget  = regexp.MustCompile(`use --budget \d+ or more`)
)

// Of a by-location answer, what the artifacts add: their state, the
// note that says they are not current, and term usage counts.
var (
	atFreshness = regexp.MustCompile(`(?m)^\n> The artifacts are [^\n]*\n`)
	atUses      = regexp.MustCompile(` · used \d+ time\(s\) in content`)
	atState     = regexp.MustCompile(`artifacts \S+ (used|missing|stale|corrupt)`)
)

// normalise removes what may differ between the indexed and the scanned
// answer: receipt.index, and encoded_tokens, which measures it; for a
// by-location answer, what the artifacts add.
func normalise(t *testing.T, format, out string) string {
	t.Helper()
	if format == "markdown" {
		out = atState.ReplaceAllString(atFreshness.ReplaceAllString(out, ""), "artifacts X")
		return atUses.ReplaceAllString(out, "")
	}
	if v, ok := atJSON(out); ok {
		return v
	}
	if format == "text" {
		out = minimumBudget.ReplaceAllString(out, "use --budget N or more")
		out = textIndexState.ReplaceAllString(out, "index=X")
		out = textEncoded.ReplaceAllString(out, "encoded=N")
		out = textReason.ReplaceAllString(out, "")
		return strings.ReplaceAll(out, "receipt: \n", "receipt: complete: nothing was dropped or rejected\n")
	}
	if strings.Contains(out, "\nexit ") || strings.HasPrefix(out, "exit ") {
		// The least budget measures the receipt, receipt.index included.
		return minimumBudget.ReplaceAllString(out, "use --budget N or more")
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	r := v["receipt"].(map[string]any)
	delete(r, "index")
	delete(r, "encoded_tokens")
	b, _ := json.Marshal(v)
	return string(b)
}

// withoutArtifacts runs answer with the base's artifacts moved aside, so
// that it answers from a scan, and puts them back.
func withoutArtifacts(t *testing.T, dir string, answer func() string) string {
	t.Helper()
	on, off := filepath.Join(dir, ".cairn"), filepath.Join(dir, ".cairn.off")
	if err := os.Rename(on, off); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Rename(off, on); err != nil {
			t.Fatal(err)
		}
	}()
	return answer()
}

// TestIndexScanParity answers every golden query from the artifacts and
// from a scan of the base, in all three formats, and requires the same
// bytes apart from receipt.index.
func TestIndexScanParity(t *testing.T) {
	for _, name := range goldenCases(t) {
		queries := readQueries(t, name)
		if len(queries) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, name)
			mustBuild(t, dir)
			for _, q := range queries {
				formats := []string{"text", "json", "jsonl"}
				if isAt(q) {
					formats = []string{"markdown", "json"}
				}
				for _, format := range formats {
					args := withFormat(q.args, format)
					indexed := runContext(t, dir, args...)
					if !isAt(q) && !strings.Contains(indexed, "used") && !strings.Contains(indexed, "exit ") && !strings.Contains(indexed, "query-too-short") {
						t.Fatalf("%s: the indexed answer did not use the index:\n%s", q.name, indexed)
					}
					scanned := withoutArtifacts(t, dir, func() string { return runContext(t, dir, args...) })
					if a, b := normalise(t, format, indexed), normalise(t, format, scanned); a != b {
						t.Errorf("%s %s: indexed and scanned answers differ\n--- indexed\n%s\n--- scanned\n%s", q.name, format, a, b)
					}
				}
			}
		})
	}
}

// isAt reports whether a query line asks what applies at a place (--at,
// --profile) rather than for a pack.
func isAt(q goldenQuery) bool {
	return slices.ContainsFunc(q.args, func(a string) bool {
		return a == "--at" || a == "--profile" || strings.HasPrefix(a, "--at=") || strings.HasPrefix(a, "--profile=")
	})
}

// formatsOf is text and JSON (markdown and JSON for a by-location
// question), or the one format a query line names.
func formatsOf(q goldenQuery) []string {
	for i, a := range q.args {
		if a == "--format" && i+1 < len(q.args) {
			return []string{q.args[i+1]}
		}
	}
	if isAt(q) {
		return []string{"markdown", "json"}
	}
	return []string{"text", "json"}
}

// withFormat sets --format, replacing one the query line names.
func withFormat(args []string, format string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--format" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return append(out, "--format", format)
}

func TestContextCommandErrors(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--since-receipt", "not-a-digest", "retention"}, "16 hex digits"},
		{[]string{"--save-receipt", "retention"}, "set XDG_STATE_HOME or HOME"},
		{[]string{"--as-of", "tomorrow", "retention"}, `--as-of "tomorrow" is not a day`},
		{[]string{"--format", "yaml", "retention"}, "--format"},
		{[]string{"--budget", "0", "retention"}, "positive number of tokens"},
		{[]string{"--since", "2026-11-09", "--until", "2026-11-01", "retention"}, "since"},
		{[]string{"--as-of", "2026-11-10", "retention", "2026-13"}, "2026-13"},
		{nil, "give a query"},
	}
	for _, c := range cases {
		code, _, stderr := cairn(t, append([]string{"--base", dir, "context"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("context %v: exit %d, stderr %q; want 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

func TestContextAsOfFromEnvironment(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	var out, errb strings.Builder
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "CAIRN_AS_OF" {
			return "2026-11-10"
		}
		return ""
	}, Getwd: os.Getwd}
	if code := runEnv([]string{"--base", dir, "context", "HAR-151"}, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "as_of=2026-11-10") {
		t.Errorf("CAIRN_AS_OF was not used:\n%s", out.String())
	}
}

func TestContextOnABaseWithMistakes(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "bad")
	code, stdout, stderr := cairn(t, "--base", dir, "context", "--as-of", "2026-11-10", "anything")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "error(s), so no context can be read") || !strings.Contains(stderr, "run cairn build") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and a pointer to cairn build", code, stdout, stderr)
	}
}

// indexState runs a JSON context query and returns receipt.index.state.
func indexState(t *testing.T, dir string) string {
	t.Helper()
	out := runContext(t, dir, "arm64", "nightly", "--as-of", "2026-11-10", "--format", "json")
	var p struct {
		Receipt struct {
			Index struct{ State string } `json:"index"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p.Receipt.Index.State
}

// TestConfigCacheServesQueriesOnlyWhileCurrent: a build leaves the decoded
// configuration for queries; a damaged cache is ignored, and a changed
// cairn.yaml is seen whatever the cache holds.
func TestConfigCacheServesQueriesOnlyWhileCurrent(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	// Files written just now are racy: the stat cache would not vouch for
	// cairn.yaml, and no config cache would be written.
	hourAgo := time.Now().Add(-time.Hour)
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			err = os.Chtimes(p, hourAgo, hourAgo)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, dir)
	cc := artifacts.ReadConfigCache(dir)
	if cc.XXHash == "" || !bytes.HasPrefix(cc.Data, []byte(`{"cairn-config-cache":`)) {
		t.Fatalf("the build left no usable config cache: %q", cc.Data)
	}
	if s := indexState(t, dir); s != "used" {
		t.Fatalf("index state %q right after the build, want used", s)
	}
	// The cache is believed while it vouches for cairn.yaml's bytes: one
	// holding other weights makes the semantics differ from the build's.
	forged := bytes.Replace(cc.Data, []byte(`"weight":5`), []byte(`"weight":6`), 1)
	if bytes.Equal(forged, cc.Data) {
		t.Fatalf("no title weight in the config cache: %s", cc.Data)
	}
	if err := artifacts.WriteConfigCache(dir, artifacts.ConfigCache{XXHash: cc.XXHash, Data: forged}); err != nil {
		t.Fatal(err)
	}
	if s := indexState(t, dir); s != "stale" {
		t.Errorf("index state %q with a cache holding other weights, want stale: the cache was not read", s)
	}
	if err := artifacts.WriteConfigCache(dir, artifacts.ConfigCache{XXHash: cc.XXHash, Data: []byte("{not json")}); err != nil {
		t.Fatal(err)
	}
	if s := indexState(t, dir); s != "used" {
		t.Errorf("index state %q with a damaged config cache, want used (the YAML decides)", s)
	}
	if err := artifacts.WriteConfigCache(dir, cc); err != nil {
		t.Fatal(err)
	}
	replaceInFile(t, filepath.Join(dir, "cairn.yaml"), "weight: 5\n", "weight: 7\n")
	if s := indexState(t, dir); s != "stale" {
		t.Errorf("index state %q after a weight changed in cairn.yaml, want stale", s)
	}
}

// atJSON normalises a by-location JSON answer; ok is false for anything
// else.
func atJSON(out string) (string, bool) {
	var v map[string]any
	if json.Unmarshal([]byte(out), &v) != nil || v["scope"] == nil {
		return "", false
	}
	delete(v["provenance"].(map[string]any), "artifacts")
	var kept []any
	for _, a := range v["attention"].([]any) {
		if !strings.HasPrefix(a.(string), "The artifacts are ") {
			kept = append(kept, a)
		}
	}
	v["attention"] = kept
	for _, s := range v["suggestions"].([]any) {
		if st, ok := s.(map[string]any)["standing"].(map[string]any); ok {
			delete(st, "uses")
		}
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

// TestAtFreshness: usage counts come from current artifacts only; once an
// input changes, the answer says so first and leaves the counts out, while
// voice, terms and notes still hold.
func TestAtFreshness(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	type answer struct {
		Rules       []string
		Attention   []string
		Suggestions []struct {
			Target   string
			Standing *struct{ Uses *int }
		}
		Provenance struct {
			Artifacts struct{ State, Reason string }
		}
	}
	ask := func() answer {
		t.Helper()
		out := runContext(t, dir, "--at", "docs/getting-started.md", "--as-of", "2026-11-10", "--format", "json")
		var a answer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return a
	}
	uses := func(a answer) *int {
		for _, s := range a.Suggestions {
			if s.Target == "term:pull-through-cache" && s.Standing != nil {
				return s.Standing.Uses
			}
		}
		t.Fatalf("no standing for term:pull-through-cache in %+v", a.Suggestions)
		return nil
	}
	fresh := ask()
	if fresh.Provenance.Artifacts.State != "used" || uses(fresh) == nil || *uses(fresh) != 2 {
		t.Fatalf("current artifacts: state %q, uses %v; want used and 2", fresh.Provenance.Artifacts.State, uses(fresh))
	}
	guide := filepath.Join(dir, "docs", "getting-started.md")
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(guide, append(data, "\nMore on the pull-through cache.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := ask()
	if s := stale.Provenance.Artifacts; s.State != "stale" || s.Reason != "docs/getting-started.md changed since the build" {
		t.Errorf("artifacts %+v; want stale naming the edited file", s)
	}
	if uses(stale) != nil {
		t.Errorf("stale artifacts still gave a usage count: %d", *uses(stale))
	}
	if len(stale.Attention) == 0 || !strings.HasPrefix(stale.Attention[0], "The artifacts are stale") {
		t.Errorf("the first note should say the artifacts are stale: %q", stale.Attention)
	}
	if !slices.Equal(stale.Rules, fresh.Rules) || len(stale.Rules) == 0 {
		t.Errorf("rules changed with the artifacts' state:\n%q\n%q", fresh.Rules, stale.Rules)
	}
}

// TestAtPlaces: what --at refuses and what it ignores, as the build does:
// a link leaving the base is outside it; a page's point: binds nothing;
// an undeclared point is named and ignored.
func TestAtPlaces(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	outside := filepath.Join(t.TempDir(), "o.md")
	if err := os.WriteFile(outside, []byte("---\npoint: docs-fr\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "docs", "escape.md")); err != nil {
		t.Fatal(err)
	}
	if out := runContext(t, dir, "--at", "docs/escape.md", "--as-of", "2026-11-10"); !strings.Contains(out, "exit 2") || !strings.Contains(out, "cannot be read inside the base") {
		t.Errorf("a link leaving the base: %s", out)
	}
	// The base reached through a link to it is still the base.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if out := runContext(t, dir, "--at", filepath.Join(link, "docs", "api", "tokens.md"), "--as-of", "2026-11-10"); !strings.HasPrefix(out, "# What applies at docs/api/tokens.md\n") {
		t.Errorf("a path through a link to the base:\n%s", out)
	}
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	point := func(p string) (string, []string) {
		t.Helper()
		out := runContext(t, dir, "--at", p, "--as-of", "2026-11-10", "--format", "json")
		var a struct {
			Point     struct{ Name, Binding string }
			Attention []string
		}
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return a.Point.Name + " by " + a.Point.Binding, a.Attention
	}
	write("wiki/page-with-point.md", "---\ntitle: P\npoint: docs-fr\n---\nA page.\n")
	if got, _ := point("wiki/page-with-point.md"); got != " by default" {
		t.Errorf("a wiki page's point: %q, want the default point (pages bind no point)", got)
	}
	write("docs/undeclared.md", "---\npoint: nope\n---\nText.\n")
	got, attention := point("docs/undeclared.md")
	if got != "docs by governance.points.paths" || !slices.ContainsFunc(attention, func(a string) bool { return strings.Contains(a, `point "nope"`) }) {
		t.Errorf("an undeclared point: %q, attention %q; want the glob's point and a note naming nope", got, attention)
	}
}

// TestBuiltinProfiles: outside any base, --profile answers the voice
// profiles built into cairn (scope profile), and names them when asked
// for another; inside a base, the base's profile of a name comes first
// and a built-in one fills a name the base lacks, saying so.
func TestBuiltinProfiles(t *testing.T) {
	isolate(t)
	nowhere := t.TempDir()
	run := func(dir string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
			Getwd: func() (string, error) { return dir, nil }, Now: func() time.Time { return collectNow }}
		code := runEnv(args, env)
		return code, out.String(), errb.String()
	}
	code, out, stderr := run(nowhere, "context", "--profile", "plain", "--format", "json")
	var doc struct {
		Scope     string   `json:"scope"`
		Profile   string   `json:"profile"`
		Attention []string `json:"attention"`
		Voice     struct {
			Name  string   `json:"name"`
			Brief []string `json:"brief"`
		} `json:"voice"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Scope != "profile" || doc.Voice.Name != "plain" || len(doc.Voice.Brief) == 0 ||
		!strings.Contains(strings.Join(doc.Attention, "\n"), "built into cairn, answered outside any base") {
		t.Fatalf("a built-in profile outside any base: exit %d (%v)\n%s%s", code, err, out, stderr)
	}
	if code, _, stderr := run(nowhere, "context", "--profile", "nonesuch"); code != 2 || !strings.Contains(stderr, "built into cairn: plain, reference, release-notes") {
		t.Errorf("an unknown profile outside any base: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(nowhere, "context", "--at", "README.md"); code != 2 || !strings.Contains(stderr, "no cairn base here") {
		t.Errorf("--at outside any base must still need one: exit %d, %s", code, stderr)
	}
	base := copyBase(t, "demo")
	code, out, _ = run(base, "context", "--profile", "reference")
	if code != 0 || !strings.Contains(out, "The base has no voice profile named reference; this is the one built into cairn") {
		t.Errorf("a built-in profile inside a base that lacks it: exit %d\n%s", code, out)
	}
	code, out, _ = run(base, "context", "--profile", "docs")
	if code != 0 || strings.Contains(out, "built into cairn") || !strings.Contains(out, "Harbor") {
		t.Errorf("the base's own profile: exit %d\n%s", code, out)
	}
}
