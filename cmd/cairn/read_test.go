package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readReads parses a case's reads.txt (name: arguments of cairn read), as
// readReads parses a case's reads.txt: the arguments of cairn read.
func readReads(t *testing.T, name string) []goldenQuery {
	t.Helper()
	return goldenLines(t, name, "reads.txt")
}

// runRead runs cairn read on a base and returns what a user sees.
func runRead(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return runCommand(t, dir, "read", args...)
}

// readOutputs answers every golden read of a built base in text and JSON,
// keyed by their file in want/.
func readOutputs(t *testing.T, name, dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, q := range readReads(t, name) {
		for _, f := range []string{"text", "json"} {
			ext := map[string]string{"text": ".txt", "json": ".json"}[f]
			out["read/"+q.name+ext] = []byte(runRead(t, dir, withFormat(q.args, f)...))
		}
	}
	return out
}

// Of a read, what may differ between the index and the scan: the index
// state, and a term's usage, which only current artifacts hold.
var (
	readIndexLine = regexp.MustCompile(`(?m)^read: index=.*\n`)
	readUsage     = regexp.MustCompile(`(?m)^usage in content[^\n]*\n(  [^\n]*\n)*`)
)

func normaliseRead(t *testing.T, format, out string) string {
	t.Helper()
	if format == "text" || strings.Contains(out, "\nexit ") || strings.HasPrefix(out, "exit ") {
		return readUsage.ReplaceAllString(readIndexLine.ReplaceAllString(out, ""), "")
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	delete(v, "index")
	delete(v, "usage")
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReadIndexScanParity reads every golden URI from the artifacts and
// from a scan of the base, in text and JSON, and requires the same bytes
// apart from the index state (and a term's usage, which only the
// artifacts count).
func TestReadIndexScanParity(t *testing.T) {
	for _, name := range goldenCases(t) {
		reads := readReads(t, name)
		if len(reads) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, name)
			mustBuild(t, dir)
			for _, q := range reads {
				for _, format := range []string{"text", "json"} {
					args := withFormat(q.args, format)
					indexed := runRead(t, dir, args...)
					if !strings.Contains(indexed, "exit ") && strings.Contains(indexed, "index=") && !strings.Contains(indexed, "index=.cairn/manifest.json used") {
						t.Fatalf("%s: the indexed read did not use the index:\n%s", q.name, indexed)
					}
					scanned := withoutArtifacts(t, dir, func() string { return runRead(t, dir, args...) })
					if format == "text" && strings.Contains(scanned, "index=") && !strings.Contains(scanned, "index=.cairn/manifest.json missing") {
						t.Fatalf("%s: the scanned read did not scan:\n%s", q.name, scanned)
					}
					if a, b := normaliseRead(t, format, indexed), normaliseRead(t, format, scanned); a != b {
						t.Errorf("%s %s: indexed and scanned reads differ\n--- indexed\n%s\n--- scanned\n%s", q.name, format, a, b)
					}
				}
			}
		})
	}
}

func TestReadCommandErrors(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "yaml", "wiki/index.md"}, "--format"},
		{[]string{"--limit", "0", "tag:retention"}, "--limit"},
		{[]string{"--cursor", "nonsense", "tag:retention"}, "is not a cursor of tag:retention"},
		{[]string{"--cursor", "3.00000000", "events/2026-11-02/tickets.json#HAR-142"}, "leave the cursor out"},
		{[]string{"--cursor", "3.00000000", "wiki/index.md"}, "is not a cursor of wiki/index.md"},
		{[]string{"no-such-thing"}, "the nearest that exist"},
	}
	for _, c := range cases {
		code, stdout, stderr := cairn(t, append([]string{"--base", dir, "read"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("read %v: exit %d, stdout %q, stderr %q; want 2 mentioning %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestReadWholeText: a note the markdown collector stored and a wiki page,
// each far over a value's 4,000 characters and the page over 32,000, read
// whole: every stored line is a line of the text answer, behind the
// block's marker, and JSON holds the whole string. A control character
// still reaches the terminal as a space.
func TestReadWholeText(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	var lines []string
	for i := range 150 {
		lines = append(lines, fmt.Sprintf("Line %03d of the sync design: hash the files in parallel, then upload them in chunks.", i))
	}
	lines[7] = "\tindented with a tab, and a bell\x07 here"
	note := "# Sync design\n\n" + strings.Join(lines, "\n")
	writeFile(t, filepath.Join(dir, "notes", "sync.md"), note+"\n")
	var page []string
	for i := range 500 {
		page = append(page, fmt.Sprintf("Paragraph line %03d of the long upload page, which a reader wants whole.", i))
	}
	pageText := "---\ntitle: Uploads\n---\n\n# Uploads\n\n" + strings.Join(page, "\n") + "\n"
	writeFile(t, filepath.Join(dir, "wiki", "uploads.md"), pageText)
	if code, _, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "markdown", "--as-of", "2026-11-28"); code != 0 {
		t.Fatalf("collect markdown: %s", stderr)
	}
	mustBuild(t, dir)
	for uri, stored := range map[string]string{"index/markdown.json#notes/sync.md": note, "wiki/uploads.md": pageText} {
		text := runRead(t, dir, uri)
		shown := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			if _, after, ok := strings.Cut(l, "| "); ok {
				shown[after] = true
			}
		}
		for _, l := range strings.Split(strings.TrimRight(stored, "\n"), "\n") {
			want := strings.ReplaceAll(l, "\x07", " ")
			if !shown[want] {
				t.Errorf("%s: the stored line %q is not a line of the text answer:\n%.2000s", uri, want, text)
				break
			}
		}
		if strings.Contains(text, "[cut ") || strings.Contains(text, "\x07") {
			t.Errorf("%s: the text answer is cut or holds a bell", uri)
		}
		var a struct {
			Text   string `json:"text"`
			Fields []struct{ Field, Value string }
		}
		if err := json.Unmarshal([]byte(runRead(t, dir, uri, "--format", "json")), &a); err != nil {
			t.Fatal(err)
		}
		got := a.Text
		for _, kv := range a.Fields {
			if kv.Field == "body" {
				got = kv.Value
			}
		}
		if got != stored {
			t.Errorf("%s: JSON holds %d of the %d stored characters", uri, len(got), len(stored))
		}
	}
}
