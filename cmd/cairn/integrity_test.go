package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

// editKeepingStat swaps the case of the first letter in the second half of
// the file at rel (inside cairn's section, for the demo's rules files,
// which hold nothing else) and gives the file back its modification time: its size and mtime are those the stat cache
// recorded, so only its bytes tell.
func editKeepingStat(t *testing.T, dir, rel string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := len(data) / 2
	for i < len(data) && !isLetter(data[i]) {
		i++
	}
	if i == len(data) {
		t.Fatalf("%s: no letter to edit in its second half", rel)
	}
	data[i] ^= 0x20 // swap the letter's case
	if err := os.WriteFile(p, data, st.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// TestCheckHashesEveryOutput: `cairn build --check` is the CI gate, so it
// proves bytes, not stats: every output the manifest names, edited in
// place with its size and modification time kept (so that the stat cache
// still vouches for it), is found and listed, and the check exits 1.
func TestCheckHashesEveryOutput(t *testing.T) {
	isolate(t)
	clean := copyBase(t, "demo")
	mustBuild(t, clean)
	m, err := artifacts.ReadPrevious(clean)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range m.Outputs {
		t.Run(o.Path, func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, "demo")
			mustBuild(t, dir)
			if _, ok := artifacts.ReadStatCache(dir)[o.Path]; !ok && !artifacts.IsRulesFile(o.Path) {
				t.Fatalf("the build left %s out of the stat cache: this test would prove nothing", o.Path)
			}
			editKeepingStat(t, dir, o.Path)
			code, stdout, stderr := cairn(t, "--base", dir, "build", "--check", "--artifacts")
			if code != 1 || !strings.Contains(stdout, "update\t"+o.Path+"\n") {
				t.Errorf("check after a same-size, same-mtime edit of %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1 listing it", o.Path, code, stdout, stderr)
			}
		})
	}
}
