package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCommand drives `cairn eval` through the real command tree on a
// copy of the demo base: a report per format, exit 1 on a failing suite,
// exit 2 with file:line on a malformed one, and a baseline comparison.
func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../golden/demo/base")); err != nil {
		t.Fatal(err)
	}
	suite := "../../golden/demo/eval.yaml"

	code, out, errOut := cairn(t, "--base", dir, "eval", "--format", "json", suite)
	var report struct {
		Queries []struct{ Question string } `json:"queries"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || len(report.Queries) < 15 {
		t.Fatalf("eval --format json: %d questions, %v (exit %d, stderr %q)", len(report.Queries), err, code, errOut)
	}
	prev := filepath.Join(t.TempDir(), "prev.json")
	if err := os.WriteFile(prev, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code2, text, _ := cairn(t, "--base", dir, "eval", "--baseline", prev, suite)
	if code2 != code || !strings.Contains(text, "recall@5") || !strings.Contains(text, prev) {
		t.Errorf("eval --baseline: exit %d (json run %d), report:\n%s", code2, code, text)
	}

	code, _, errOut = cairn(t, "--base", dir, "eval", "../../query/eval/testdata/fail.yaml")
	if code != 1 || !strings.Contains(errOut, "failed") {
		t.Errorf("a failing suite: exit %d, stderr %q; want 1 and the count of failures", code, errOut)
	}
	code, _, errOut = cairn(t, "--base", dir, "eval", "../../query/eval/testdata/malformed.yaml")
	if code != 2 || !strings.Contains(errOut, "malformed.yaml:3:4:") {
		t.Errorf("a malformed suite: exit %d, stderr %q; want 2 and file:line:col", code, errOut)
	}
	code, _, errOut = cairn(t, "--base", dir, "eval", filepath.Join(dir, "no-such-suite.yaml"))
	if code != 2 || !strings.Contains(errOut, "cannot read the suite") {
		t.Errorf("a missing suite: exit %d, stderr %q; want 2", code, errOut)
	}
}
