package artifacts

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// oldTime is set on files before a sync so that any rewrite shows in mtime.
var oldTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// writeTree puts files (base-relative path → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// entry is what a test sees of one file on disk.
type entry struct {
	Data  string
	MTime time.Time
}

// snapshot reads every file under root (temp files included, so a leftover
// one shows up in a diff).
func snapshot(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = entry{Data: string(data), MTime: info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ageAll(t *testing.T, root string) {
	t.Helper()
	for name := range snapshot(t, root) {
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(name)), oldTime, oldTime); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(root, name string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
	return err == nil
}

func manifest(data string) File { return File{Path: ".cairn/manifest.json", Data: []byte(data)} }

// setHook installs syncHook for one test.
func setHook(t *testing.T, h func(event, path string) error) {
	t.Helper()
	syncHook = h
	t.Cleanup(func() { syncHook = nil })
}

// syncWants runs Sync on p and requires the result want.
func syncWants(t *testing.T, p Plan, want Result) {
	t.Helper()
	res, err := Sync(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
}

// wantPlanned requires every planned file and the manifest on disk with
// the planned bytes, per the snapshot got.
func wantPlanned(t *testing.T, got map[string]entry, p Plan) {
	t.Helper()
	for _, f := range append(p.Files, p.Manifest) {
		if got[f.Path].Data != string(f.Data) {
			t.Errorf("%s = %q, want %q", f.Path, got[f.Path].Data, f.Data)
		}
	}
}

func TestSyncCreates(t *testing.T) {
	root := t.TempDir()
	p := Plan{
		Root: root,
		Files: []File{
			{Path: "docs/deep/AGENTS.md", Data: []byte("rules\n")},
			{Path: ".cairn/docs.tsv", Data: []byte("a\tb\n")},
			{Path: ".cairn/empty.tsv", Data: nil},
		},
		Manifest: manifest(`{"v":1}`),
	}
	syncWants(t, p, Result{Changes: []Change{
		{".cairn/docs.tsv", ActionCreate},
		{".cairn/empty.tsv", ActionCreate},
		{".cairn/manifest.json", ActionCreate},
		{"docs/deep/AGENTS.md", ActionCreate},
	}})
	got := snapshot(t, root)
	wantPlanned(t, got, p)
	if len(got) != 4 {
		t.Errorf("want exactly the 4 planned files on disk, got %v", slices.Sorted(maps.Keys(got)))
	}
	info, err := os.Stat(filepath.Join(root, "docs", "deep", "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&^0o644 != 0 {
		t.Errorf("mode %v, want at most 0644", perm)
	}
}

func TestSyncIdenticalNotRewritten(t *testing.T) {
	root := t.TempDir()
	p := Plan{
		Root:     root,
		Files:    []File{{Path: ".cairn/docs.tsv", Data: []byte("same\n")}, {Path: "AGENTS.md", Data: []byte("x")}},
		Manifest: manifest("m"),
	}
	if _, err := Sync(p); err != nil {
		t.Fatal(err)
	}
	ageAll(t, root)
	before := snapshot(t, root)
	setHook(t, func(event, path string) error {
		t.Errorf("unexpected %s of %s", event, path)
		return nil
	})
	syncWants(t, p, Result{Unchanged: []string{".cairn/docs.tsv", ".cairn/manifest.json", "AGENTS.md"}})
	if d := cmp.Diff(before, snapshot(t, root)); d != "" {
		t.Errorf("disk changed (-before +after):\n%s", d)
	}
}

func TestSyncUpdates(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".cairn/same-size.tsv":  "aaaa",
		".cairn/other-size.tsv": "short",
		".cairn/manifest.json":  "old",
	})
	ageAll(t, root)
	p := Plan{
		Root: root,
		Files: []File{
			{Path: ".cairn/same-size.tsv", Data: []byte("bbbb")},
			{Path: ".cairn/other-size.tsv", Data: []byte("much longer")},
		},
		Manifest: manifest("new"),
	}
	syncWants(t, p, Result{Changes: []Change{
		{".cairn/manifest.json", ActionUpdate},
		{".cairn/other-size.tsv", ActionUpdate},
		{".cairn/same-size.tsv", ActionUpdate},
	}})
	got := snapshot(t, root)
	wantPlanned(t, got, p)
	for _, f := range append(p.Files, p.Manifest) {
		if got[f.Path].MTime.Equal(oldTime) {
			t.Errorf("%s: mtime unchanged after an update", f.Path)
		}
	}
}

func TestSyncDeletesStale(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".cairn/old.tsv":       "stale",
		".cairn/manifest.json": "m",
		"docs/AGENTS.md":       "stale rules",
		"docs/notes.md":        "the user's own file",
	})
	p := Plan{
		Root:     root,
		Manifest: manifest("m2"),
		Previous: []string{".cairn/old.tsv", "docs/AGENTS.md", ".cairn/gone.tsv", ".cairn/manifest.json", ".cairn/old.tsv"},
	}
	syncWants(t, p, Result{Changes: []Change{
		{".cairn/manifest.json", ActionUpdate},
		{".cairn/old.tsv", ActionDelete},
	}})
	if exists(root, ".cairn/old.tsv") {
		t.Errorf(".cairn/old.tsv still exists")
	}
	// A rules file the previous build wrote may hold a person's text by
	// now: only the rules stage deletes one, by naming it in Delete.
	for _, kept := range []string{"docs/notes.md", "docs/AGENTS.md"} {
		if !exists(root, kept) {
			t.Errorf("%s was deleted as a stale output", kept)
		}
	}

	// A folder emptied by a deletion stays, and .cairn always stays.
	writeTree(t, root, map[string]string{"empty/AGENTS.md": "x"})
	p = Plan{Root: root, Manifest: File{Path: "out/manifest.json", Data: []byte("m")},
		Delete: []string{"empty/AGENTS.md"}, Previous: []string{".cairn/manifest.json"}}
	if _, err := Sync(p); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"empty", ".cairn"} {
		if info, err := os.Stat(filepath.Join(root, dir)); err != nil || !info.IsDir() {
			t.Errorf("folder %s was removed: %v", dir, err)
		}
	}
}

