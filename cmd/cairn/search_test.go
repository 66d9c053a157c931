package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goldenSearch is one line of golden/<case>/searches.txt: a search or a
// listing.
type goldenSearch struct {
	name    string
	command string // search or list
	args    []string
}

// readSearches parses a case's searches.txt; a case without one has none.
func readSearches(t *testing.T, name string) []goldenSearch {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenRoot, name, "searches.txt"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenSearch
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n, rest, ok := strings.Cut(line, ":")
		words := strings.Fields(rest)
		if !ok || len(words) == 0 || (words[0] != "search" && words[0] != "list") {
			t.Fatalf("searches.txt line %q is not name: search|list ARGS", line)
		}
		out = append(out, goldenSearch{name: n, command: words[0], args: words[1:]})
	}
	return out
}

// runSearch runs a golden search in a format, as a user sees it.
func runSearch(t *testing.T, dir string, q goldenSearch, format string) string {
	t.Helper()
	return runCommand(t, dir, q.command, withFormat(q.args, format)...)
}

// runCommand runs a command on a base and returns stdout, then, when it
// failed, the exit status and stderr.
func runCommand(t *testing.T, dir, command string, args ...string) string {
	t.Helper()
	code, stdout, stderr := cairn(t, append([]string{"--base", dir, command}, args...)...)
	if code == 0 {
		return stdout
	}
	return stdout + "exit " + string(rune('0'+code)) + "\n" + strings.ReplaceAll(stderr, dir, "$BASE")
}

// searchOutputs answers every golden search of a built base in text and
// JSON, keyed by their file in want/.
func searchOutputs(t *testing.T, name, dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, q := range readSearches(t, name) {
		for _, f := range []string{"text", "json"} {
			ext := map[string]string{"text": ".txt", "json": ".json"}[f]
			out["search/"+q.name+ext] = []byte(runSearch(t, dir, q, f))
		}
	}
	return out
}

// Of a search or listing, what the index state changes: the state itself,
// and the term usage counts that only a current build holds.
var (
	searchIndex = regexp.MustCompile(`(index|usage)=\S+ (used|missing|stale|corrupt)( · index_reason=[^·\n]*[^·\n ])?`)
	searchUses  = regexp.MustCompile(` · uses: [^\n]*`)
)

// normaliseSearch removes what may differ between the indexed and the
// scanned answer.
func normaliseSearch(t *testing.T, format, out string) string {
	t.Helper()
	if format == "text" || strings.Contains(out, "\nexit ") || strings.HasPrefix(out, "exit ") {
		return searchUses.ReplaceAllString(searchIndex.ReplaceAllString(out, "$1=X"), "")
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if format == "json" {
			lines = []string{out}
			break
		}
		lines = append(lines, line)
	}
	var norm []string
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, l)
		}
		delete(v, "index")
		if p, ok := v["provenance"].(map[string]any); ok {
			delete(p, "artifacts")
		}
		items := []any{v["item"]}
		if gs, ok := v["groups"].([]any); ok {
			items = nil
			for _, g := range gs {
				items = append(items, g.(map[string]any)["items"].([]any)...)
			}
		}
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				delete(m, "uses")
				delete(m, "top_uses")
				delete(m, "uses_as_of")
			}
		}
		b, _ := json.Marshal(v)
		norm = append(norm, string(b))
	}
	return strings.Join(norm, "\n")
}

// TestSearchIndexScanParity answers every golden search and listing from
// the artifacts and from a scan of the base, in every format, and requires
// the same bytes apart from the index state and the usage counts.
func TestSearchIndexScanParity(t *testing.T) {
	for _, name := range goldenCases(t) {
		searches := readSearches(t, name)
		if len(searches) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, name)
			mustBuild(t, dir)
			for _, q := range searches {
				formats := []string{"text", "json", "jsonl"}
				if q.command == "list" {
					formats = []string{"text", "json"}
				}
				for _, format := range formats {
					indexed := runSearch(t, dir, q, format)
					if !strings.Contains(indexed, "used") && !strings.Contains(indexed, "exit ") {
						t.Fatalf("%s: the indexed answer did not use the index:\n%s", q.name, indexed)
					}
					if err := os.Rename(filepath.Join(dir, ".cairn"), filepath.Join(dir, ".cairn.off")); err != nil {
						t.Fatal(err)
					}
					scanned := runSearch(t, dir, q, format)
					if err := os.Rename(filepath.Join(dir, ".cairn.off"), filepath.Join(dir, ".cairn")); err != nil {
						t.Fatal(err)
					}
					if a, b := normaliseSearch(t, format, indexed), normaliseSearch(t, format, scanned); a != b {
						t.Errorf("%s %s: indexed and scanned answers differ\n--- indexed\n%s\n--- scanned\n%s", q.name, format, a, b)
					}
				}
			}
		})
	}
}
