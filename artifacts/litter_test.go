package artifacts

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Stale temporary files as a killed writer leaves them: the naming of
// today (".cairn-tmp-<name>.<12 hex>") and the one older builds used
// (".<name>.tmp-<12 hex>"), and files of a user's that only look alike.
var (
	staleOurs = []string{
		".cairn/.docs.tsv.tmp-0123456789ab",        // old naming, in .cairn
		".cairn/.cairn-tmp-docs.tsv.0123456789ab",  // new naming, in .cairn
		".cairn/.gone.tsv.tmp-a1b2c3d4e5f6",        // an output no plan names any more
		".CLAUDE.md.tmp-a1b2c3d4e5f6",              // old naming, beside a rules file
		".cairn-tmp-CLAUDE.md.a1b2c3d4e5f6",        // new naming, beside a rules file
		"docs/.cairn-tmp-AGENTS.md.00ff00ff00ff",   // a rules file being created
		"docs/.AGENTS.md.tmp-00ff00ff00ff",         // the same, old naming
		".cairn/sub/.cairn-tmp-x.tsv.aaaaaaaaaaaa", // a folder below .cairn
	}
	notOurs = []string{
		".notes.md.tmp-0123456789ab",        // the naming, but of a file cairn does not write here
		".CLAUDE.md.tmp-backup",             // not cairn's random suffix
		".CLAUDE.md.tmp-0123456789ab.keep",  // more after it
		".cairn-tmp-notes",                  // the prefix alone
		".cairn-tmp-CLAUDE.md.0123456789AB", // upper-case hex: not what cairn writes
		"docs/.cairn-tmp-guide.md.0123456789ab",
		"CLAUDE.md.tmp-0123456789ab",             // no leading dot
		"governance/.log.jsonl.tmp-0123456789ab", // the build does not write governance/
	}
)

// TestSyncSweepsStaleTemps: a build removes the temporary files a killed
// build left, of both namings, in .cairn and beside the rules files it
// writes, and nothing of a user's that merely looks like one.
func TestSyncSweepsStaleTemps(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{".cairn/sub/x.tsv": "x\n"}
	for _, name := range slices.Concat(staleOurs, notOurs) {
		files[name] = "left over\n"
	}
	writeTree(t, root, files)
	p := Plan{
		Root: root,
		Files: []File{
			{Path: "CLAUDE.md", Data: []byte("rules\n")},
			{Path: "docs/AGENTS.md", Data: []byte("rules\n")},
			{Path: ".cairn/docs.tsv", Data: []byte("a\n")},
		},
		Keep:     []string{".cairn/sub/x.tsv"},
		Manifest: manifest("{}\n"),
	}
	if _, err := Sync(p); err != nil {
		t.Fatal(err)
	}
	for _, name := range staleOurs {
		if exists(root, name) {
			t.Errorf("stale temp file %s is still there", name)
		}
	}
	for _, name := range notOurs {
		if !exists(root, name) {
			t.Errorf("%s, not cairn's, was removed", name)
		}
	}
}

// TestDiffLeavesTemps: build --check only looks; the sweep is Sync's.
func TestDiffLeavesTemps(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".cairn/.cairn-tmp-docs.tsv.0123456789ab": "x"})
	if _, err := Diff(Plan{Root: root, Files: []File{{Path: ".cairn/docs.tsv"}}, Manifest: manifest("{}\n")}); err != nil {
		t.Fatal(err)
	}
	if !exists(root, ".cairn/.cairn-tmp-docs.tsv.0123456789ab") {
		t.Error("Diff removed a temp file")
	}
}

// TestWriteBaseFileSweepsStaleTemps: `cairn note`, collect and import
// write through WriteBaseFile, which removes the temp files a killed
// write of the same file left, and no other.
func TestWriteBaseFileSweepsStaleTemps(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"governance/.log.jsonl.tmp-0123456789ab":       "old naming",
		"governance/.cairn-tmp-log.jsonl.0123456789ab": "new naming",
		"governance/.terms.yaml.tmp-0123456789ab":      "another file's: left for its own writer",
		"governance/.log.jsonl.tmp-mine":               "a user's",
	})
	if err := WriteBaseFile(root, "governance/log.jsonl", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	got := names(t, filepath.Join(root, "governance"))
	want := []string{".log.jsonl.tmp-mine", ".terms.yaml.tmp-0123456789ab", "log.jsonl"}
	if !slices.Equal(got, want) {
		t.Errorf("governance/ holds %q, want %q", got, want)
	}
}

// names lists a folder's entries, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// killEnv names the write a child test process dies in the middle of.
const killEnv = "CAIRN_TEST_KILL_WRITE"