func TestSyncNeverDeletesLock(t *testing.T) {
	root := t.TempDir()
	lock, err := AcquireLock(root, "cairn build")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	p := Plan{Root: root, Manifest: manifest("m"), Previous: []string{LockPath}}
	res, err := Sync(p)
	if err != nil {
		t.Fatal(err)
	}
	if !exists(root, LockPath) {
		t.Error("Sync deleted the lock file")
	}
	if len(res.Changes) != 1 || res.Changes[0].Path != ".cairn/manifest.json" {
		t.Errorf("changes = %v, want only the manifest", res.Changes)
	}
	p = Plan{Root: root, Manifest: manifest("m"), Files: []File{{Path: LockPath}}}
	if _, err := Sync(p); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("writing the lock path: err = %v, want a refusal", err)
	}
	// The notes log's lock file alike.
	logLock, err := LockLog(root, "cairn note")
	if err != nil {
		t.Fatal(err)
	}
	defer logLock.Release()
	if _, err := Sync(Plan{Root: root, Manifest: manifest("m"), Previous: []string{LogLockPath}}); err != nil {
		t.Fatal(err)
	}
	if !exists(root, LogLockPath) {
		t.Error("Sync deleted the log's lock file")
	}
	p = Plan{Root: root, Manifest: manifest("m"), Files: []File{{Path: LogLockPath}}}
	if _, err := Sync(p); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("writing the log's lock path: err = %v, want a refusal", err)
	}
}

func TestSyncKeep(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".cairn/postings.tsv":  "kept",
		".cairn/manifest.json": "m",
	})
	ageAll(t, root)
	p := Plan{
		Root:     root,
		Keep:     []string{".cairn/postings.tsv"},
		Manifest: manifest("m"),
		Previous: []string{".cairn/postings.tsv", ".cairn/manifest.json"},
	}
	syncWants(t, p, Result{Unchanged: []string{".cairn/manifest.json", ".cairn/postings.tsv"}})
	if e := snapshot(t, root)[".cairn/postings.tsv"]; e.Data != "kept" || !e.MTime.Equal(oldTime) {
		t.Errorf("kept file touched: %+v", e)
	}

	// A kept output that is missing cannot be kept: nothing would recreate it.
	p.Keep = []string{".cairn/missing.tsv"}
	if _, err := Sync(p); err == nil || !strings.Contains(err.Error(), ".cairn/missing.tsv") {
		t.Errorf("missing kept output: err = %v, want an error naming it", err)
	}
}

