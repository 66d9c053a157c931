package query

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/tables"
)

func open(t *testing.T, dir string) *corpus.Index {
	t.Helper()
	ix, err := corpus.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestOpenStates(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		state  corpus.State
		reason string
	}{
		{"fresh build", func(*testing.T, string) {}, corpus.StateUsed, ""},
		{"a content file changed", func(t *testing.T, dir string) {
			querytest.Edit(t, dir, "docs/getting-started.md", "docker", "container")
		}, corpus.StateUsed, ""},
		{"a record changed", func(t *testing.T, dir string) {
			querytest.Edit(t, dir, "events/2026-11-04/tickets.json", "Pull-through cache for ghcr.io", "Pull-through cache for quay.io")
		}, corpus.StateStale, "events/2026-11-04/tickets.json changed since the build"},
		{"a page was added", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "wiki", "new.md"), []byte("# New\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, corpus.StateStale, "wiki/new.md was added since the build"},
		{"a weight changed", func(t *testing.T, dir string) {
			querytest.Edit(t, dir, "cairn.yaml", "weight: 5", "weight: 6")
		}, corpus.StateStale, "ranking semantics changed"},
		{"postings truncated", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".cairn", "postings.tsv")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/2], 0o644)
		}, corpus.StateCorrupt, ".cairn/postings.tsv does not match"},
		{"terms edited in place", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".cairn", "terms.tsv")
			data, _ := os.ReadFile(p)
			data[len(data)-3] ^= 1
			os.WriteFile(p, data, 0o644)
		}, corpus.StateCorrupt, ".cairn/terms.tsv does not match"},
		{"manifest garbled", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".cairn", "manifest.json"), []byte("{not json"), 0o644)
		}, corpus.StateCorrupt, "manifest.json"},
		{"never built", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".cairn"))
		}, corpus.StateMissing, "run cairn build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			c.change(t, dir)
			ix := open(t, dir)
			if ix.State != c.state || !strings.Contains(ix.Reason, c.reason) {
				t.Errorf("state %s (%q), want %s containing %q", ix.State, ix.Reason, c.state, c.reason)
			}
			if ix.Path != ".cairn/manifest.json" {
				t.Errorf("path %q", ix.Path)
			}
			if (ix.State == corpus.StateUsed) != (ix.Manifest != nil) {
				t.Errorf("manifest returned with state %s: %v", ix.State, ix.Manifest != nil)
			}
		})
	}
}

// TestBodyChangedAfterOpen: bodies are read only for the records a query
// re-projects, so one rewritten between Open and that read must still be
// caught, as a damaged artifact the query falls back from.
func TestBodyChangedAfterOpen(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	ix := open(t, dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c, err := corpus.OpenIndex(dir, root.FS(), ix.Config, ix.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const uri = "events/2026-11-06/meetings.json#r%C3%A9tro%20sprint%2022"
	if !c.HasBody(uri) {
		t.Fatalf("the demo base has no body for %s", uri)
	}
	ord, err := c.Search(uri)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bodies/meetings/2026-11-06-retro-sprint-22.md"), []byte("rewritten"), 0o644); err != nil {
		t.Fatal(err)
	}
	row, err := c.Row(ord)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Item(ord, row)
	var ce *artifacts.CorruptError
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "the cached body bodies/meetings/2026-11-06-retro-sprint-22.md changed since the build") {
		t.Fatalf("Item after the body changed: %v; want a CorruptError naming the body", err)
	}
}

// TestIndexFilesCurrent checks the test that lets an indexed query use
// artifacts it read before Open checked them: a file replaced since, even
// by identical bytes, is another file.
func TestIndexFilesCurrent(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	f, err := corpus.ReadIndexFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { f.Tables.Close() }() // the last one read
	if !f.Current(dir) {
		t.Fatal("files just read are not current")
	}
	for _, name := range []string{artifacts.DocsPath, artifacts.DocumentsPath} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".new", data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
		if f.Current(dir) {
			t.Errorf("%s was replaced, yet the files read before count as current", name)
		}
		g, err := corpus.ReadIndexFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		f.Tables.Close()
		f = g
	}
}

// TestOpenRefreshesStatCache: an input whose stat the cache cannot vouch
// for (no entry yet, or touched since with its bytes unchanged) is hashed
// by the query, which still uses the artifacts, and its stat goes into
// the cache so that the next query does not hash it again.
func TestOpenRefreshesStatCache(t *testing.T) {
	dir := querytest.BuiltDemo(t) // its files are minutes old: only rel is not racy
	const rel = "events/2026-11-02/tickets.json"
	for _, ago := range []time.Duration{2 * time.Hour, time.Hour} {
		touched := time.Now().Add(-ago).Truncate(time.Second)
		if err := os.Chtimes(filepath.Join(dir, rel), touched, touched); err != nil {
			t.Fatal(err)
		}
		if ix := open(t, dir); ix.State != corpus.StateUsed {
			t.Fatalf("state %s (%s), want used: the bytes did not change", ix.State, ix.Reason)
		}
		e, ok := artifacts.ReadStatCache(dir)[rel]
		if !ok || e.MtimeNS != touched.UnixNano() {
			t.Errorf("touched %v ago: the cache holds %v, %v for %s; want its new mtime %d", ago, e, ok, rel, touched.UnixNano())
		}
	}
}

// TestOpenLinkedArtifactsFolder: a .cairn that is a symbolic link, to a
// folder outside the base or inside it, holding artifacts that match the
// base, is not read through: the query answers from the scan and the
// receipt says why, as a corrupt index.
func TestOpenLinkedArtifactsFolder(t *testing.T) {
	query := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	want := uris(answer(t, querytest.BuiltDemo(t), query...))
	for name, target := range map[string]func(t *testing.T, dir string) string{
		"outside the base": func(t *testing.T, dir string) string { return filepath.Join(t.TempDir(), "artifacts") },
		"inside the base":  func(t *testing.T, dir string) string { return filepath.Join(dir, "elsewhere") },
	} {
		t.Run(name, func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			moved := target(t, dir)
			if err := os.Rename(filepath.Join(dir, artifacts.Dir), moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, filepath.Join(dir, artifacts.Dir)); err != nil {
				t.Skipf("no symlinks here: %v", err)
			}
			const reason = ".cairn is a symbolic link"
			ix := open(t, dir)
			if ix.State != corpus.StateCorrupt || !strings.HasPrefix(ix.Reason, reason) || ix.Manifest != nil {
				t.Errorf("state %s (%q), manifest %v; want %s starting %q and no manifest", ix.State, ix.Reason, ix.Manifest != nil, corpus.StateCorrupt, reason)
			}
			p := answer(t, dir, query...)
			if p.Receipt.Index.State != string(corpus.StateCorrupt) || !strings.HasPrefix(p.Receipt.Index.Reason, reason) {
				t.Errorf("receipt.index = %+v, want %s starting %q", p.Receipt.Index, corpus.StateCorrupt, reason)
			}
			if got := uris(p); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("answer from the scan:\n%v\nwant:\n%v", got, want)
			}
			// The artifact reader refuses the link too, even one that
			// stays inside the base.
			var linked *artifacts.LinkError
			if r, err := tables.Open(dir); !errors.As(err, &linked) {
				if r != nil {
					r.Close()
				}
				t.Errorf("tables.Open through a linked %s: %v, want a *artifacts.LinkError", artifacts.Dir, err)
			}
		})
	}
}
