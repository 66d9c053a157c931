package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPErrorsNameNoAbsolutePath: the errors a client is sent (a tool's
// error result, a JSON-RPC error) name paths relative to the base, never
// where the base is on this machine.
func TestMCPErrorsNameNoAbsolutePath(t *testing.T) {
	dir := builtDemo(t)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := serve(t, dir)
	check := func(what, text, says string) {
		t.Helper()
		if strings.Contains(text, dir) || strings.Contains(text, real) {
			t.Errorf("%s: the error names the base's absolute path:\n%s", what, text)
		}
		if !strings.Contains(text, says) {
			t.Errorf("%s: the error does not say %q:\n%s", what, says, text)
		}
	}
	text, isErr := ts.call(t, "context_read", map[string]any{"path": "../outside.md"})
	if !isErr {
		t.Errorf("context_read outside the base is not an error: %s", text)
	}
	check("context_read outside the base", text, "../outside.md is outside the base")
	_, _, err = ts.read(t, "context://../outside.md")
	if err == nil {
		t.Fatal("reading context://../outside.md is not an error")
	}
	check("resources/read outside the base", err.Error(), "../outside.md is outside the base")

	// An error of the file system, which names the file it failed on: a
	// folder of the base replaced by a file makes the refresh after a
	// suggestion fail.
	if err := os.RemoveAll(filepath.Join(dir, "docs", "api")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "api"), []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ts.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "context_note", Arguments: map[string]any{"target": "note:redact", "text": "Seen while docs/api is a file."}})
	if err != nil || !res.IsError {
		t.Fatalf("context_note with docs/api a file: %v %+v", err, res)
	}
	check("context_note's refresh", res.Content[0].(*mcp.TextContent).Text, "docs/api")
}

// TestBaseRedactor: paths under the root, spelled as given or through
// its symbolic link, become relative; the root alone becomes "the base";
// a sibling whose name starts like the root's stays.
func TestBaseRedactor(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "notes")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	real, _ = filepath.EvalSymlinks(real) // the temp dir may itself be behind a link
	r := newBaseRedactor(link)
	for in, want := range map[string]string{
		"../x is outside the base " + link + "; ask about a path inside it": "../x is outside the base; ask about a path inside it",
		"open " + real + "/docs/a.md: permission denied":                    "open docs/a.md: permission denied",
		"readdirent " + link + "/docs/api: not a directory":                 "readdirent docs/api: not a directory",
		"cannot lock " + real + ": busy":                                    "cannot lock the base: busy",
		"no cairn.yaml in " + link + ".":                                    "no cairn.yaml in the base.",
		"see " + real + "-old/x and " + link + ".bak":                       "see " + real + "-old/x and " + link + ".bak",
		"nothing to hide": "nothing to hide",
	} {
		if got := r.redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
