//go:build unix

package load

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestDirReadsAsRoot: a Dir reads every path as os.Root's file system does,
// with the same bytes or the same error, whichever way it opens the file:
// plain files, a file at and over its cap, a link that stays in the folder,
// links and paths that leave it, a folder, a missing file and a named pipe,
// which is refused without waiting for a writer.
func TestDirReadsAsRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("wiki/a.md", "# A\n")
	write("wiki/empty.md", "")
	write("wiki/at.md", strings.Repeat("a", 64))
	write("wiki/over.md", strings.Repeat("a", 65))
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("no"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"wiki/inside.md":   "a.md",
		"wiki/up.md":       "../wiki/a.md",
		"wiki/escape.md":   filepath.Join("..", "..", filepath.Base(outside), "secret"),
		"wiki/absolute.md": filepath.Join(outside, "secret"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("this system cannot make links: %v", err)
		}
	}
	paths := []string{"wiki/a.md", "wiki/empty.md", "wiki/at.md", "wiki/over.md", "wiki/inside.md", "wiki/up.md",
		"wiki/escape.md", "wiki/absolute.md", "wiki", "wiki/missing.md", "../x", "/etc/passwd", "wiki/../wiki/a.md"}
	if err := syscall.Mkfifo(filepath.Join(dir, "wiki/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "wiki/pipe")
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if runtime.GOOS == "linux" {
		// The fast way must be the one taken where the kernel has it.
		if d.fast == nil {
			t.Log("openat2 is not available here: only the os.Root way is tested")
		} else if _, done, _ := d.readCapped("wiki/a.md", 64); !done {
			t.Error("a plain file was not read the fast way")
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	show := func(data []byte, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%q", data)
	}
	for _, p := range paths {
		got := show(ReadCapped(d, p, 64))
		want := show(ReadCapped(root.FS(), p, 64))
		if got != want {
			t.Errorf("%s: a Dir read %s, os.Root %s", p, got, want)
		}
	}
}
