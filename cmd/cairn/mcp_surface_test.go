package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// surfacePath is the snapshot of what cairn mcp offers.
const surfacePath = "testdata/mcp-surface.json"

// surface is what a client learns of the server before it calls anything.
type surface struct {
	Instructions      string                  `json:"instructions"`
	Tools             []*mcp.Tool             `json:"tools"`
	ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates"`
}

// TestMCPSurfaceSnapshot locks the tool names, input schemas,
// annotations and resource templates as a contract: names and addresses
// may be added (run with CAIRN_UPDATE_GOLDEN=1 and review), never renamed or dropped,
// which the second half checks against the snapshot whatever CAIRN_UPDATE_GOLDEN says.
func TestMCPSurfaceSnapshot(t *testing.T) {
	ts := serve(t, builtDemo(t))
	ctx := context.Background()
	tools, err := ts.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := ts.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := surface{Instructions: ts.cs.InitializeResult().Instructions, Tools: tools.Tools, ResourceTemplates: templates.ResourceTemplates}
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	old, readErr := os.ReadFile(surfacePath)
	if update() {
		if err := os.MkdirAll(filepath.Dir(surfacePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(surfacePath, data, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if readErr != nil || string(old) != string(data) {
		t.Errorf("the MCP surface differs from %s (run with CAIRN_UPDATE_GOLDEN=1 and review):\n%s", surfacePath, cmp.Diff(string(old), string(data)))
	}
	if readErr != nil {
		return
	}
	var was surface
	if err := json.Unmarshal(old, &was); err != nil {
		t.Fatal(err)
	}
	var names, uris []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
	}
	for _, rt := range got.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	for _, tool := range was.Tools {
		if !slices.Contains(names, tool.Name) {
			t.Errorf("tool %q was renamed or dropped: agents call it by that name", tool.Name)
		}
	}
	for _, rt := range was.ResourceTemplates {
		if !slices.Contains(uris, rt.URITemplate) {
			t.Errorf("resource template %q was renamed or dropped", rt.URITemplate)
		}
	}
}

// TestMCPAnnotations: every tool but context_note is read-only,
// idempotent, non-destructive and closed-world; context_note is the one
// writer, and it destroys nothing.
func TestMCPAnnotations(t *testing.T) {
	for _, tool := range mcpTools {
		a := tool.spec().Annotations
		if a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: destructive or open-world", tool.name)
		}
		if ro := tool.name != "context_note"; a.ReadOnlyHint != ro || a.IdempotentHint != ro || tool.writes == ro {
			t.Errorf("%s: readOnly %v idempotent %v writes %v", tool.name, a.ReadOnlyHint, a.IdempotentHint, tool.writes)
		}
	}
}
