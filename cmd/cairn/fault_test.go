package main

// The fault-injection suite's attacks on a built base, through the real
// command tree: a symbolic link planted at each path a build writes, and
// each artifact damaged in each way a disk or a person can damage it. The
// kill test is artifacts.TestKilledBuildRecovers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// faultDay is the day every build and query of these tests runs on.
const faultDay = "2026-11-10"

// faultWords is the question asked of a damaged base, expanded so that
// the graph's files are read too.
var faultWords = []string{"pull", "through", "cache", "harbor", "token"}

// faultBuild runs cairn build on dir and returns its exit code and stderr.
func faultBuild(t *testing.T, dir string) (int, string) {
	t.Helper()
	code, _, stderr := cairn(t, "--base", dir, "build", "--quiet", "--as-of", faultDay)
	return code, stderr
}

// faultAsk answers faultWords on dir with --expand and returns the items,
// encoded, and receipt.index.
func faultAsk(t *testing.T, dir string) (string, map[string]string) {
	t.Helper()
	args := append([]string{"--base", dir, "context", "--format", "json", "--expand", "--as-of", faultDay}, faultWords...)
	code, stdout, stderr := cairn(t, args...)
	if code != 0 {
		t.Fatalf("cairn context exited %d:\n%s", code, stderr)
	}
	var p struct {
		Items   json.RawMessage `json:"items"`
		Receipt struct {
			Index map[string]string `json:"index"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return string(p.Items), p.Receipt.Index
}

// termIndex reads a term and returns the index state its usage counts
// came with.
func termIndex(t *testing.T, dir string) map[string]string {
	t.Helper()
	code, stdout, stderr := cairn(t, "--base", dir, "read", "--format", "json", "term:harbor")
	if code != 0 {
		t.Fatalf("cairn read exited %d:\n%s", code, stderr)
	}
	var a struct {
		Index map[string]string `json:"index"`
	}
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return a.Index
}

// faultDemo is a fresh copy of the demo base, built, and what a clean
// build leaves there.
func faultDemo(t *testing.T) (dir string, tree map[string][]byte) {
	t.Helper()
	dir = copyBase(t, "demo")
	if code, stderr := faultBuild(t, dir); code != 0 {
		t.Fatalf("cairn build exited %d:\n%s", code, stderr)
	}
	return dir, builtTree(t, dir)
}

// builtTree is every file of a base but the lock's holder file, which
// names the process and the time it was taken.
func builtTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	tree := readTree(t, dir)
	delete(tree, artifacts.LockPath)
	return tree
}

// sameBase fails for every file added, removed or changed against want.
func sameBase(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	var diffs []string
	for p, data := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, p+" is missing")
		} else if !bytes.Equal(g, data) {
			diffs = append(diffs, p+" differs")
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, p+" was added")
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Errorf("%s, against a clean build: %s", what, strings.Join(diffs, "; "))
	}
}

// outside is a folder outside the base holding one file, with a
// fingerprint of the folder to tell whether anything wrote there.
type outside struct {
	dir, file string
}

func newOutside(t *testing.T) outside {
	t.Helper()
	o := outside{dir: t.TempDir()}
	o.file = filepath.Join(o.dir, "victim.txt")
	if err := os.WriteFile(o.file, []byte("a file outside the base; cairn must never write here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(o.file, old, old); err != nil {
		t.Fatal(err)
	}
	return o
}

// state lists every entry under the folder with its size, mode and mtime.
func (o outside) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(o.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(o.dir, p)
		fmt.Fprintf(&b, "%s %d %v %d\n", rel, info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// plantLink replaces the path rel of the base at dir with a link to
// target.
func plantLink(t *testing.T, dir, rel, target string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// TestSymlinkAttacks plants a link leaving the base at each path a build
// writes: each file under .cairn (artifacts, manifest, lock), .cairn
// itself, a rules file at the root and in a folder, and a folder of rules
// files. A build must then either replace the link (under .cairn, where
// every file is cairn's) and leave the base as a clean build does, or
// refuse with an error naming the link; and nothing outside the base may
// change.
func TestSymlinkAttacks(t *testing.T) {
	isolate(t)
	_, clean := faultDemo(t)
	var paths []string
	for p := range clean {
		if strings.HasPrefix(p, artifacts.Dir+"/") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	paths = append(paths, artifacts.LockPath, artifacts.Dir, "AGENTS.md", "CLAUDE.md", "docs/api/AGENTS.md", "blog")
	for _, rel := range paths {
		t.Run(rel, func(t *testing.T) {
			isolate(t)
			dir, _ := faultDemo(t)
			out := newOutside(t)
			target := out.file
			if rel == artifacts.Dir || rel == "blog" {
				// A folder: the link points at a copy of it outside the
				// base, which a build writing through it would change.
				target = filepath.Join(out.dir, "copy")
				if err := os.CopyFS(target, os.DirFS(filepath.Join(dir, filepath.FromSlash(rel)))); err != nil {
					t.Fatal(err)
				}
			}
			plantLink(t, dir, rel, target)
			before := out.state(t)
			code, stderr := faultBuild(t, dir)
			t.Logf("exit %d: %s", code, strings.TrimSpace(stderr))
			if after := out.state(t); after != before {
				t.Errorf("the build wrote outside the base (exit %d, %s):\nbefore:\n%s\nafter:\n%s", code, stderr, before, after)
			}
			info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
			switch {
			case code == 0 && rel == artifacts.LockPath && errors.Is(err, fs.ErrNotExist):
				// The holder file goes with the lock: the link went first.
				sameBase(t, "a build replacing the link at "+rel, clean, builtTree(t, dir))
			case err != nil:
				t.Fatalf("after the build (exit %d, %s): %v", code, stderr, err)
			case code == 0 && info.Mode()&fs.ModeSymlink != 0:
				t.Errorf("the build succeeded and left the link at %s", rel)
			case code == 0:
				sameBase(t, "a build replacing the link at "+rel, clean, builtTree(t, dir))
			case !strings.Contains(stderr, rel):
				t.Errorf("the build refused (exit %d) with an error not naming %s:\n%s", code, rel, stderr)
			}
		})
	}
}

// damage is one way an artifact gets broken.
type damage struct {
	name string
	do   func(t *testing.T, p string)
}

var damages = []damage{
	{"truncated", func(t *testing.T, p string) {
		data := mustRead(t, p)
		if err := os.WriteFile(p, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"a byte flipped", func(t *testing.T, p string) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		data := mustRead(t, p)
		data[len(data)/2] ^= 0x01
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Edited a second after the build wrote it, as a person would: a
		// query sees a stat its cache does not vouch for. (An edit that
		// keeps the stat is what only build --check finds; see
		// TestCheckHashesEveryOutput.)
		later := st.ModTime().Add(time.Second)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}},
	{"removed", func(t *testing.T, p string) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}},
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// damagedIndex is the receipt.index state, and a word of its reason, that
// a query must give after the damage named how was done to the artifact
// at rel. A removed manifest is a base never built. A byte flipped in the
// manifest's middle lands in its input list, which no query relies on: a
// query reads the head alone (the stage keys, checked against the base's
// own inventory, and the stamps of the outputs, checked against the
// files), so the artifacts stay usable, and the next build rewrites the
// list.
func damagedIndex(rel, how string) (state, reason string) {
	switch {
	case rel == artifacts.ManifestPath && how == "removed":
		return "missing", "run cairn build"
	case rel == artifacts.ManifestPath && how == "a byte flipped":
		return "used", ""
	}
	return "corrupt", rel
}

// TestCorruptArtifacts damages each artifact in each way. A query reading
// it must not use the artifacts: receipt.index is corrupt with a reason
// naming the file, and the pack is the one a clean build gives (from the
// scan). Usage counts, read by term answers, say the same. The next build
// repairs the base to what a clean build leaves, and --check then finds
// nothing to change.
func TestCorruptArtifacts(t *testing.T) {
	isolate(t)
	cleanDir, clean := faultDemo(t)
	wantItems, wantIndex := faultAsk(t, cleanDir)
	if wantIndex["state"] != "used" {
		t.Fatalf("the clean build's query: index %v, want used", wantIndex)
	}
	m, err := artifacts.ReadPrevious(cleanDir)
	if err != nil {
		t.Fatal(err)
	}
	stage := map[string]string{artifacts.ManifestPath: "manifest"}
	for _, s := range m.Stages {
		for _, p := range s.Outputs {
			stage[p] = s.Stage
		}
	}
	for _, rel := range slices.Sorted(func(yield func(string) bool) {
		for p := range stage {
			if strings.HasPrefix(p, artifacts.Dir+"/") && !yield(p) {
				return
			}
		}
	}) {
		for _, d := range damages {
			t.Run(rel+"/"+d.name, func(t *testing.T) {
				isolate(t)
				dir, _ := faultDemo(t)
				d.do(t, filepath.Join(dir, filepath.FromSlash(rel)))
				switch stage[rel] {
				case "index", "graph", "manifest":
					items, index := faultAsk(t, dir)
					if want, why := damagedIndex(rel, d.name); index["state"] != want || !strings.Contains(index["reason"], why) {
						t.Errorf("receipt.index = %v, want %s naming %q", index, want, why)
					}
					if items != wantItems {
						t.Errorf("the pack differs from a clean build's:\n%s\nwant\n%s", items, wantItems)
					}
				case "usage":
					if index := termIndex(t, dir); index["state"] != "corrupt" || !strings.Contains(index["reason"], rel) {
						t.Errorf("a term's usage index = %v, want corrupt naming %s", index, rel)
					}
				}
				if code, stderr := faultBuild(t, dir); code != 0 {
					t.Fatalf("the build after the damage exited %d:\n%s", code, stderr)
				}
				sameBase(t, "the build after the damage", clean, builtTree(t, dir))
				if code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--artifacts", "--as-of", faultDay); code != 0 {
					t.Errorf("--check after the repair: exit %d\n%s", code, stdout)
				}
			})
		}
	}
}
