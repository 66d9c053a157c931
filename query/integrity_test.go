package query

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/tables"
)

// expanded runs a JSON context query with --expand on dir.
func expanded(t *testing.T, dir string, words ...string) Pack {
	t.Helper()
	out, err := Context(context.Background(), dir, Request{
		Words: words, Budget: DefaultBudget, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC),
		Format: render.FormatJSON, ToolVersion: "test", Expand: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var p Pack
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p
}

// TestEditedGraphIsNotUsed: the graph stage's outputs are read by every
// expanded pack, so an edit of either one makes the index corrupt, with a
// reason naming the file, and the pack is the scan's, as for an edited
// index file. The edit keeps the size, so only the hash can tell.
func TestEditedGraphIsNotUsed(t *testing.T) {
	query := []string{"harbor", "token", "rotation"}
	want := uris(expanded(t, querytest.BuiltDemo(t), query...))
	for _, c := range []struct{ path, old, new string }{
		{artifacts.EdgesDstPath, "\tlink=#1c\n", "\tlink=#1d\n"},
		{artifacts.EdgesPath, "\ttag=tag:sprint\n", "\ttag=tag:sprunt\n"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			querytest.Edit(t, dir, c.path, c.old, c.new)
			ix := open(t, dir)
			if ix.State != corpus.StateCorrupt || !strings.Contains(ix.Reason, c.path) {
				t.Errorf("Open: state %s (%q), want %s naming %s", ix.State, ix.Reason, corpus.StateCorrupt, c.path)
			}
			p := expanded(t, dir, query...)
			if p.Receipt.Index.State != string(corpus.StateCorrupt) || !strings.Contains(p.Receipt.Index.Reason, c.path) {
				t.Errorf("receipt.index = %+v, want %s naming %s", p.Receipt.Index, corpus.StateCorrupt, c.path)
			}
			if got := uris(p); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("expanded pack:\n%v\nwant the clean build's:\n%v", got, want)
			}
		})
	}
}

// TestSameStatEditIsSeen: an artifact edited in place with its size and
// modification time kept is no longer vouched for by the stat cache,
// whose entry holds the change time no program can set back: the query
// hashes it, finds it differs, and answers from the scan.
func TestSameStatEditIsSeen(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	m, err := artifacts.ReadPrevious(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := artifacts.StatCache{}
	artifacts.StampOutputs(dir, m, cache)
	if err := artifacts.WriteStatCache(dir, cache, []string{artifacts.EdgesDstPath}); err != nil {
		t.Fatal(err)
	}
	if ix := open(t, dir); ix.State != corpus.StateUsed {
		t.Fatalf("state %s (%q) before the edit", ix.State, ix.Reason)
	}
	p := filepath.Join(dir, filepath.FromSlash(artifacts.EdgesDstPath))
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	querytest.Edit(t, dir, artifacts.EdgesDstPath, "\tlink=#1c\n", "\tlink=#1d\n")
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(p); err != nil || after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		t.Fatalf("the edit changed the size or time (%v): the test needs a same-stat edit", err)
	}
	if ix := open(t, dir); ix.State != corpus.StateCorrupt || !strings.Contains(ix.Reason, artifacts.EdgesDstPath) {
		t.Errorf("state %s (%q) after a same-size, same-mtime edit; want corrupt, naming %s", ix.State, ix.Reason, artifacts.EdgesDstPath)
	}
}

// TestSessionSeesEditedGraph: a session that answered from the artifacts
// notices an edited edges.dst.tsv on its next request (its watch covers
// .cairn), and answers from the scan, saying why.
func TestSessionSeesEditedGraph(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	s := NewSession(dir)
	defer s.Close()
	req := Request{Words: []string{"harbor", "token", "rotation"}, Budget: DefaultBudget, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC),
		Format: render.FormatJSON, ToolVersion: "test", Expand: true}
	state := func() render.IndexState {
		t.Helper()
		out, err := s.Context(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var p Pack
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return p.Receipt.Index
	}
	for range 2 {
		if ix := state(); ix.State != string(corpus.StateUsed) {
			t.Fatalf("a fresh build: index %+v, want used", ix)
		}
	}
	querytest.Edit(t, dir, artifacts.EdgesDstPath, "\tlink=#1c\n", "\tlink=#1d\n")
	if ix := state(); ix.State != string(corpus.StateCorrupt) || !strings.Contains(ix.Reason, artifacts.EdgesDstPath) {
		t.Errorf("after edges.dst.tsv was edited: index %+v, want corrupt naming it", ix)
	}
}

// TestUnreadableArtifactIsCorrupt: an artifact the system will not open
// (a folder or a link in its place here; its permissions for a user who
// is not root) is a CorruptError, so the query answers from the scan
// rather than exiting with the system's error.
func TestUnreadableArtifactIsCorrupt(t *testing.T) {
	for name, replace := range map[string]func(p string) error{
		"a folder": func(p string) error { return os.Mkdir(p, 0o755) },
		"a link":   func(p string) error { return os.Symlink("docs.tsv", p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			p := filepath.Join(dir, filepath.FromSlash(artifacts.PostingsPath))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := replace(p); err != nil {
				t.Fatal(err)
			}
			_, err := tables.Open(dir)
			var ce *artifacts.CorruptError
			if !errors.As(err, &ce) || ce.Path != artifacts.PostingsPath {
				t.Errorf("tables.Open: %v (%T), want a CorruptError of %s", err, err, artifacts.PostingsPath)
			}
		})
	}
}