func TestSyncOrder(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".cairn/stale.tsv": "x",
		"a/AGENTS.md":      "old",
	})
	var events []string
	setHook(t, func(event, path string) error {
		events = append(events, event+" "+path)
		return nil
	})
	p := Plan{
		Root: root,
		Files: []File{
			{Path: "z/CLAUDE.md", Data: []byte("z")},
			{Path: "a/AGENTS.md", Data: []byte("new")},
			{Path: ".cairn/docs.tsv", Data: []byte("d")},
		},
		Manifest: manifest("m"),
		Previous: []string{".cairn/stale.tsv"},
	}
	if _, err := Sync(p); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"write .cairn/docs.tsv", "rename .cairn/docs.tsv",
		"write a/AGENTS.md", "rename a/AGENTS.md",
		"write z/CLAUDE.md", "rename z/CLAUDE.md",
		"delete .cairn/stale.tsv",
		"write .cairn/manifest.json", "rename .cairn/manifest.json",
	}
	if d := cmp.Diff(want, events); d != "" {
		t.Errorf("operation order (-want +got):\n%s", d)
	}
}

// TestSyncFailureKeepsOldManifest fails a regular file's write at the rename
// (the moment a crash would hurt most) and checks that the old manifest is
// still in place, nothing after the failure ran, and no temp file is left.
func TestSyncFailureKeepsOldManifest(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".cairn/docs.tsv":      "old docs",
		".cairn/stale.tsv":     "stale",
		".cairn/manifest.json": "old manifest",
	})
	before := snapshot(t, root)
	setHook(t, func(event, path string) error {
		if event == "rename" && path == ".cairn/docs.tsv" {
			return errors.New("injected fault")
		}
		return nil
	})
	p := Plan{
		Root:     root,
		Files:    []File{{Path: ".cairn/docs.tsv", Data: []byte("new docs")}},
		Manifest: manifest("new manifest"),
		Previous: []string{".cairn/stale.tsv"},
	}
	_, err := Sync(p)
	if err == nil || !strings.Contains(err.Error(), ".cairn/docs.tsv") {
		t.Fatalf("err = %v, want an error naming .cairn/docs.tsv", err)
	}
	if d := cmp.Diff(before, snapshot(t, root)); d != "" {
		t.Errorf("disk changed after a failed write (-before +after):\n%s", d)
	}

	// A fault after some files are written: those are new, the rest and
	// the manifest are old, and no deletion has run yet.
	setHook(t, func(event, path string) error {
		if event == "write" && path == "z/CLAUDE.md" {
			return errors.New("injected fault")
		}
		return nil
	})
	p.Files = append(p.Files, File{Path: "z/CLAUDE.md", Data: []byte("z")})
	_, err = Sync(p)
	if err == nil || !strings.Contains(err.Error(), "z/CLAUDE.md") {
		t.Fatalf("err = %v, want an error naming z/CLAUDE.md", err)
	}
	want := maps.Clone(before)
	want[".cairn/docs.tsv"] = entry{Data: "new docs"}
	got := snapshot(t, root)
	got[".cairn/docs.tsv"] = entry{Data: got[".cairn/docs.tsv"].Data}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("disk after a mid-way failure (-want +got):\n%s", d)
	}

	// A folder blocked by a regular file is found before anything is written.
	syncHook = nil
	writeTree(t, root, map[string]string{"blocked": "a file, not a folder"})
	p.Files = []File{{Path: ".cairn/docs.tsv", Data: []byte("newer docs")}, {Path: "blocked/AGENTS.md", Data: []byte("r")}}
	_, err = Sync(p)
	wantErr := "artifacts: cannot write blocked/AGENTS.md: blocked is a file where cairn needs a folder; move or rename it"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("err = %v, want %q", err, wantErr)
	}
	// Deeper down, the file in the way is named, not the path's end.
	p.Files[1].Path = "blocked/deeper/AGENTS.md"
	_, err = Sync(p)
	wantErr = "artifacts: cannot write blocked/deeper/AGENTS.md: blocked is a file where cairn needs a folder; move or rename it"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("err = %v, want %q", err, wantErr)
	}
	if got := readFile(t, root, ".cairn/docs.tsv"); got != "new docs" {
		t.Errorf("docs.tsv = %q, want it untouched by a refused plan", got)
	}
}