// TestKilledWriterChild is the child of TestKilledWriterTemps: it dies
// with os.Exit, which runs no deferred cleanup, just before the rename of
// the file it writes, as a killed process would. It does nothing unless
// its parent started it.
func TestKilledWriterChild(t *testing.T) {
	spec := os.Getenv(killEnv)
	if spec == "" {
		t.Skip("run by TestKilledWriterTemps")
	}
	mode, root, _ := strings.Cut(spec, "\t")
	syncHook = func(event, path string) error {
		if event == "rename" {
			os.Exit(3)
		}
		return nil
	}
	switch mode {
	case "sync":
		Sync(Plan{Root: root, Files: []File{{Path: "CLAUDE.md", Data: []byte("rules\n")}}, Manifest: manifest("{}\n")})
	case "base":
		WriteBaseFile(root, "governance/log.jsonl", []byte("{}\n"))
	}
	t.Fatal("the write finished; the hook should have ended the process")
}

// TestKilledWriterTemps: a writer killed before its rename leaves one temp
// file, named so that init's .gitignore line ignores it; the next write
// of the same kind removes it.
func TestKilledWriterTemps(t *testing.T) {
	for _, c := range []struct{ mode, dir string }{{"sync", "."}, {"base", "governance"}} {
		root := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterChild$")
		cmd.Env = append(os.Environ(), killEnv+"="+c.mode+"\t"+root)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 3 {
			t.Fatalf("%s: the child did not die at the rename: %v\n%s", c.mode, err, out)
		}
		var temps []string
		for _, n := range names(t, filepath.Join(root, c.dir)) {
			if strings.Contains(n, "tmp") {
				temps = append(temps, n)
			}
		}
		if len(temps) != 1 || !strings.HasPrefix(temps[0], ".cairn-tmp-") {
			t.Fatalf("%s: the killed write left %q; want one file named .cairn-tmp-*, which init's .gitignore ignores", c.mode, temps)
		}
		var werr error
		switch c.mode {
		case "sync":
			_, werr = Sync(Plan{Root: root, Files: []File{{Path: "CLAUDE.md", Data: []byte("rules\n")}}, Manifest: manifest("{}\n")})
		case "base":
			werr = WriteBaseFile(root, "governance/log.jsonl", []byte("{}\n"))
		}
		if werr != nil {
			t.Fatal(werr)
		}
		if exists(root, filepath.ToSlash(filepath.Join(c.dir, temps[0]))) {
			t.Errorf("%s: the next write left %s", c.mode, temps[0])
		}
	}
}

// TestWriteBaseFileRefusesLinkedFolders: a folder on the way to a file
// cairn writes in the base is a real folder; a link there, even one that
// stays inside the base, is refused and named, and nothing is written
// where it points.
func TestWriteBaseFileRefusesLinkedFolders(t *testing.T) {
	for _, c := range []struct{ link, target, write string }{
		{"events", "elsewhere", "events/2026-11-27/git.json"},
		{"events/2026-11-27", "../elsewhere", "events/2026-11-27/git.json"},
		{"governance", "elsewhere", "governance/log.jsonl"},
		{"events/2026-11-27/git.json", "../../elsewhere/git.json", "events/2026-11-27/git.json"},
	} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{"elsewhere/keep.txt": "x"})
		link := filepath.Join(root, filepath.FromSlash(c.link))
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(c.target, link); err != nil {
			t.Fatal(err)
		}
		err := WriteBaseFile(root, c.write, []byte("{}\n"))
		var le *LinkError
		if !errors.As(err, &le) || le.Path != c.link {
			t.Errorf("%s: error %v; want a *LinkError naming %s", c.link, err, c.link)
		}
		if got := names(t, filepath.Join(root, "elsewhere")); !slices.Equal(got, []string{"keep.txt"}) {
			t.Errorf("%s: written through the link: elsewhere/ holds %q", c.link, got)
		}
	}
}

// TestReadBaseFileRefusesLinks: what a writer reads before it replaces a
// file of the base is read the way it will be written: no link on the
// way, and the file itself regular.
func TestReadBaseFileRefusesLinks(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"elsewhere/terms.yaml": "terms: {}\n", "governance/voices/docs.yaml": "name: docs\n"})
	if err := os.Symlink("../elsewhere/terms.yaml", filepath.Join(root, "governance", "terms.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := ReadBaseFile(root, "governance/terms.yaml")
	var le *LinkError
	if !errors.As(err, &le) || le.Path != "governance/terms.yaml" {
		t.Errorf("error %v; want a *LinkError naming governance/terms.yaml", err)
	}
	if data, err := ReadBaseFile(root, "governance/voices/docs.yaml"); err != nil || string(data) != "name: docs\n" {
		t.Errorf("a regular file: %q, %v", data, err)
	}
	if _, err := ReadBaseFile(root, "governance/missing.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v; want fs.ErrNotExist", err)
	}
}
