package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusGolden: cairn status of the demo base, as text and as JSON,
// after a build; the base's folder is written BASE.
func TestStatusGolden(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	buildAt(t, dir, goldenAsOf)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := cairn(t, "--base", dir, "status", "--as-of", goldenAsOf, "--format", format)
			if code != 0 {
				t.Fatalf("status exited %d: %s", code, stderr)
			}
			compareGolden(t, filepath.Join("testdata", "status", "demo."+format), strings.ReplaceAll(stdout, dir, "BASE"))
		})
	}
}

// TestStatusStates: the artifacts' state follows the base: missing before
// the first build, stale after a content edit (naming the stages a build
// would run), blocked while the base has an error, and a rules file edited
// inside its section is named; status itself writes nothing.
func TestStatusStates(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	state := func() (string, []string) {
		t.Helper()
		code, stdout, stderr := cairn(t, "--base", dir, "status", "--as-of", goldenAsOf, "--format", "json")
		var r struct {
			Artifacts struct {
				State string   `json:"state"`
				Stale []string `json:"stale_stages"`
			} `json:"artifacts"`
			Rules struct {
				WouldChange []string `json:"would_change"`
			} `json:"rules_files"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil {
			t.Fatalf("status exited %d (%v): %s%s", code, err, stdout, stderr)
		}
		return r.Artifacts.State + " " + strings.Join(r.Artifacts.Stale, ","), r.Rules.WouldChange
	}
	if s, _ := state(); s != "missing " {
		t.Errorf("before a build: %q", s)
	}
	if exists(dir, ".cairn") {
		t.Error("status wrote .cairn/")
	}
	buildAt(t, dir, goldenAsOf)
	if s, _ := state(); s != "current " {
		t.Errorf("after a build: %q", s)
	}
	writeText(t, dir, "docs/getting-started.md", readText(t, dir, "docs/getting-started.md")+"\nOne more line.\n")
	if s, _ := state(); s != "stale usage,rules" {
		t.Errorf("after a content edit: %q", s)
	}
	buildAt(t, dir, goldenAsOf)
	agents := readText(t, dir, "docs/AGENTS.md")
	edited := strings.Replace(agents, "These add to the rules", "These replace the rules", 1)
	if edited == agents {
		t.Fatal("the demo's docs/AGENTS.md changed under this test")
	}
	writeText(t, dir, "docs/AGENTS.md", edited)
	if s, files := state(); s != "stale rules" || strings.Join(files, ",") != "docs/AGENTS.md" {
		t.Errorf("after a hand edit inside a section: %q %v", s, files)
	}
	writeText(t, dir, "cairn.yaml", readText(t, dir, "cairn.yaml")+"colour: blue\n")
	if s, _ := state(); s != "blocked " {
		t.Errorf("with an error in cairn.yaml: %q", s)
	}
}
