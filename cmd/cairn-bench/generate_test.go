package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/golden/testhome"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// testRecords keeps the generated test bases small so go test stays fast.
const testRecords = 2000

var (
	sharedOnce sync.Once
	sharedDir  string
	sharedErr  error
)

// sharedBase generates one base for the tests that only read it.
func sharedBase(t *testing.T) string {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-bench-test-")
		if err != nil {
			sharedErr = err
			return
		}
		sharedDir = filepath.Join(dir, "base")
		_, sharedErr = generate(sharedDir, genParams{Records: testRecords, Days: 10, Seed: 1})
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedDir
}

// TestMain runs the tests in a home of their own (testhome), so that a
// cairn they run without a cache folder of its own writes none in the
// user's, and then removes the shared base.
func TestMain(m *testing.M) {
	code := testhome.Run(m)
	if sharedDir != "" {
		os.RemoveAll(filepath.Dir(sharedDir))
	}
	os.Exit(code)
}

// readTree maps every file of dir (slash paths) to its bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	p := genParams{Records: testRecords, Days: 10, Seed: 7}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if _, err := generate(a, p); err != nil {
		t.Fatal(err)
	}
	// The second run writes documents one at a time: parallelism must not
	// change a byte.
	procs := runtime.GOMAXPROCS(1)
	_, err := generate(b, p)
	runtime.GOMAXPROCS(procs)
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := readTree(t, a), readTree(t, b)
	for path, data := range ta {
		other, ok := tb[path]
		if !ok {
			t.Errorf("%s: only in the first tree", path)
		} else if !bytes.Equal(data, other) {
			t.Errorf("%s: differs between two generations", path)
		}
	}
	for path := range tb {
		if _, ok := ta[path]; !ok {
			t.Errorf("%s: only in the second tree", path)
		}
	}

	// Another seed changes content, not shape.
	c := filepath.Join(t.TempDir(), "c")
	p.Seed = 8
	if _, err := generate(c, p); err != nil {
		t.Fatal(err)
	}
	tc := readTree(t, c)
	if bytes.Equal(ta["events/2026-10-27/git-commits.json"], tc["events/2026-10-27/git-commits.json"]) {
		t.Error("seeds 7 and 8 generated the same commits document")
	}
}

func TestGenerateRefusesNonEmptyOut(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	if _, err := generate(dir, genParams{Records: 10, Days: 1, Seed: 1}); err == nil {
		t.Fatal("generate into a non-empty folder succeeded")
	}
}

// document is the envelope of a record document, decoded loosely.
type document struct {
	Cairn   *int                       `json:"cairn"`
	FKF     *int                       `json:"fkf"`
	Source  string                     `json:"source"`
	Layer   string                     `json:"layer"`
	Date    string                     `json:"date"`
	Schema  map[string]model.FieldSpec `json:"schema"`
	Fields  map[string]json.RawMessage `json:"fields"`
	Records []map[string]any           `json:"records"`
	Count   *int                       `json:"count"`
	Start   string                     `json:"window_start"`
	End     string                     `json:"window_end"`
	Collect string                     `json:"collected_at"`
	Body    string                     `json:"body"`
}

func decodeDocument(t *testing.T, path string) document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d document
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// paths returns a fields-map entry as a list of paths.
func paths(t *testing.T, raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		t.Fatalf("fields entry %s is neither a path nor a list of paths", raw)
	}
	return many
}

// fieldPathRE is the part of the jq subset the generator uses.
var fieldPathRE = regexp.MustCompile(`^(\.[a-z_]+(\[\])?)+$`)

