package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/google/go-cmp/cmp"
)

// update reports whether CAIRN_UPDATE_GOLDEN=1 asks to rewrite want/.
var update = goldentest.Update

// goldenRoot is the golden folder, relative to this package.
const goldenRoot = "../../golden"

// goldenAsOf is the day every golden build evaluates governance windows
// at, the day the demo's queries are asked on.
const goldenAsOf = "2026-11-10"

// goldenCases lists golden/<case> folders that hold a base.
func goldenCases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(goldenRoot, e.Name(), "base", "cairn.yaml")); err == nil {
				cases = append(cases, e.Name())
			}
		}
	}
	if len(cases) < 3 {
		t.Fatalf("found golden cases %v, want at least demo, edge and bad", cases)
	}
	return cases
}

// copyBase copies golden/<case>/base into a fresh folder.
func copyBase(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(goldenRoot, name, "base"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cairn runs the real command tree and returns its exit code and output.
func cairn(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Getwd: os.Getwd}
	code = runEnv(args, env)
	return code, out.String(), errb.String()
}

// replaceInFile replaces the first old in the file at p with new, failing
// the test when old is not there: a test's edit that silently misses would
// test nothing.
func replaceInFile(t *testing.T, p, old, new string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(old), []byte(new), 1)
	if bytes.Equal(edited, data) {
		t.Fatalf("the edit did not apply: %s holds no %q; the golden base changed under this test", p, old)
	}
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
}

// isolate keeps the machine-local stat cache of a test inside the test.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// readTree returns every file under dir, by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// outputs is what a build added to or changed in a base: the files that
// differ from the input tree, except the lock file.
func outputs(t *testing.T, base, built map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for p, data := range built {
		if p == ".cairn/lock" {
			continue
		}
		if in, ok := base[p]; !ok || !bytes.Equal(in, data) {
			out[p] = data
		}
	}
	return out
}

// TestGolden builds every golden base with the real CLI and compares the
// whole output tree, plus the build's exit code and diagnostics, with
// golden/<case>/want. Run `CAIRN_UPDATE_GOLDEN=1 go test ./cmd/cairn` to rewrite them.
func TestGolden(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, name)
			before := readTree(t, dir)
			code, _, stderr := cairn(t, "--base", dir, "build", "--quiet", "--as-of", goldenAsOf)
			after := readTree(t, dir)
			got := outputs(t, before, after)
			report := fmt.Sprintf("exit %d\n%s", code, strings.ReplaceAll(stderr, dir, "$BASE"))
			// A deleted file (a rules file left with nothing but its
			// section) shows in build.out, since want/ cannot hold an absence.
			for _, p := range slices.Sorted(maps.Keys(before)) {
				if _, ok := after[p]; !ok {
					report += "deleted " + p + "\n"
				}
			}
			got["build.out"] = []byte(report)
			if code == 0 {
				for p, data := range contextOutputs(t, name, dir) {
					got[p] = data
				}
				maps.Copy(got, readOutputs(t, name, dir))
				for p, data := range searchOutputs(t, name, dir) {
					got[p] = data
				}
			}
			compareTree(t, filepath.Join(goldenRoot, name, "want"), got)
		})
	}
}

// compareTree fails with a diff for every missing, extra or differing file,
// or rewrites want under CAIRN_UPDATE_GOLDEN=1.
func compareTree(t *testing.T, wantDir string, got map[string][]byte) {
	t.Helper()
	if update() {
		if err := os.RemoveAll(wantDir); err != nil {
			t.Fatal(err)
		}
		for p, data := range got {
			full := filepath.Join(wantDir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	want := readTree(t, wantDir)
	if len(want) == 0 {
		t.Fatalf("%s is empty; run CAIRN_UPDATE_GOLDEN=1 go test ./cmd/cairn and review the result", wantDir)
	}
	paths := map[string]bool{}
	for p := range want {
		paths[p] = true
	}
	for p := range got {
		paths[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		w, inWant := want[p]
		g, inGot := got[p]
		switch {
		case !inGot:
			t.Errorf("%s: expected output is missing", p)
		case !inWant:
			t.Errorf("%s: unexpected output (%d bytes)", p, len(g))
		case !bytes.Equal(w, g):
			t.Errorf("%s differs (-want +got):\n%s", p, cmp.Diff(string(w), string(g)))
		}
	}
}
