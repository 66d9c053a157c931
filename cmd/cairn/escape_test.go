package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hazardText holds every kind of rune that can act on the terminal or
// the rendering of whoever reads an answer: an ANSI colour sequence, BEL,
// DEL, NUL, a C1 control (CSI), the right-to-left override, an isolate,
// and the Unicode line and paragraph separators.
const hazardText = "hazard \x1b[31m red \a bell \x7f del \x00 nul \u009b csi \u202e rlo \u2066 lri \u2028 ls \u2029 ps end"

// hazardRunes are the runes of hazardText that no output may carry raw.
var hazardRunes = []string{"\x1b", "\a", "\x7f", "\x00", "\u009b", "\u202e", "\u2066", "\u2028", "\u2029"}

// wantNoHazard fails when out carries one of hazardRunes raw.
func wantNoHazard(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range hazardRunes {
		if strings.Contains(out, r) {
			t.Errorf("%s carries %q raw:\n%q", what, r, out)
		}
	}
}

// hazardBase is a built demo base with a wiki page whose title and body
// hold hazardText, and a kept note and a suggestion whose texts do.
func hazardBase(t *testing.T) string {
	t.Helper()
	isolate(t)
	dir := copyBase(t, "demo")
	page := "---\ntitle: \"Hazard page \\e[31m red \\a bell \\x7f del \\0 nul \\x9b csi \\u202e rlo \\u2066 lri \\L ls \\P ps end\"\n" +
		"description: A page whose title and body try to drive a terminal.\n---\n" +
		"The hazard page body: " + hazardText + "\n"
	if err := os.WriteFile(filepath.Join(dir, "wiki", "hazard.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i, args := range [][]string{
		{"suggest", "note:hazard-kept", hazardText, "--actor", "agent:codex"},
		{"keep", "note:hazard-kept", "--actor", "person:marc"},
		{"suggest", "note:hazard-suggested", hazardText, "--actor", "agent:codex"},
	} {
		if code, _, stderr := cairnAt(t, at.Add(time.Duration(i)*time.Minute), append([]string{"--base", dir, "note"}, args...)...); code != 0 {
			t.Fatalf("note %v exited %d: %s", args, code, stderr)
		}
	}
	return dir
}

// TestOutputsNeutraliseHazards: every answer a person may read, in text
// and JSON, shows the hazards of stored text as visible escapes or spaces,
// never raw; JSON keeps the stored value, since its escapes decode back.
func TestOutputsNeutraliseHazards(t *testing.T) {
	dir := hazardBase(t)
	for _, args := range [][]string{
		{"context", "hazard page", "--as-of", goldenAsOf},
		{"context", "hazard page", "--as-of", goldenAsOf, "--format", "json"},
		{"context", "hazard page", "--as-of", goldenAsOf, "--format", "jsonl"},
		{"context", "--at", "docs/getting-started.md", "--as-of", "2026-11-20"},
		{"context", "--at", "docs/getting-started.md", "--as-of", "2026-11-20", "--format", "json"},
		{"search", "hazard"},
		{"search", "hazard", "--format", "json"},
		{"read", "wiki/hazard.md"},
		{"read", "wiki/hazard.md", "--format", "json"},
		{"list", "wiki"},
		{"list", "wiki", "--format", "json"},
		{"note", "list"},
		{"note", "list", "--format", "json"},
	} {
		code, stdout, stderr := cairn(t, append([]string{"--base", dir}, args...)...)
		if code != 0 {
			t.Errorf("%v exited %d: %s", args, code, stderr)
			continue
		}
		if !strings.Contains(strings.ToLower(stdout), "hazard") {
			t.Errorf("%v does not show the hazard at all:\n%s", args, stdout)
		}
		wantNoHazard(t, fmt.Sprint(args), stdout+stderr)
	}
	// An error that quotes what was asked.
	code, stdout, stderr := cairn(t, "--base", dir, "read", "wiki/hazard\u202e\x1b.md")
	if code == 0 {
		t.Errorf("read of a missing page exited 0")
	}
	wantNoHazard(t, "the error of a read", stdout+stderr)
	// The rules files hold the kept note as a plain line.
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "hazard") {
			t.Errorf("%s lacks the kept note:\n%s", name, data)
		}
		wantNoHazard(t, name, string(data))
	}
	// The session-start hook, which carries the rules.
	for _, harness := range []string{"claude", "copilot"} {
		code, stdout, stderr := runHook(t, dir, dir, harness)
		if code != 0 || !strings.Contains(stdout, "hazard") {
			t.Errorf("hook %s: exit %d, want the kept note among the rules:\n%s%s", harness, code, stdout, stderr)
		}
		wantNoHazard(t, "hook "+harness, stdout+stderr)
	}
	// JSON is escaped losslessly: the note's text decodes as stored.
	_, stdout, _ = cairn(t, "--base", dir, "note", "list", "--format", "json", "--target", "note:hazard-suggested")
	var ops []struct{ Text string }
	if err := json.Unmarshal([]byte(stdout), &ops); err != nil || len(ops) != 1 || ops[0].Text != hazardText {
		t.Errorf("note list --format json decodes to %+v (%v); want the stored text %q", ops, err, hazardText)
	}
}

// TestCheckNeutralisesHazards: a finding in a file whose name holds
// bidirectional controls prints them as escapes, in every format.
func TestCheckNeutralisesHazards(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	name := filepath.Join(dir, "docs", "evil\u202etxt\u2066.md")
	if err := os.WriteFile(name, []byte("# Evil\n\nWe keep a whitelist here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif"} {
		code, stdout, stderr := cairn(t, "--base", dir, "check", "--as-of", goldenAsOf, "--format", format, "docs")
		if code != 1 || !strings.Contains(stdout, "evil") {
			t.Errorf("check --format %s: exit %d, want 1 with a finding in the evil file:\n%s%s", format, code, stdout, stderr)
		}
		wantNoHazard(t, "check --format "+format, stdout+stderr)
	}
}

// TestMCPNeutralisesHazards: the tools' answers, and their errors, show
// the hazards of stored text as escapes, as the CLI does.
func TestMCPNeutralisesHazards(t *testing.T) {
	dir := hazardBase(t)
	ts := serveAt(t, dir, "2026-11-20")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"context", map[string]any{"query": "hazard page"}},
		{"context", map[string]any{"query": "hazard page", "format": "json"}},
		{"context_search", map[string]any{"query": "hazard"}},
		{"read", map[string]any{"uri": "wiki/hazard.md"}},
		{"read", map[string]any{"uri": "wiki/hazard\u202e\x1b.md"}},
		{"list", map[string]any{"layer": "wiki"}},
		{"context_read", map[string]any{"path": "docs/getting-started.md"}},
		{"context_note", map[string]any{"target": "note:hazard-mcp", "text": hazardText}},
	} {
		got, _ := ts.call(t, c.tool, c.args)
		wantNoHazard(t, fmt.Sprintf("%s %v", c.tool, c.args), got)
	}
}