// eval evaluates a generator-style path (.a.b, .a[], .a[].b) on v and
// returns the strings it reaches.
func eval(v any, path string) []string {
	vals := []any{v}
	for _, seg := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		iter := strings.HasSuffix(seg, "[]")
		key := strings.TrimSuffix(seg, "[]")
		var next []any
		for _, x := range vals {
			m, ok := x.(map[string]any)
			if !ok {
				continue
			}
			y, ok := m[key]
			if !ok || y == nil {
				continue
			}
			if iter {
				arr, _ := y.([]any)
				next = append(next, arr...)
			} else {
				next = append(next, y)
			}
		}
		vals = next
	}
	var out []string
	for _, x := range vals {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func TestEventsDocuments(t *testing.T) {
	dir := sharedBase(t)
	docs, _ := filepath.Glob(filepath.Join(dir, "events", "*", "*.json"))
	docs = append(docs, filepath.Join(dir, "index", "repos.json"))
	if len(docs) < 10 {
		t.Fatalf("only %d documents", len(docs))
	}
	total := 0
	for _, path := range docs {
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		d := decodeDocument(t, path)
		if (d.Cairn == nil) == (d.FKF == nil) {
			t.Errorf("%s: want exactly one of the cairn and fkf markers", rel)
		}
		if stem := strings.TrimSuffix(filepath.Base(path), ".json"); d.Source != stem {
			t.Errorf("%s: source %q, want the file stem %q", rel, d.Source, stem)
		}
		if d.Count == nil || *d.Count != len(d.Records) {
			t.Errorf("%s: count %v, want %d", rel, d.Count, len(d.Records))
		}
		for field, raw := range d.Fields {
			for _, p := range paths(t, raw) {
				if !fieldPathRE.MatchString(p) {
					t.Errorf("%s: field %s: path %q is outside the jq subset", rel, field, p)
				}
			}
		}
		events := d.Layer == "events"
		if events {
			total += len(d.Records)
			if want := filepath.Base(filepath.Dir(path)); d.Date != want {
				t.Errorf("%s: date %q, want the folder day %q", rel, d.Date, want)
			}
		} else if d.Layer != "index" || d.Date != "" {
			t.Errorf("%s: layer %q date %q", rel, d.Layer, d.Date)
		}
		required := []string{"id", "title"}
		if events {
			required = append(required, "time")
		}
		ids := map[string]bool{}
		for i, rec := range d.Records {
			vals := map[string][]string{}
			for _, f := range required {
				raw, ok := d.Fields[f]
				if !ok {
					t.Fatalf("%s: the fields map has no %s", rel, f)
				}
				for _, p := range paths(t, raw) {
					vals[f] = append(vals[f], eval(rec, p)...)
				}
				if len(vals[f]) != 1 || vals[f][0] == "" {
					t.Fatalf("%s: record %d: %s is %q, want one non-empty value", rel, i, f, vals[f])
				}
			}
			id := vals["id"][0]
			if ids[id] {
				t.Errorf("%s: record id %q repeats", rel, id)
			}
			ids[id] = true
			if events {
				tm, err := time.Parse(time.RFC3339, vals["time"][0])
				if err != nil || !strings.HasSuffix(vals["time"][0], "Z") {
					t.Errorf("%s: record %s: time %q is not RFC3339 with Z", rel, id, vals["time"][0])
				} else if tm.Format("2006-01-02") != d.Date {
					t.Errorf("%s: record %s: time %s is not on %s", rel, id, vals["time"][0], d.Date)
				}
			}
		}
	}
	if total != testRecords {
		t.Errorf("events hold %d records, want %d", total, testRecords)
	}
}

func TestPlanCellsAddUp(t *testing.T) {
	for _, n := range []int{1, 7, 999, 2000, 123457, 1000000} {
		for _, days := range []int{1, 3, 10, 31} {
			cells := planCells(genParams{Records: n, Days: days, Seed: 3})
			sum := 0
			for _, c := range cells {
				if c.count < 0 {
					t.Fatalf("n=%d days=%d: negative count", n, days)
				}
				sum += c.count
			}
			if sum != n {
				t.Errorf("n=%d days=%d: cells add up to %d", n, days, sum)
			}
		}
	}
}

func strictYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestGovernanceFiles(t *testing.T) {
	dir := sharedBase(t)
	var cfg model.Config
	strictYAML(t, filepath.Join(dir, "cairn.yaml"), &cfg)
	if len(cfg.Identities) != identityCount {
		t.Errorf("%d identities, want %d", len(cfg.Identities), identityCount)
	}
	for _, s := range sources {
		if cfg.Sources[s.name].Recency.HalfLifeDays <= 0 {
			t.Errorf("source %s has no half-life", s.name)
		}
	}
	nameRE := regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	for name, f := range cfg.Schema {
		if !nameRE.MatchString(name) || f.Weight < 1 || f.Weight > 100 {
			t.Errorf("schema field %q weight %d", name, f.Weight)
		}
	}
	voices := map[string]bool{}
	vfiles, _ := filepath.Glob(filepath.Join(dir, "governance", "voices", "*.yaml"))
	for _, path := range vfiles {
		var v model.Voice
		strictYAML(t, path, &v)
		if stem := strings.TrimSuffix(filepath.Base(path), ".yaml"); v.Name != stem {
			t.Errorf("%s: name %q, want %q", path, v.Name, stem)
		}
		for _, p := range append(v.Patterns.Prohibited, v.Patterns.Required...) {
			if _, err := regexp.Compile(p.Regex); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
		voices[v.Name] = true
	}
	if !voices[cfg.Governance.DefaultVoice] {
		t.Errorf("default voice %q has no profile", cfg.Governance.DefaultVoice)
	}
	pointNames := map[string]bool{}
	for _, p := range cfg.Governance.Points {
		pointNames[p.Name] = true
		if !voices[p.Voice] {
			t.Errorf("point %s: voice %q has no profile", p.Name, p.Voice)
		}
	}

	var terms []model.Term
	strictYAML(t, filepath.Join(dir, "governance", "terms.yaml"), &terms)
	if len(terms) != termCount {
		t.Errorf("%d terms, want %d", len(terms), termCount)
	}
	termIDs := map[string]bool{}
	for _, tm := range terms {
		if termIDs[tm.ID] {
			t.Errorf("term id %q repeats", tm.ID)
		}
		termIDs[tm.ID] = true
		if !slices.Contains(model.TermStatuses, tm.Status) {
			t.Errorf("term %s: status %q", tm.ID, tm.Status)
		}
		if tm.Discouraged() != (tm.Replacement != "") {
			t.Errorf("term %s: status %s with replacement %q", tm.ID, tm.Status, tm.Replacement)
		}
	}

	f, err := os.Open(filepath.Join(dir, "governance", "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opRE := regexp.MustCompile(`^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{6}$`)
	seen := map[string]model.LogOp{}
	prev := ""
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		var op model.LogOp
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&op); err != nil {
			t.Fatalf("log line %d: %v", n, err)
		}
		if !opRE.MatchString(op.Op) {
			t.Errorf("log line %d: op id %q", n, op.Op)
		}
		if op.Op <= prev {
			t.Errorf("log line %d: op %s does not sort after %s", n, op.Op, prev)
		}
		prev = op.Op
		at, err := time.Parse(time.RFC3339, op.At)
		if err != nil || at.UTC().Format("20060102T150405.000Z") != op.Op[:20] {
			t.Errorf("log line %d: at %q does not match op %s", n, op.At, op.Op)
		}
		if !slices.Contains(model.OpKinds, op.Kind) {
			t.Errorf("log line %d: kind %q", n, op.Kind)
		}
		if !strings.HasPrefix(op.Actor, "person:") && !strings.HasPrefix(op.Actor, "agent:") {
			t.Errorf("log line %d: actor %q", n, op.Actor)
		}
		if !strings.HasPrefix(op.Target, "note:") && !strings.HasPrefix(op.Target, "term:") {
			t.Errorf("log line %d: target %q", n, op.Target)
		}
		if (op.Kind == model.OpSuggest) != (op.Ref == "") {
			t.Errorf("log line %d: kind %s with ref %q", n, op.Kind, op.Ref)
		}
		if op.Ref != "" {
			ref, ok := seen[op.Ref]
			if !ok {
				t.Errorf("log line %d: ref %s is not an earlier op", n, op.Ref)
			}
			if op.Kind == model.OpKeep && !strings.HasPrefix(op.Actor, "person:") {
				t.Errorf("log line %d: a keep by %s", n, op.Actor)
			}
			if op.Kind == model.OpReset && ref.Kind != model.OpKeep {
				t.Errorf("log line %d: reset of a %s", n, ref.Kind)
			}
		}
		for _, ev := range op.Evidence {
			if _, err := os.Stat(filepath.Join(dir, strings.SplitN(ev, "#", 2)[0])); err != nil {
				t.Errorf("log line %d: evidence %s does not exist", n, ev)
			}
		}
		seen[op.Op] = op
	}
	if n != logOpCount {
		t.Errorf("%d log lines, want %d", n, logOpCount)
	}
}

// splitFrontmatter returns the YAML between leading --- lines, if any.
func splitFrontmatter(data []byte) ([]byte, bool) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return nil, false
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, false
	}
	return []byte(s[4 : 4+end+1]), true
}

