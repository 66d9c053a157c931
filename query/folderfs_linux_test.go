package query

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// countingFS counts the files opened through it.
type countingFS struct {
	fs.FS
	n int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.n++
	return c.FS.Open(name)
}

// TestFolderFSOpensAsTheRootDoes: every name opens to the same bytes, or
// fails, as it does through the base's os.Root, symlinks within and out
// of the base included; plain files are opened through their folder's
// descriptor, never through the root.
func TestFolderFSOpensAsTheRootDoes(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"top.md": "top", "wiki/a.md": "page a", "wiki/sub/b.md": "page b"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"wiki/in.md":     "a.md",
		"wiki/out.md":    filepath.Join(outside, "secret.md"),
		"wiki/outdir":    outside,
		"wiki/indir":     "sub",
		"wiki/up.md":     "../top.md",
		"wiki/dangle.md": "missing.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	folders := newFolderFS(root)
	defer folders.Close()
	counted := &countingFS{FS: folders.root}
	folders.root = counted
	read := func(fsys fs.FS, name string) (string, bool) {
		f, err := fsys.Open(name)
		if err != nil {
			return "", false
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return "", false
		}
		if st.IsDir() {
			return "<folder>", true
		}
		data, err := io.ReadAll(f)
		return string(data), err == nil
	}
	for _, c := range []struct {
		name string
		fast bool // opened through the folder's descriptor
	}{
		{"wiki/a.md", true},
		{"wiki/sub/b.md", true},
		{"wiki/sub", true},
		{"top.md", false},
		{"wiki/in.md", false},
		{"wiki/out.md", false},
		{"wiki/outdir/secret.md", false},
		{"wiki/indir/b.md", true},
		{"wiki/up.md", false},
		{"wiki/dangle.md", false},
		{"wiki/missing.md", false},
		{"nofolder/x.md", false},
		{"wiki/../top.md", false},
		{"/wiki/a.md", false},
		{"wiki/a.md/", false},
	} {
		want, wantOK := read(root.FS(), c.name)
		before := counted.n
		got, ok := read(folders, c.name)
		if got != want || ok != wantOK {
			t.Errorf("%s: folderFS read %q, %v; the root reads %q, %v", c.name, got, ok, want, wantOK)
		}
		if viaRoot := counted.n > before; viaRoot == c.fast {
			t.Errorf("%s: opened through the root: %v, want %v", c.name, viaRoot, !c.fast)
		}
	}
}
