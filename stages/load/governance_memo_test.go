package load

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestGovernanceMemo: a memo answers as ReadGovernance does; it remembers
// a read only of settled files, and a change of size, a new voice or a
// new modification time makes it read again.
func TestGovernanceMemo(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		// The file, and the folders whose entries it changed, at mtime.
		for _, q := range []string{p, filepath.Dir(p), filepath.Dir(filepath.Dir(p))} {
			if err := os.Chtimes(q, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	past := time.Now().Add(-time.Hour)
	write("cairn.yaml", "governance:\n  default_voice: plain\n", past)
	write("governance/voices/plain.yaml", "name: plain\ndescription: Short sentences.\n", past)
	write("governance/terms.yaml", "- {id: sync, term: sync, status: preferred}\n", past)
	fsys := os.DirFS(dir)
	var m GovernanceMemo
	check := func(what string, remembered bool) {
		t.Helper()
		got, want := m.Read(fsys), ReadGovernance(fsys)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the memo read\n%+v\nReadGovernance\n%+v", what, got, want)
		}
		if (m.sig != nil) != remembered {
			t.Errorf("%s: remembered = %v, want %v", what, m.sig != nil, remembered)
		}
	}
	check("first read", true)
	check("unchanged", true)
	write("governance/terms.yaml", "- {id: sync, term: sync, status: preferred}\n- {id: syncing, term: syncing, status: forbidden, replacement: sync}\n", past)
	check("terms grown", true)
	if n := len(m.g.Terms); n != 2 {
		t.Errorf("after the terms grew the memo holds %d terms, want 2", n)
	}
	write("governance/voices/brief.yaml", "name: brief\ndescription: Shorter still.\n", past)
	check("a voice added", true)
	write("governance/voices/brief.yaml", "name: brief\ndescription: Shorter still!\n", past.Add(time.Minute))
	check("a voice edited, same size", true)
	write("governance/terms.yaml", "- {id: sync, term: sync, status: approved}\n", time.Now())
	check("terms just written", false)
	check("terms just written, asked again", false)
}
