package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestFormatJSONEverywhere: every command a program would parse prints one
// JSON document on stdout with --format json, and only that: what it says
// to a person goes to stderr or is left out.
func TestFormatJSONEverywhere(t *testing.T) {
	isolate(t)
	empty := filepath.Join(t.TempDir(), "new")
	demo := copyBase(t, "demo")
	kapiBase := kapiBaseWithoutImport(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		// check looks into the decoded document.
		check func(t *testing.T, doc map[string]any)
	}{
		{"version", []string{"version", "--format", "json"}, 0, func(t *testing.T, doc map[string]any) {
			if doc["version"] != Version || doc["ranking"] == nil || doc["format"] == nil || doc["commit"] == nil {
				t.Errorf("version: %v", doc)
			}
		}},
		{"init", []string{"init", empty, "--format", "json"}, 0, func(t *testing.T, doc map[string]any) {
			if doc["base"] != empty || doc["gitignore"] != "written" || !strings.Contains(strings.Join(strs(doc["created"]), " "), "cairn.yaml") {
				t.Errorf("init: %v", doc)
			}
		}},
		{"build", []string{"--base", demo, "build", "--format", "json", "--as-of", goldenAsOf}, 0, func(t *testing.T, doc map[string]any) {
			if len(strs(doc["ran"])) == 0 || doc["check"] != false {
				t.Errorf("build: %v", doc)
			}
		}},
		{"build --check", []string{"--base", demo, "build", "--check", "--format", "json", "--as-of", goldenAsOf}, 0, func(t *testing.T, doc map[string]any) {
			if doc["check"] != true || len(doc["changes"].([]any)) != 0 {
				t.Errorf("build --check: %v", doc)
			}
		}},
		{"import kapi", []string{"--base", kapiBase, "import", "kapi", kapiProject, "--format", "json"}, 0, func(t *testing.T, doc map[string]any) {
			if strings.Join(strs(doc["written"]), " ") != strings.Join(kapiImported, " ") || len(strs(doc["voices"])) == 0 {
				t.Errorf("import kapi: %v", doc)
			}
		}},
		{"note suggest", []string{"--base", demo, "note", "suggest", "note:json-out", "Programs read JSON.", "--actor", "agent:test", "--format", "json"}, 0, func(t *testing.T, doc map[string]any) {
			if doc["kind"] != model.OpSuggest || doc["target"] != "note:json-out" || doc["op"] == "" {
				t.Errorf("note suggest: %v", doc)
			}
		}},
		{"note keep", []string{"--base", demo, "note", "keep", "note:json-out", "--actor", "person:ana", "--format", "json"}, 0, func(t *testing.T, doc map[string]any) {
			if doc["kind"] != model.OpKeep || doc["ref"] == "" {
				t.Errorf("note keep: %v", doc)
			}
		}},
		{"check", []string{"--base", demo, "check", "--format", "json", "--as-of", goldenAsOf}, 1, func(t *testing.T, doc map[string]any) {
			if doc["findings"] == nil {
				t.Errorf("check: %v", doc)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cairn(t, c.args...)
			var doc map[string]any
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != c.code {
				t.Fatalf("exit %d (want %d), stdout is not one JSON object (%v):\n%s\nstderr:\n%s", code, c.code, err, stdout, stderr)
			}
			c.check(t, doc)
		})
	}
}

// strs is a decoded JSON list of strings.
func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// TestAtFormatText: text, the name every command gives its default, is a
// by-location answer's Markdown, byte for byte.
func TestAtFormatText(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	_, markdown, _ := cairn(t, "--base", dir, "context", "--at", "docs/api/tokens.md", "--format", "markdown", "--as-of", goldenAsOf)
	code, text, stderr := cairn(t, "--base", dir, "context", "--at", "docs/api/tokens.md", "--format", "text", "--as-of", goldenAsOf)
	if code != 0 || text != markdown || !strings.HasPrefix(text, "# What applies at docs/api/tokens.md") {
		t.Errorf("--at --format text: exit %d, stderr %q, and it differs from markdown:\n%s", code, stderr, text)
	}
}
