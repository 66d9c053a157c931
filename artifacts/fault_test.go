package artifacts_test

// The fault-injection suite's kill test: builds stopped dead at every
// point where Sync touches the disk. It lives in the external test
// package because it drives whole builds (stages) and queries (query),
// which import this package.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages"
)

// faultAsOf is the day every build and query of this suite runs on.
var faultAsOf = time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)

// faultQuery is the question asked after each killed build, expanded so
// that the graph's files are read too.
var faultQuery = []string{"pull", "through", "cache", "harbor", "token"}

// killed is what a fault point panics with: the build stops there, as a
// process killed at that instant would, and nothing after it runs
// (writeAtomic's cleanup of its temp file included, as after a real kill).
type killed struct{ point string }

// killAt makes the n-th disk operation of Sync (from 0) panic with killed,
// and returns the operations met so far (all of them when n is negative).
func killAt(t *testing.T, n int) *[]string {
	var seen []string
	artifacts.SetSyncHook(t, func(event, path string) error {
		point := event + " " + path
		if len(seen) == n {
			panic(killed{point})
		}
		seen = append(seen, point)
		return nil
	})
	return &seen
}

// buildBase builds the base at dir as `cairn build` does (lock, previous
// manifest, stat cache, Sync, outputs stamped, stat cache saved). It
// reports whether a fault point killed it; the lock goes with the killed
// build as it goes with a killed process.
func buildBase(t *testing.T, dir string) (died bool) {
	t.Helper()
	lock, err := artifacts.AcquireLock(dir, "fault test")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killed); !ok {
				panic(r)
			}
			died = true
		}
	}()
	start := time.Now()
	prev, _ := artifacts.ReadPrevious(dir) // unreadable: rebuild everything, as cairn build does
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cache := artifacts.ReadStatCache(dir)
	out, err := stages.Build(context.Background(), stages.Input{FS: root.FS(), Stat: cache, Previous: prev,
		Intact: artifacts.Intact(dir, prev, cache), ToolVersion: "test", AsOf: faultAsOf})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	out.Plan.Root = dir
	if _, err := artifacts.Sync(out.Plan); err != nil {
		t.Fatalf("sync: %v", err)
	}
	out.Stat.DropRacy(start)
	if m, err := artifacts.DecodeManifestHead(out.Plan.Manifest.Data); err == nil {
		artifacts.StampOutputs(dir, &m, out.Stat)
	}
	if err := artifacts.WriteStatCache(dir, out.Stat, slices.Sorted(maps.Keys(out.Stat))); err != nil {
		t.Fatal(err)
	}
	return false
}

// ask answers faultQuery on dir and returns the pack's items, encoded,
// and receipt.index.
func ask(t *testing.T, dir string) (items string, index render.IndexState) {
	t.Helper()
	out, err := query.Context(context.Background(), dir, query.Request{Words: faultQuery, Budget: query.DefaultBudget,
		AsOf: faultAsOf, Format: query.FormatJSON, ToolVersion: "test", Expand: true})
	if err != nil {
		t.Fatal(err)
	}
	var p query.Pack
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, err := json.Marshal(p.Items)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), p.Receipt.Index
}

// copyTree copies the folder src to a new folder and returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// isTemp reports whether a file name is one of Sync's temp files, of
// today's naming or the one before it.
func isTemp(name string) bool {
	return strings.HasPrefix(name, artifacts.TempPrefix) || strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// baseTree reads every file of a base but the lock's holder file (it
// names the process and the time) and Sync's temp files: what two builds
// of the same base must agree on byte for byte. It also returns the temp
// files it left out.
func baseTree(t *testing.T, dir string) (files map[string][]byte, temps []string) {
	t.Helper()
	files = map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == artifacts.LockPath:
			return nil
		case isTemp(d.Name()):
			temps = append(temps, rel)
			return nil
		}
		data, err := os.ReadFile(p)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, temps
}

// sameTree fails for every file that differs between two bases.
func sameTree(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s is missing", what, p)
		} else if !bytes.Equal(g, want[p]) {
			t.Errorf("%s: %s differs from a clean build's", what, p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s is there, and not in a clean build", what, p)
		}
	}
}