func TestDiffMatchesSync(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".cairn/same.tsv":      "same",
		".cairn/changed.tsv":   "before",
		".cairn/stale.tsv":     "stale",
		".cairn/kept.tsv":      "kept",
		".cairn/manifest.json": "old",
	})
	ageAll(t, root)
	p := Plan{
		Root: root,
		Files: []File{
			{Path: ".cairn/same.tsv", Data: []byte("same")},
			{Path: ".cairn/changed.tsv", Data: []byte("after")},
			{Path: "docs/AGENTS.md", Data: []byte("new")},
		},
		Keep:     []string{".cairn/kept.tsv"},
		Manifest: manifest("new"),
		Previous: []string{".cairn/same.tsv", ".cairn/changed.tsv", ".cairn/stale.tsv", ".cairn/kept.tsv", ".cairn/vanished.tsv"},
	}
	before := snapshot(t, root)
	diff, err := Diff(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, snapshot(t, root)); d != "" {
		t.Fatalf("Diff wrote to disk (-before +after):\n%s", d)
	}
	synced, err := Sync(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(synced, diff); d != "" {
		t.Errorf("Diff differs from Sync (-sync +diff):\n%s", d)
	}
	want := Result{
		Changes: []Change{
			{".cairn/changed.tsv", ActionUpdate},
			{".cairn/manifest.json", ActionUpdate},
			{".cairn/stale.tsv", ActionDelete},
			{"docs/AGENTS.md", ActionCreate},
		},
		Unchanged: []string{".cairn/kept.tsv", ".cairn/same.tsv"},
	}
	if d := cmp.Diff(want, synced); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	// After Sync, Diff has nothing left to do.
	again, err := Diff(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 0 {
		t.Errorf("Diff after Sync = %v, want no changes", again.Changes)
	}
}

func TestSyncRefusesUnsafePaths(t *testing.T) {
	bad := []string{
		"",
		".",
		"/etc/passwd",
		"../outside.tsv",
		"a/../../outside.tsv",
		"a/../b.tsv",
		`a\b.tsv`,
		"a//b.tsv",
		"a/./b.tsv",
		"docs/",
	}
	for _, name := range bad {
		for role, p := range map[string]Plan{
			"file":     {Files: []File{{Path: name, Data: []byte("x")}}, Manifest: manifest("m")},
			"keep":     {Keep: []string{name}, Manifest: manifest("m")},
			"manifest": {Manifest: File{Path: name, Data: []byte("m")}},
			"previous": {Manifest: manifest("m"), Previous: []string{name}},
		} {
			root := t.TempDir()
			p.Root = root
			if _, err := Diff(p); err == nil {
				t.Errorf("Diff accepted %s path %q", role, name)
			}
			if _, err := Sync(p); err == nil {
				t.Errorf("Sync accepted %s path %q", role, name)
			}
			if got := snapshot(t, root); len(got) != 0 {
				t.Errorf("%s path %q: Sync wrote %v", role, name, slices.Sorted(maps.Keys(got)))
			}
		}
	}
}

func TestSyncRefusesSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"target.md": "precious"})
	root := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "target.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out/AGENTS.md", "out/target.md", "link.md"} {
		p := Plan{Root: root, Files: []File{{Path: name, Data: []byte("x")}}, Manifest: manifest("m")}
		if _, err := Diff(p); err == nil {
			t.Errorf("Diff accepted %s, which resolves outside the root", name)
		}
		if _, err := Sync(p); err == nil {
			t.Errorf("Sync accepted %s, which resolves outside the root", name)
		}
	}
	if got := snapshot(t, outside); len(got) != 1 || got["target.md"].Data != "precious" {
		t.Errorf("outside folder changed: %v", got)
	}
	if exists(root, ".cairn/manifest.json") {
		t.Error("manifest written although an output was refused")
	}

	// A symlink that stays inside the root is an ordinary folder.
	writeTree(t, root, map[string]string{"real/keep.md": "k"})
	if err := os.Symlink("real", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	p := Plan{Root: root, Files: []File{{Path: "alias/AGENTS.md", Data: []byte("x")}}, Manifest: manifest("m")}
	if _, err := Sync(p); err != nil {
		t.Fatalf("symlink inside the root: %v", err)
	}
	if got := readFile(t, root, "real/AGENTS.md"); got != "x" {
		t.Errorf("real/AGENTS.md = %q, want %q", got, "x")
	}
}

