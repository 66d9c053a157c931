package load

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
)

// agedBase is a base on disk whose files and folders were all last
// modified an hour ago, as a base is between a build and a query: no stat
// is racy.
func agedBase(t *testing.T) string {
	t.Helper()
	dir := diskBase(t, map[string]string{
		"cairn.yaml":                   "schema: {}\n",
		"events/2026-11-01/git.json":   `{"cairn": 1, "source": "git", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": []}`,
		"events/2026-11-02/git.json":   `{"cairn": 1, "source": "git", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": []}`,
		"index/repos.json":             `{"cairn": 1, "source": "repos", "fields": {"id": ".id", "title": ".t"}, "records": []}`,
		"wiki/tokens.md":               "# Tokens\n",
		"wiki/deep/nested/page.md":     "# Nested\n",
		"projects/p.md":                "# P\n",
		"docs/guide.md":                "# Content, outside the corpus trees\n",
		"governance/voices/house.yaml": "name: house\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "tasks", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	age(t, dir)
	return dir
}

// age sets every modification time under dir an hour back.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// take runs Take on the base at dir with the stat cache as it stands on
// disk, and saves what it learnt the way a query does (StatFile.Refresh).
func take(t *testing.T, dir string) Inventory {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cache := artifacts.ReadStatFile(dir)
	start := time.Now()
	inv, err := Take(context.Background(), dir, root.FS(), cache, artifacts.ConfigCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Stat != nil {
		if err := cache.Refresh(dir, inv.Stat, start); err != nil {
			t.Fatal(err)
		}
	}
	return inv
}

// folderRows lists the folder rows of the base's stat cache.
func folderRows(dir string) []string {
	var rows []string
	artifacts.ReadStatFile(dir).Each(func(p string, e artifacts.StatEntry) {
		if strings.HasSuffix(p, "/") {
			rows = append(rows, p)
		}
	})
	return rows
}

// TestTakeWithoutAWalk: once a walk has put the corpus trees' folders in
// the stat cache, Take lists the inputs from the cache's rows (it has
// nothing to add to the cache: Stat is nil) with the same inputs and keys
// as the walk; and every change a walk would see sends it back to the
// walk, which finds the change: a file added to a folder, a file removed,
// a new day folder, a file in an empty folder, a folder replaced by a
// link. A file edited in place is found by its stat.
func TestTakeWithoutAWalk(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := agedBase(t)
	walked := take(t, dir)
	if walked.Stat == nil {
		t.Fatal("the first Take had no stat cache to go by, yet reports nothing to add to it")
	}
	wantRows := []string{"events/", "events/2026-11-01/", "events/2026-11-02/", "index/", "projects/", "tasks/", "tasks/empty/", "wiki/", "wiki/deep/", "wiki/deep/nested/"}
	if got := folderRows(dir); !cmp.Equal(got, wantRows) {
		t.Fatalf("the stat cache's folder rows: %v, want %v", got, wantRows)
	}
	fast := take(t, dir)
	if fast.Stat != nil {
		t.Errorf("the second Take walked (or hashed): it added %v to the cache", slices.Sorted(maps.Keys(fast.Stat)))
	}
	if !cmp.Equal(fast.Inputs, walked.Inputs) || !cmp.Equal(fast.Keys, walked.Keys) {
		t.Fatalf("from the cache: %v %v\nfrom the walk: %v %v", fast.Inputs, fast.Keys, walked.Inputs, walked.Keys)
	}

	for _, c := range []struct {
		name   string
		change func(t *testing.T)
		input  string // an input the walk must now list, or "" for none
		gone   string // an input it must no longer list
	}{
		{"a file added to a folder", func(t *testing.T) {
			write(t, dir, "events/2026-11-02/tickets.json", `{"cairn": 1, "source": "tickets", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": []}`)
		}, "events/2026-11-02/tickets.json", ""},
		{"a file removed", func(t *testing.T) { remove(t, dir, "wiki/tokens.md") }, "", "wiki/tokens.md"},
		{"a new day", func(t *testing.T) {
			write(t, dir, "events/2026-11-03/git.json", `{"cairn": 1, "source": "git", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": []}`)
		}, "events/2026-11-03/git.json", ""},
		{"a page in an empty folder", func(t *testing.T) { write(t, dir, "tasks/empty/TASKS.md", "# Later\n") }, "", ""},
		{"a page in a nested folder", func(t *testing.T) { write(t, dir, "wiki/deep/nested/more.md", "# More\n") }, "wiki/deep/nested/more.md", ""},
		{"a page edited in place", func(t *testing.T) { write(t, dir, "wiki/deep/nested/page.md", "# Nested, and longer now\n") }, "", ""},
		// Last: a link at the top of a tree sends every Take to the walk.
		{"a folder replaced by a link", func(t *testing.T) {
			remove(t, dir, "projects/p.md")
			remove(t, dir, "projects")
			if err := os.Symlink("wiki", filepath.Join(dir, "projects")); err != nil {
				t.Fatal(err)
			}
		}, "", "projects/p.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := take(t, dir)
			if before.Stat != nil {
				t.Fatal("before the change, Take did not go by the cache's rows")
			}
			c.change(t)
			got := take(t, dir)
			if got.Stat == nil {
				t.Fatal("Take saw no change: it neither walked nor hashed")
			}
			paths := takenPaths(got)
			if c.input != "" && !slices.Contains(paths, c.input) || c.gone != "" && slices.Contains(paths, c.gone) {
				t.Errorf("inputs %v: want %q in and %q out", paths, c.input, c.gone)
			}
			if cmp.Equal(got.Keys[GroupCorpus], before.Keys[GroupCorpus]) && c.name != "a page in an empty folder" {
				t.Errorf("the corpus key did not change")
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			fresh, err := Take(context.Background(), dir, root.FS(), artifacts.StatCache{}, artifacts.ConfigCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got.Inputs, fresh.Inputs) {
				t.Errorf("after the change, Take listed %v; a walk with no cache lists %v", got.Inputs, fresh.Inputs)
			}
			age(t, dir)
			take(t, dir) // the walk's folder rows, now that nothing is racy
		})
	}
}

// TestRacyFoldersAreNotKept: a Take whose stats include a file modified a
// moment ago keeps no folder rows, so the next Take walks again rather
// than trust a listing a write in the same clock tick could have changed.
func TestRacyFoldersAreNotKept(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := agedBase(t)
	take(t, dir)
	if len(folderRows(dir)) == 0 {
		t.Fatal("no folder rows after the first Take")
	}
	write(t, dir, "wiki/new.md", "# New\n")
	take(t, dir)
	if rows := folderRows(dir); len(rows) != 0 {
		t.Errorf("after a walk that met a file written a moment ago, the cache keeps folder rows %v", rows)
	}
}

func takenPaths(inv Inventory) []string {
	var out []string
	for _, in := range inv.Inputs {
		out = append(out, in.Path)
	}
	return out
}

func write(t *testing.T, dir, p, data string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, dir, p string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
		t.Fatal(err)
	}
}

// TestTakeAfterFolderChanges: a folder moved out of the base and replaced
// by a link to it, and a folder deleted with what it held. The walk after
// each change lists what a walk without any cache lists, and so does
// every Take after it: none lists a file below the link, stats through
// it, or keeps walking because of rows the walk left behind.
func TestTakeAfterFolderChanges(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string)
		gone   string
	}{
		{"a folder replaced by a link out of the base", func(t *testing.T, dir string) {
			elsewhere := filepath.Join(t.TempDir(), "deep")
			if err := os.Rename(filepath.Join(dir, "wiki/deep"), elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, filepath.Join(dir, "wiki/deep")); err != nil {
				t.Fatal(err)
			}
		}, "wiki/deep/nested/page.md"},
		{"a folder deleted", func(t *testing.T, dir string) {
			remove(t, dir, "wiki/deep/nested/page.md")
			remove(t, dir, "wiki/deep/nested")
			remove(t, dir, "wiki/deep")
		}, "wiki/deep/nested/page.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			dir := agedBase(t)
			take(t, dir)
			if take(t, dir).Stat != nil {
				t.Fatal("before the change, Take did not go by the cache's rows")
			}
			c.change(t, dir)
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			want, err := Take(context.Background(), dir, root.FS(), artifacts.StatCache{}, artifacts.ConfigCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				got := take(t, dir)
				if !cmp.Equal(got.Inputs, want.Inputs) || slices.Contains(takenPaths(got), c.gone) {
					t.Fatalf("Take %d after the change listed %v; a walk without a cache lists %v", i+1, takenPaths(got), takenPaths(want))
				}
				if i == 0 {
					age(t, dir) // the walk's rows, then, are not racy
				}
				if i == 2 && got.Stat != nil {
					t.Errorf("the third Take after the change still walked or hashed")
				}
			}
		})
	}
}
