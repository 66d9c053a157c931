package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forbiddenTermEntry is a terms-store entry that puts a new line into the
// demo's root rules files, for tests that need a rules change.
const forbiddenTermEntry = "- id: cluster-sprawl\n  term: sprawl\n  status: forbidden\n  replacement: fleet\n"

// freshClone is the demo base as a clone of its repository holds it: built
// once (so its rules files are committed as the build wrote them), then
// without the git-ignored .cairn/.
func freshClone(t *testing.T) string {
	t.Helper()
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	if err := os.RemoveAll(filepath.Join(dir, ".cairn")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheckGateOnAFreshClone: without .cairn/, the gate passes while the
// committed rules files are what a build writes, and fails naming the rules
// files, and only them, when one is not. --artifacts compares .cairn/ too,
// which a fresh clone lacks.
func TestCheckGateOnAFreshClone(t *testing.T) {
	dir := freshClone(t)
	code, stdout, stderr := cairn(t, "--base", dir, "build", "--check", "--as-of", goldenAsOf)
	if code != 0 || stdout != "" {
		t.Fatalf("check of a fresh clone: exit %d, stdout %q, stderr %q; want 0 and nothing listed", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn")); !os.IsNotExist(err) {
		t.Fatalf("the check wrote .cairn/ (%v); it must write nothing", err)
	}

	code, stdout, _ = cairn(t, "--base", dir, "build", "--check", "--artifacts", "--as-of", goldenAsOf)
	if code != 1 || !strings.Contains(stdout, "create\t.cairn/manifest.json\n") {
		t.Errorf("check --artifacts of a fresh clone: exit %d, stdout %q; want 1 listing the artifacts to create", code, stdout)
	}

	appendFile(t, filepath.Join(dir, "governance/terms.yaml"), forbiddenTermEntry)
	code, stdout, stderr = cairn(t, "--base", dir, "build", "--check", "--as-of", goldenAsOf)
	if code != 1 {
		t.Fatalf("check after a terms change: exit %d, want 1; stderr %q", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		action, path, _ := strings.Cut(line, "\t")
		if action != "update" || !(strings.HasSuffix(path, "AGENTS.md") || strings.HasSuffix(path, "CLAUDE.md")) {
			t.Errorf("check lists %q; want only rules files to update", line)
		}
	}
	if !strings.Contains(stdout, "update\tAGENTS.md\n") || !strings.Contains(stderr, "commit the rules files") {
		t.Errorf("check after a terms change: stdout %q, stderr %q; want the root AGENTS.md and a hint to commit", stdout, stderr)
	}
}

// TestCheckGateIgnoresStaleArtifacts: a content edit leaves .cairn/ stale
// but no rules file; the gate passes, and --artifacts names the artifacts.
func TestCheckGateIgnoresStaleArtifacts(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	replaceInFile(t, filepath.Join(dir, "events", "2026-11-04", "tickets.json"), "Pull-through cache for ghcr.io", "Pull-through cache for quay.io")
	if code, stdout, stderr := cairn(t, "--base", dir, "build", "--check", "--as-of", goldenAsOf); code != 0 || stdout != "" {
		t.Errorf("check with stale artifacts only: exit %d, stdout %q, stderr %q; want 0", code, stdout, stderr)
	}
	if code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--artifacts", "--as-of", goldenAsOf); code != 1 || !strings.Contains(stdout, "update\t.cairn/docs.tsv\n") {
		t.Errorf("check --artifacts: exit %d, stdout %q; want 1 naming .cairn/docs.tsv", code, stdout)
	}
}

// TestFailOnChange: the pre-commit build writes everything, and exits 1
// listing the rules files only when it changed one; the next run, with
// nothing new, passes. Stale artifacts alone never fail it.
func TestFailOnChange(t *testing.T) {
	dir := freshClone(t)
	code, stdout, stderr := cairn(t, "--base", dir, "build", "--fail-on-change", "--quiet", "--as-of", goldenAsOf)
	if code != 0 || stdout != "" {
		t.Fatalf("on a fresh clone: exit %d, stdout %q, stderr %q; want 0: only .cairn/ was written", code, stdout, stderr)
	}
	appendFile(t, filepath.Join(dir, "governance/terms.yaml"), forbiddenTermEntry)
	code, stdout, stderr = cairn(t, "--base", dir, "build", "--fail-on-change", "--quiet", "--as-of", goldenAsOf)
	if code != 1 || !strings.Contains(stdout, "update\tAGENTS.md\n") || strings.Contains(stdout, ".cairn/") || !strings.Contains(stderr, "stage them") {
		t.Fatalf("after a terms change: exit %d, stdout %q, stderr %q; want 1 listing the rules files written", code, stdout, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "AGENTS.md")); err != nil || !strings.Contains(string(data), "sprawl") {
		t.Errorf("the root AGENTS.md was not regenerated with the new term: %v\n%s", err, data)
	}
	if code, stdout, stderr := cairn(t, "--base", dir, "build", "--fail-on-change", "--quiet", "--as-of", goldenAsOf); code != 0 || stdout != "" {
		t.Errorf("run again: exit %d, stdout %q, stderr %q; want 0", code, stdout, stderr)
	}
	if code, _, stderr := cairn(t, "--base", dir, "build", "--fail-on-change", "--check"); code != 2 {
		t.Errorf("--fail-on-change with --check: exit %d, want 2 (usage); stderr %q", code, stderr)
	}
	if code, _, stderr := cairn(t, "--base", dir, "build", "--artifacts"); code != 2 {
		t.Errorf("--artifacts without --check: exit %d, want 2 (usage); stderr %q", code, stderr)
	}
}

// TestBuildJSON: --format json reports what ran and every file written, or
// with --check what would be; nothing else on stdout, nothing on stderr.
func TestBuildJSON(t *testing.T) {
	dir := freshClone(t)
	code, stdout, stderr := cairn(t, "--base", dir, "build", "--format", "json", "--as-of", goldenAsOf)
	var rep buildReport
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || stderr != "" {
		t.Fatalf("build --format json: exit %d, %v, stdout %q, stderr %q", code, err, stdout, stderr)
	}
	if rep.Check || len(rep.Ran) == 0 || rep.Items == 0 || len(rep.Changes) == 0 || rep.Changes[0].Committed {
		t.Errorf("build report %+v: want what ran, the items, and the .cairn/ files created", rep)
	}
	appendFile(t, filepath.Join(dir, "governance/terms.yaml"), forbiddenTermEntry)
	code, stdout, _ = cairn(t, "--base", dir, "build", "--check", "--format", "json", "--as-of", goldenAsOf)
	rep = buildReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 1 || err != nil || !rep.Check || len(rep.Changes) == 0 {
		t.Fatalf("check --format json: exit %d, %v, %+v; want 1 and the rules files", code, err, rep)
	}
	for _, ch := range rep.Changes {
		if !ch.Committed || ch.Action != "update" {
			t.Errorf("check lists %+v; want rules files to update only", ch)
		}
	}
}

// appendFile appends text to the file at p.
func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