func TestSyncRefusesDuplicates(t *testing.T) {
	cases := map[string]Plan{
		"twice in Files": {
			Files:    []File{{Path: "a.md", Data: []byte("1")}, {Path: "a.md", Data: []byte("2")}},
			Manifest: manifest("m"),
		},
		"in Files and Keep": {
			Files:    []File{{Path: "a.md", Data: []byte("1")}},
			Keep:     []string{"a.md"},
			Manifest: manifest("m"),
		},
		"in Files and Manifest": {
			Files:    []File{{Path: ".cairn/manifest.json", Data: []byte("1")}},
			Manifest: manifest("m"),
		},
	}
	for name, p := range cases {
		root := t.TempDir()
		p.Root = root
		_, err := Sync(p)
		if err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: err = %v, want a duplicate error", name, err)
		}
		if got := snapshot(t, root); len(got) != 0 {
			t.Errorf("%s: Sync wrote %v", name, slices.Sorted(maps.Keys(got)))
		}
	}
}

func TestSyncRefusesFolderTargets(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"dir/inner.md": "x"})
	p := Plan{Root: root, Files: []File{{Path: "dir", Data: []byte("x")}}, Manifest: manifest("m")}
	if _, err := Sync(p); err == nil {
		t.Error("Sync accepted a folder as an output")
	}
	writeTree(t, root, map[string]string{".cairn/dir/inner.tsv": "x", "rules/AGENTS.md/inner.md": "x"})
	p = Plan{Root: root, Manifest: manifest("m"), Previous: []string{".cairn/dir"}}
	if _, err := Sync(p); err == nil {
		t.Error("Sync accepted deleting a folder")
	}
	p = Plan{Root: root, Manifest: manifest("m"), Delete: []string{"rules/AGENTS.md"}}
	if _, err := Sync(p); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("deleting a folder named like a rules file: err = %v, want a refusal", err)
	}
	if !exists(root, ".cairn/dir/inner.tsv") || !exists(root, "rules/AGENTS.md/inner.md") {
		t.Error("folder contents touched")
	}
	// A folder outside .cairn named by the previous manifest is not
	// cairn's to delete, nor an error.
	p = Plan{Root: root, Manifest: manifest("m"), Previous: []string{"dir"}}
	if _, err := Sync(p); err != nil {
		t.Errorf("a previous output outside .cairn: %v", err)
	}
	if !exists(root, "dir/inner.md") {
		t.Error("folder contents touched")
	}
}

func TestSameBytes(t *testing.T) {
	big := strings.Repeat("abcdefgh", compareChunk/4) // spans several chunks
	cases := []struct {
		disk, data string
		want       bool
	}{
		{"", "", true},
		{"abc", "abc", true},
		{big, big, true},
		{big, big[:len(big)-1] + "X", false},
		{"abc", "abcd", false},
		{"abcd", "abc", false},
	}
	for _, c := range cases {
		got, err := sameBytes(strings.NewReader(c.disk), []byte(c.data))
		if err != nil || got != c.want {
			t.Errorf("sameBytes(len %d, len %d) = %v, %v; want %v", len(c.disk), len(c.data), got, err, c.want)
		}
	}
}

// TestSyncRefusesAFolderNamedAsStale: a previous manifest (perhaps edited by
// hand) that names a folder as an output must not lead anyone to delete the
// folder: the fix it points at is the manifest.
func TestSyncRefusesAFolderNamedAsStale(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".cairn", "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Sync(Plan{Root: root, Manifest: manifest("m"), Previous: []string{".cairn/docs"}})
	if err == nil || !strings.Contains(err.Error(), "delete .cairn/manifest.json and build again") {
		t.Errorf("err = %v, want a refusal that points at the manifest", err)
	}
	if !exists(root, ".cairn/docs") {
		t.Error("Sync removed the folder")
	}
}
