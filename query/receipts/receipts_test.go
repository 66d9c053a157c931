//go:build unix

package receipts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
)

func snapshotOf(i int) Snapshot {
	return Snapshot{
		Digest: fmt.Sprintf("%016x", 0xa000+i), QueryKey: "00000000000000ff", Query: "arm64\tnightly",
		Candidates: 3, Entries: []Entry{{URI: "events/2026-11-02/ci.json#run-1", Digest: uint64(i)}, {URI: "wiki/a.md", Digest: 7}},
	}
}

// clock is a clock that moves one second a reading.
func clock() func() time.Time {
	t := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestSaveLoadRoundTrip(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "receipts", "x"), Now: clock()}
	want := snapshotOf(1)
	if err := s.Save(want, "test"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(want.Digest)
	if err != nil {
		t.Fatal(err)
	}
	want.Query = "arm64 nightly" // one line, as saved
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded snapshot (-saved +loaded):\n%s", diff)
	}
	info, err := os.Stat(s.Path(want.Digest))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("snapshot mode %v, want 0600", info.Mode().Perm())
	}
	if info, err := os.Stat(s.Dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v (%v), want 0700", info.Mode().Perm(), err)
	}
	if _, err := s.Load("00000000000000aa"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a digest never saved: err = %v, want fs.ErrNotExist", err)
	}
}

// TestKeepsTheMostRecentlyUsed saves 17 snapshots, one at a time, and
// finds 16 kept; the first is kept over the second because it was used
// (read by a delta) after the second was saved.
func TestKeepsTheMostRecentlyUsed(t *testing.T) {
	s := Store{Dir: t.TempDir(), Now: clock()}
	for i := range Kept {
		if err := s.Save(snapshotOf(i), "test"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Use(snapshotOf(0).Digest); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(snapshotOf(Kept), "test"); err != nil {
		t.Fatal(err)
	}
	got := names(t, s.Dir)
	if len(got) != Kept {
		t.Fatalf("%d saves keep %d snapshots %v, want %d", Kept+1, len(got), got, Kept)
	}
	if slices.Contains(got, snapshotOf(1).Digest+suffix) || !slices.Contains(got, snapshotOf(0).Digest+suffix) {
		t.Errorf("kept %v: the least recently used, %s, should be the one removed", got, snapshotOf(1).Digest)
	}
	// A save of a digest already kept replaces it and removes nothing.
	if err := s.Save(snapshotOf(5), "test"); err != nil {
		t.Fatal(err)
	}
	if n := len(names(t, s.Dir)); n != Kept {
		t.Errorf("saving a kept digest again leaves %d snapshots, want %d", n, Kept)
	}
}

func TestSaveFailsFastWhenLocked(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	held, err := artifacts.LockFile(filepath.Join(s.Dir, lockName), "another cairn")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	err = s.Save(snapshotOf(1), "test")
	var busy *BusyError
	if !errors.As(err, &busy) || busy.ExitCode() != 3 || !strings.Contains(err.Error(), "cmd=another cairn") {
		t.Fatalf("save under a held lock: err = %v, want a *BusyError (exit 3) naming the holder", err)
	}
	if n := len(names(t, s.Dir)); n != 0 {
		t.Errorf("a refused save left %d snapshots", n)
	}
	held.Release()
	if err := s.Save(snapshotOf(1), "test"); err != nil {
		t.Errorf("save after the lock is released: %v", err)
	}
}

func TestDamagedSnapshotsAreCorrupt(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	snap := snapshotOf(1)
	if err := s.Save(snap, "test"); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(s.Path(snap.Digest))
	if err != nil {
		t.Fatal(err)
	}
	other := snapshotOf(2)
	otherData, err := encode(other)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"truncated":  whole[:len(whole)-5],
		"empty":      {},
		"not zstd":   []byte("#cairn receipt v1\n"),
		"bit flip":   append(append([]byte{}, whole[:len(whole)/2]...), append([]byte{whole[len(whole)/2] ^ 0xff}, whole[len(whole)/2+1:]...)...),
		"other name": otherData,
	} {
		if err := os.WriteFile(s.Path(snap.Digest), data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load(snap.Digest)
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want a *CorruptError", name, err)
		}
	}
}

func TestDirFollowsLinks(t *testing.T) {
	tmp := t.TempDir()
	base := filepath.Join(tmp, "base")
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(tmp, "link")); err != nil {
		t.Fatal(err)
	}
	a, err := Dir("/state", base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Dir("/state", filepath.Join(tmp, "link"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.HasPrefix(a, "/state/receipts/") {
		t.Errorf("Dir of the base %q and of a link to it %q; want one folder under /state/receipts/", a, b)
	}
}

// linkedSnapshot puts, in a fresh store, a link named as the snapshot of
// snapshotOf(1) that points to a real snapshot file outside the folder,
// and returns the store and that file.
func linkedSnapshot(t *testing.T) (Store, string) {
	t.Helper()
	elsewhere := Store{Dir: t.TempDir(), Now: clock()}
	snap := snapshotOf(1)
	if err := elsewhere.Save(snap, "test"); err != nil {
		t.Fatal(err)
	}
	target := elsewhere.Path(snap.Digest)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(target, old, old); err != nil {
		t.Fatal(err)
	}
	s := Store{Dir: t.TempDir(), Now: clock()}
	if err := os.Symlink(target, s.Path(snap.Digest)); err != nil {
		t.Fatal(err)
	}
	return s, target
}

// TestLoadRefusesALinkedSnapshot: the folder is the user's (links on the
// way to it are theirs, and followed), but a snapshot in it is cairn's
// own file: a link in its place is not read, and the error names it.
func TestLoadRefusesALinkedSnapshot(t *testing.T) {
	s, _ := linkedSnapshot(t)
	_, err := s.Load(snapshotOf(1).Digest)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != s.Path(snapshotOf(1).Digest) || !strings.Contains(ce.Reason, "symbolic link") {
		t.Errorf("Load through a link: %v; want a *CorruptError naming the link", err)
	}
}

// TestUseLeavesALinkedSnapshotAlone: marking a snapshot used never
// touches what a link in its place points to.
func TestUseLeavesALinkedSnapshotAlone(t *testing.T) {
	s, target := linkedSnapshot(t)
	if err := s.Use(snapshotOf(1).Digest); err != nil {
		t.Logf("Use: %v", err)
	}
	st, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("Use changed the modification time of the file a link points to: %v", st.ModTime())
	}
}

// TestSaveReplacesALinkedSnapshot: saving over a link replaces the link
// with a snapshot file of its own, leaving what it pointed to as it was.
func TestSaveReplacesALinkedSnapshot(t *testing.T) {
	s, target := linkedSnapshot(t)
	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshotOf(1)
	snap.Candidates = 5
	if err := s.Save(snap, "test"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(s.Path(snap.Digest)); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the snapshot is not a regular file after Save: %v", err)
	}
	if after, _ := os.ReadFile(target); string(after) != string(before) {
		t.Error("Save wrote through the link")
	}
}