func TestPagesAndContent(t *testing.T) {
	dir := sharedBase(t)
	var cfg model.Config
	strictYAML(t, filepath.Join(dir, "cairn.yaml"), &cfg)
	pointNames := map[string]bool{}
	for _, p := range cfg.Governance.Points {
		pointNames[p.Name] = true
	}
	counts := map[string]int{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		counts[strings.SplitN(rel, "/", 2)[0]]++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fm, ok := splitFrontmatter(data)
		if !ok {
			if strings.HasPrefix(string(data), "---") {
				t.Errorf("%s: unterminated frontmatter", rel)
			}
			return nil
		}
		var front model.Frontmatter
		if err := yaml.Unmarshal(fm, &front); err != nil {
			t.Errorf("%s: frontmatter: %v", rel, err)
		}
		if front.Point != "" && !pointNames[front.Point] {
			t.Errorf("%s: point %q is not declared", rel, front.Point)
		}
		for _, p := range append(slices.Clone(front.Supersedes), front.SupersededBy) {
			if _, err := os.Stat(filepath.Join(dir, p)); p != "" && err != nil {
				t.Errorf("%s: supersession names missing page %s", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if counts["wiki"] < 5 || counts["projects"] != projectCount || counts["tasks"] < 10 || counts["docs"] < testRecords/100 {
		t.Errorf("page counts %v", counts)
	}
}

func TestBodiesManifest(t *testing.T) {
	dir := sharedBase(t)
	data, err := os.ReadFile(filepath.Join(dir, "bodies", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
		Bytes  int    `json:"bytes"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) < 2 {
		t.Fatalf("%d bodies", len(m))
	}
	for uri, b := range m {
		body, err := os.ReadFile(filepath.Join(dir, "bodies", b.Path))
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		sum := sha256.Sum256(body)
		if len(body) != b.Bytes || hex.EncodeToString(sum[:]) != b.SHA256 {
			t.Errorf("%s: body does not match the manifest", uri)
		}
		doc := decodeDocument(t, filepath.Join(dir, strings.SplitN(uri, "#", 2)[0]))
		id := strings.SplitN(uri, "#", 2)[1]
		if !slices.ContainsFunc(doc.Records, func(r map[string]any) bool { return percentEncode(r["message_id"].(string)) == id }) {
			t.Errorf("%s: no such record", uri)
		}
	}
}

// TestMinifiedSources: a minified source's documents are one line of
// JSON, the others one record a line.
func TestMinifiedSources(t *testing.T) {
	dir := sharedBase(t)
	seen := map[bool]bool{}
	for _, src := range sources {
		docs, _ := filepath.Glob(filepath.Join(dir, "events", "*", src.name+".json"))
		for _, path := range docs {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Count(data, []byte("\n"))
			n := len(decodeDocument(t, path).Records)
			if src.minified && lines != 1 {
				t.Errorf("%s: %d lines, want the minified document on one", path, lines)
			}
			if !src.minified && lines < n {
				t.Errorf("%s: %d lines for %d records", path, lines, n)
			}
			seen[src.minified] = true
		}
	}
	if !seen[true] || !seen[false] {
		t.Errorf("the base should hold minified and indented documents: %v", seen)
	}
}
