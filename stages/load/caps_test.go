package load

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// readCountingFS counts the bytes read from each file, so a test can
// prove a file was refused by its stat, before any of it was read.
type readCountingFS struct {
	fs.FS
	mu   sync.Mutex
	read map[string]int64
}

func (c *readCountingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countedFile{File: f, name: name, fs: c}, nil
}

type countedFile struct {
	fs.File
	name string
	fs   *readCountingFS
}

func (f *countedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.fs.mu.Lock()
	f.fs.read[f.name] += int64(n)
	f.fs.mu.Unlock()
	return n, err
}

// ReadDir keeps fs.WalkDir working through the wrapper.
func (f *countedFile) ReadDir(n int) ([]fs.DirEntry, error) {
	return f.File.(fs.ReadDirFile).ReadDir(n)
}

// sparseBase writes a base on disk with files, then grows each of the
// big ones, sparse, to its size: no disk is spent and reading it whole
// would read a gigabyte of zeros.
func sparseBase(t *testing.T, files map[string]string, big map[string]int64) string {
	t.Helper()
	dir := t.TempDir()
	for p, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, size := range big {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestOverCapFilesAreRefusedByStat: a file over its kind's cap (a 1 GB
// record document, page, body, voice, content file) is refused with the
// too-large error from its stat, and not one byte of it is read, not
// even to hash it.
func TestOverCapFilesAreRefusedByStat(t *testing.T) {
	const gb = 1 << 30
	big := map[string]int64{
		"events/2026-11-02/huge.json": gb,
		"wiki/huge.md":                MaxPageBytes + 1,
		"governance/voices/huge.yaml": MaxGovernanceBytes + 1,
		"governance/terms.yaml":       MaxGovernanceBytes + 1,
		"governance/log.jsonl":        MaxGovernanceBytes + 1,
		"docs/huge.md":                MaxContentBytes + 1,
		"bodies/huge.txt":             MaxBodyBytes + 1,
	}
	dir := sparseBase(t, map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
	}, big)
	fsys := &readCountingFS{FS: os.DirFS(dir), read: map[string]int64{}}
	out, err := Run(context.Background(), Input{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(diagLines(out.Diagnostics), "\n")
	for p := range big {
		if p == "bodies/huge.txt" {
			continue // no manifest names it: it is never read, only stamped
		}
		if !strings.Contains(lines, p+":1:1: error: the file is ") || !strings.Contains(lines, "[too-large]") {
			t.Errorf("no too-large error for %s in:\n%s", p, lines)
		}
	}
	for p := range big {
		if n := fsys.read[p]; n != 0 {
			t.Errorf("%s: %d bytes read; a file over its cap must be refused by its stat, unread", p, n)
		}
	}
	if fsys.read["events/2026-11-02/github.json"] == 0 {
		t.Errorf("the good document was not read: the counter counts nothing")
	}
}

// TestOverCapConfigAndLogAreRefusedByStat: the configuration and the
// notes log, read on their own by other commands, are refused by their
// stat too.
func TestOverCapConfigAndLogAreRefusedByStat(t *testing.T) {
	dir := sparseBase(t, nil, map[string]int64{"cairn.yaml": MaxGovernanceBytes + 1})
	fsys := &readCountingFS{FS: os.DirFS(dir), read: map[string]int64{}}
	out, err := Run(context.Background(), Input{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Join(diagLines(out.Diagnostics), "\n"); !strings.Contains(lines, "cairn.yaml:1:1: error: the file is ") {
		t.Errorf("no too-large error for cairn.yaml in:\n%s", lines)
	}
	if n := fsys.read["cairn.yaml"]; n != 0 {
		t.Errorf("cairn.yaml: %d bytes read before it was refused", n)
	}

	dir = sparseBase(t, map[string]string{"cairn.yaml": runConfig}, map[string]int64{"governance/log.jsonl": MaxGovernanceBytes + 1})
	fsys = &readCountingFS{FS: os.DirFS(dir), read: map[string]int64{}}
	lg, err := ReadLog(fsys)
	if err == nil {
		if lines := strings.Join(diagLines(lg.Diagnostics), "\n"); !strings.Contains(lines, "governance/log.jsonl:1:1: error: the file is ") {
			t.Errorf("ReadLog: no too-large error for the log in:\n%s", lines)
		}
	}
	if n := fsys.read["governance/log.jsonl"]; n != 0 {
		t.Errorf("governance/log.jsonl: %d bytes read before it was refused", n)
	}
}