// editBase makes the second version of the demo base: a record changed
// (index and graph run again), a term's definition changed (usage and the
// rules run again, rewriting rules files) and the one French page removed
// (its folder's rules files are deleted).
func editBase(t *testing.T, dir string) {
	t.Helper()
	for _, e := range []struct{ path, old, new string }{
		{"events/2026-11-04/tickets.json", "Pull-through cache for ghcr.io", "Pull-through cache for quay.io"},
		{"governance/terms.yaml", "A list of things that are explicitly permitted", "A list of the things explicitly permitted"},
	} {
		p := filepath.Join(dir, filepath.FromSlash(e.path))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(data, []byte(e.old), []byte(e.new), 1)
		if bytes.Equal(edited, data) {
			t.Fatalf("%s holds no %q: the demo base changed under this test", e.path, e.old)
		}
		if err := os.WriteFile(p, edited, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "docs", "fr", "guide.md")); err != nil {
		t.Fatal(err)
	}
}

// killPoints returns the points to kill a build of n disk operations at,
// in order: 0 to n-1 (before each operation) and n (after them all), or,
// when sample is set, that many of them drawn with a fixed seed, the last
// three (the manifest's write and rename, and after) always included.
func killPoints(n, sample int) []int {
	all := make([]int, n+1)
	for i := range all {
		all[i] = i
	}
	if sample == 0 || sample >= len(all) {
		return all
	}
	rng := rand.New(rand.NewPCG(19, 7))
	picked := all[len(all)-3:]
	for _, i := range rng.Perm(len(all) - 3)[:sample-3] {
		picked = append(picked, i)
	}
	slices.Sort(picked)
	return picked
}

// TestKilledBuildRecovers kills a build at the points where it touches
// the disk: before each write, rename and delete of Sync, and just after
// Sync (before the stat cache is saved). It does so at every point of a
// rebuild after the base changed, and at a seeded sample of the points of
// a first build. After each kill, the
// next query must give the answer a clean build of the base gives (from
// the artifacts when they are current, else from the scan, with
// receipt.index saying so), and the next build must leave the base byte
// for byte as a clean build does.
func TestKilledBuildRecovers(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	demo := copyTree(t, "../golden/demo/base")
	v1 := copyTree(t, demo)
	buildBase(t, v1)
	v2 := copyTree(t, demo)
	editBase(t, v2)
	buildBase(t, v2)
	for _, c := range []struct {
		name    string
		prepare func(t *testing.T) string // the base the killed build runs on
		clean   string                    // a clean build of that base
		sample  int                       // how many points to kill at; 0 for all
	}{
		// A first build's points differ little (a write and a rename per
		// file, no old files): a seeded sample of them, the manifest's
		// always among them, keeps the test to a few seconds.
		{"first build", func(t *testing.T) string { return copyTree(t, demo) }, v1, 12},
		{"rebuild after edits", func(t *testing.T) string {
			dir := copyTree(t, v1) // built, its stat cache not carried over
			buildBase(t, dir)      // now with one, as on a machine that built it
			editBase(t, dir)
			return dir
		}, v2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantTree, _ := baseTree(t, c.clean)
			wantItems, wantIndex := ask(t, c.clean)
			if wantIndex.State != string(query.StateUsed) {
				t.Fatalf("the clean build's query: index %+v, want used", wantIndex)
			}
			// A build run through to the end lists every point there is.
			seen := killAt(t, -1)
			buildBase(t, c.prepare(t))
			points := *seen
			t.Logf("%d points: %v", len(points), points)
			if len(points) < 10 {
				t.Fatalf("the build touched the disk only at %v", points)
			}
			for _, n := range killPoints(len(points), c.sample) {
				point := "after sync"
				if n < len(points) {
					point = points[n]
				}
				dir := c.prepare(t)
				killAt(t, n)
				died := buildBase(t, dir)
				killAt(t, -1) // no fault from here on
				if died != (n < len(points)) {
					t.Fatalf("kill at %q: the build died %v", point, died)
				}
				items, index := ask(t, dir)
				if items != wantItems {
					t.Errorf("kill at %q: the next query (index %+v) answers\n%s\nwant the clean build's\n%s", point, index, items, wantItems)
				}
				if index.State == string(query.StateUsed) && n < len(points) && c.name == "rebuild after edits" {
					// The manifest is renamed last: the one on disk is
					// still the old build's, which cannot vouch for the
					// edited base.
					t.Errorf("kill at %q: the next query used the artifacts of the base before its edits", point)
				}
				buildBase(t, dir)
				got, temps := baseTree(t, dir)
				sameTree(t, fmt.Sprintf("kill at %q, then a build", point), wantTree, got)
				if len(temps) > 0 {
					// The next build, under the lock, removes what a killed
					// one left.
					t.Errorf("kill at %q: the next build left %v", point, temps)
				}
			}
		})
	}
}
