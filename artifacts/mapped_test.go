package artifacts

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestMappedReadsTheFiles: what Mapped gives is the file's bytes, an empty
// file's none, and a missing file an error; Release lets the maps go.
func TestMappedReadsTheFiles(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("postings line\n"), 1000)
	if err := os.WriteFile(filepath.Join(dir, "p.tsv"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.tsv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var m Mapped
	defer m.Release()
	fsys := os.DirFS(dir)
	got, err := m.Read(fsys, "p.tsv")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Read(p.tsv) = %d bytes, %v; want the file's %d", len(got), err, len(want))
	}
	if got, err := m.Read(fsys, "empty.tsv"); err != nil || len(got) != 0 {
		t.Errorf("Read(empty.tsv) = %q, %v; want no bytes", got, err)
	}
	if _, err := m.Read(fsys, "gone.tsv"); err == nil {
		t.Error("Read of a missing file gave no error")
	}
	if canMap && len(m.maps) != 1 {
		t.Errorf("%d files mapped, want 1 (an empty file is not)", len(m.maps))
	}
	m.Release()
	if len(m.maps) != 0 {
		t.Errorf("%d maps left after Release", len(m.maps))
	}
}

// TestMappedFileCutShortIsAnError: a mapped file truncated by another
// program faults when its lost bytes are read; inside Guard the fault is
// ErrMappedChanged, not a crash. A panic that is not such a fault goes on.
func TestMappedFileCutShortIsAnError(t *testing.T) {
	if !canMap {
		t.Skip("files are read, not mapped, on this system: nothing can be cut short under a reader")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.tsv")
	if err := os.WriteFile(path, bytes.Repeat([]byte{'x'}, 1<<16), 0o644); err != nil {
		t.Fatal(err)
	}
	var m Mapped
	defer m.Release()
	data, err := m.Read(os.DirFS(dir), "p.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum int
	err = m.Guard(func() error {
		for _, c := range data {
			sum += int(c)
		}
		return nil
	})
	if !errors.Is(err, ErrMappedChanged) {
		t.Fatalf("reading a truncated mapping: %v (sum %d); want ErrMappedChanged", err, sum)
	}
	defer func() {
		if r := recover(); r != "not a fault" {
			t.Errorf("Guard let through %v; want the panic it was given", r)
		}
	}()
	m.Guard(func() error { panic("not a fault") })
}
