package artifacts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// symlink makes a link at root/name pointing to target, or skips the test
// where links cannot be made.
func symlink(t *testing.T, target, root, name string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

// outsideTree is a folder outside any base, holding what an artifacts
// folder holds, with every mtime (the folder's too) set in the past, so
// that any file created, rewritten or deleted there shows.
func outsideTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	m := Manifest{RankingVersion: RankingVersion, ToolVersion: "test", SemanticsDigest: "0123456789abcdef"}
	writeTree(t, dir, map[string]string{
		"manifest.json": string(EncodeManifest(m)),
		"lock":          "pid=1 host=elsewhere cmd=someone since=2020-01-02T03:04:05Z\n",
		"precious.txt":  "not cairn's\n",
	})
	ageAll(t, dir)
	if err := os.Chtimes(dir, oldTime, oldTime); err != nil {
		t.Fatal(err)
	}
	return dir
}

// folderState is what a test sees of a folder: its files and its mtime,
// which changes when an entry is created or removed in it.
type folderState struct {
	Files map[string]entry
	MTime time.Time
}

func stateOf(t *testing.T, dir string) folderState {
	t.Helper()
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return folderState{Files: snapshot(t, dir), MTime: info.ModTime()}
}

func wantUntouched(t *testing.T, dir string, before folderState) {
	t.Helper()
	if diff := cmp.Diff(before, stateOf(t, dir)); diff != "" {
		t.Errorf("the folder outside the base changed (-before +after):\n%s", diff)
	}
}

// wantLinkedDirError checks that err refuses a symlinked .cairn under root,
// exits 2 and says what to do.
func wantLinkedDirError(t *testing.T, err error, root string) {
	t.Helper()
	var le *LinkError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v (%T), want a *LinkError", err, err)
	}
	var coded interface{ ExitCode() int }
	if !errors.As(err, &coded) || coded.ExitCode() != 2 {
		t.Errorf("err = %v, want exit code 2", err)
	}
	if want := filepath.Join(root, Dir); le.Path != want {
		t.Errorf("Path = %q, want %q", le.Path, want)
	}
	for _, part := range []string{filepath.Join(root, Dir), "symbolic link", "remove the link", "real folder inside the base"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("message %q does not say %q", err, part)
		}
	}
}

// linkedDirs are the two ways .cairn can be a link: to a folder outside
// the base, and to one inside it. Neither is followed.
func linkedDirs(t *testing.T) map[string]func(t *testing.T) (root, target string) {
	return map[string]func(t *testing.T) (string, string){
		"outside the base": func(t *testing.T) (string, string) {
			target := outsideTree(t)
			root := t.TempDir()
			symlink(t, target, root, Dir)
			return root, target
		},
		"inside the base": func(t *testing.T) (string, string) {
			root := t.TempDir()
			target := filepath.Join(root, "elsewhere")
			if err := os.CopyFS(target, os.DirFS(outsideTree(t))); err != nil {
				t.Fatal(err)
			}
			ageAll(t, target)
			if err := os.Chtimes(target, oldTime, oldTime); err != nil {
				t.Fatal(err)
			}
			symlink(t, "elsewhere", root, Dir)
			return root, target
		},
	}
}

// TestLinkedDirRefused: a .cairn that is a symbolic link is refused by
// every function that writes or reads the artifacts folder, with exit
// code 2, and what it points to is neither changed nor read.
func TestLinkedDirRefused(t *testing.T) {
	for name, make := range linkedDirs(t) {
		t.Run(name, func(t *testing.T) {
			root, target := make(t)
			before := stateOf(t, target)
			plan := Plan{Root: root, Files: []File{{Path: DocsPath, Data: []byte("x")}}, Manifest: manifest("m")}
			_, err := Sync(plan)
			wantLinkedDirError(t, err, root)
			_, err = Diff(plan)
			wantLinkedDirError(t, err, root)
			m, err := ReadPrevious(root)
			wantLinkedDirError(t, err, root)
			if m != nil {
				t.Errorf("ReadPrevious read the manifest through the link: %+v", m)
			}
			m, err = ReadPreviousHead(root)
			wantLinkedDirError(t, err, root)
			if m != nil {
				t.Errorf("ReadPreviousHead read the manifest through the link: %+v", m)
			}
			wantUntouched(t, target, before)
		})
	}
}

// TestIntactReadsNoLink: an output whose bytes match the manifest is not
// intact when it is reached through a link, to outside the base or through
// a linked .cairn: what a query trusts is read inside the base.
func TestIntactReadsNoLink(t *testing.T) {
	data := []byte("row\n")
	rules := []byte(RulesOpen + "\nrules\n" + RulesClose + "\n")
	m := &Manifest{Outputs: []FileStamp{
		{Path: DocsPath, Bytes: int64(len(data)), XXHash: Hash(data)},
		StampFile(File{Path: AgentsFile, Data: rules}),
	}}
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"docs.tsv": string(data), "AGENTS.md": string(rules)})

	root := t.TempDir()
	writeTree(t, root, map[string]string{DocsPath: string(data), AgentsFile: string(rules)})
	for _, p := range []string{DocsPath, AgentsFile} {
		if !Intact(root, m, StatCache{})(p) {
			t.Fatalf("%s: not intact as a regular file", p)
		}
	}

	root = t.TempDir()
	symlink(t, filepath.Join(outside, "docs.tsv"), root, DocsPath)
	symlink(t, filepath.Join(outside, "AGENTS.md"), root, AgentsFile)
	for _, p := range []string{DocsPath, AgentsFile} {
		if Intact(root, m, StatCache{})(p) {
			t.Errorf("%s: intact through a link to outside the base", p)
		}
	}

	root = t.TempDir()
	symlink(t, outside, root, Dir)
	if Intact(root, m, StatCache{})(DocsPath) {
		t.Errorf("%s: intact through a linked %s", DocsPath, Dir)
	}

	// An input, too, is read only inside the base.
	root = t.TempDir()
	symlink(t, outside, root, "wiki")
	in := &Manifest{Inputs: []FileStamp{{Path: "wiki/docs.tsv", Bytes: int64(len(data)), XXHash: Hash(data)}}}
	if p, _ := FirstChangedInput(root, in, StatCache{}); p == "" {
		t.Error("an input read through a folder linked outside the base counts as unchanged")
	}
}

// TestSyncReplacesALinkInsideDir: a link among the artifacts is not
// cairn's file: it is replaced by the output, and what it points to, inside
// the base or out, is left as it was.
func TestSyncReplacesALinkInsideDir(t *testing.T) {
	outside := outsideTree(t)
	before := stateOf(t, outside)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"notes.md": "x"})
	symlink(t, filepath.Join(outside, "precious.txt"), root, DocsPath)
	symlink(t, "../notes.md", root, PostingsPath) // same bytes as its output
	p := Plan{Root: root, Files: []File{{Path: DocsPath, Data: []byte("docs")}, {Path: PostingsPath, Data: []byte("x")}}, Manifest: manifest("m")}
	res, err := Sync(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{DocsPath, ActionUpdate}, {ManifestPath, ActionCreate}, {PostingsPath, ActionUpdate}}
	if diff := cmp.Diff(want, res.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	for _, f := range p.Files {
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil || !info.Mode().IsRegular() {
			t.Errorf("%s is not a regular file after Sync: %v, %v", f.Path, info, err)
		}
		if got := readFile(t, root, f.Path); got != string(f.Data) {
			t.Errorf("%s = %q, want %q", f.Path, got, f.Data)
		}
	}
	if got := readFile(t, root, "notes.md"); got != "x" {
		t.Errorf("notes.md = %q", got)
	}
	wantUntouched(t, outside, before)
}

// TestSyncRefusesALinkedRulesFile: a rules file is the user's; one that is
// a link is never written through nor replaced, wherever it points.
func TestSyncRefusesALinkedRulesFile(t *testing.T) {
	outside := outsideTree(t)
	before := stateOf(t, outside)
	for _, target := range []string{filepath.Join(outside, "precious.txt"), "shared.md"} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{"shared.md": "mine\n"})
		symlink(t, target, root, AgentsFile)
		for name, p := range map[string]Plan{
			"output":   {Root: root, Files: []File{{Path: AgentsFile, Data: []byte("x")}}, Manifest: manifest("m")},
			"released": {Root: root, Release: []File{{Path: AgentsFile, Data: []byte("x")}}, Manifest: manifest("m")},
		} {
			_, err := Sync(p)
			var le *LinkError
			if !errors.As(err, &le) || le.ExitCode() != 2 {
				t.Errorf("%s, link to %s: err = %v (%T), want a *LinkError", name, target, err, err)
			}
			if err == nil || !strings.Contains(err.Error(), AgentsFile) || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("%s, link to %s: err = %v, want a refusal naming the link", name, target, err)
			}
		}
		if got, err := os.Readlink(filepath.Join(root, AgentsFile)); err != nil || got != target {
			t.Errorf("the link is now %q, %v; want it kept, pointing to %s", got, err, target)
		}
		if got := readFile(t, root, "shared.md"); got != "mine\n" {
			t.Errorf("shared.md = %q", got)
		}
	}
	wantUntouched(t, outside, before)
}

// TestWriteBaseFileStaysInside: the notes log, as a link to outside the
// base or below a linked folder, is not written through.
func TestWriteBaseFileStaysInside(t *testing.T) {
	const log = "governance/log.jsonl"
	for name, link := range map[string]func(t *testing.T, outside, root string){
		"the log links outside": func(t *testing.T, outside, root string) {
			symlink(t, filepath.Join(outside, "precious.txt"), root, log)
		},
		"its folder links outside": func(t *testing.T, outside, root string) {
			symlink(t, outside, root, "governance")
		},
		"a folder above links outside": func(t *testing.T, outside, root string) {
			symlink(t, outside, root, "deep")
		},
	} {
		t.Run(name, func(t *testing.T) {
			outside := outsideTree(t)
			writeTree(t, outside, map[string]string{"log.jsonl": "old\n", "governance/log.jsonl": "old\n"})
			ageAll(t, outside)
			before := stateOf(t, outside)
			root := t.TempDir()
			link(t, outside, root)
			target := log
			if strings.HasPrefix(name, "a folder above") {
				target = "deep/" + log
			}
			err := WriteBaseFile(root, target, []byte("new\n"))
			if err == nil {
				t.Errorf("WriteBaseFile(%s) wrote through the link", target)
			}
			var le *LinkError
			if name == "the log links outside" && (!errors.As(err, &le) || le.ExitCode() != 2 || le.Path != log) {
				t.Errorf("err = %v (%T), want a *LinkError naming %s", err, err, log)
			}
			wantUntouched(t, outside, before)
		})
	}
}

// TestSyncFollowsNoLinkBelowDir: a folder under .cairn that is a link,
// even to a folder inside the base, is not a way for a stale output named
// by a hand-edited manifest, or an output, to reach the user's files.
func TestSyncFollowsNoLinkBelowDir(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"docs/guide.md": "mine\n", ".cairn/docs.tsv": "d"})
	symlink(t, "../docs", root, Dir+"/sub")
	for name, p := range map[string]Plan{
		"stale": {Root: root, Manifest: manifest("m"), Previous: []string{Dir + "/sub/guide.md"}},
		"write": {Root: root, Files: []File{{Path: Dir + "/sub/guide.md", Data: []byte("x")}}, Manifest: manifest("m")},
	} {
		for _, run := range []func(Plan) (Result, error){Sync, Diff} {
			_, err := run(p)
			var le *LinkError
			if !errors.As(err, &le) || le.Path != Dir+"/sub" || le.ExitCode() != 2 {
				t.Errorf("%s: err = %v (%T), want a *LinkError naming %s/sub", name, err, err, Dir)
			}
		}
	}
	if got := readFile(t, root, "docs/guide.md"); got != "mine\n" {
		t.Errorf("docs/guide.md = %q", got)
	}
	if exists(root, ManifestPath) {
		t.Error("manifest written although the plan was refused")
	}
}

// TestOpenArtifact: a reader's open of an artifact reads no link: not a
// linked .cairn, a linked folder below it, or a link at the file.
func TestOpenArtifact(t *testing.T) {
	outside := outsideTree(t)
	open := func(root, name string) error {
		t.Helper()
		base, err := os.OpenRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		defer base.Close()
		f, info, err := OpenArtifact(base, name)
		if err == nil {
			defer f.Close()
			if info.Size() != 2 {
				t.Errorf("%s: size %d, want 2", name, info.Size())
			}
		}
		return err
	}

	root := t.TempDir()
	writeTree(t, root, map[string]string{DocsPath: "d\n", "notes.md": "x\n"})
	if err := open(root, DocsPath); err != nil {
		t.Errorf("a regular artifact: %v", err)
	}
	if err := open(root, TermsPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing artifact: err = %v, want not-exist", err)
	}
	symlink(t, "../notes.md", root, PostingsPath)
	symlink(t, filepath.Join(outside, "precious.txt"), root, EdgesPath)
	symlink(t, "..", root, Dir+"/up")
	for name, link := range map[string]string{PostingsPath: PostingsPath, EdgesPath: EdgesPath, Dir + "/up/notes.md": Dir + "/up"} {
		if err := open(root, name); err == nil || !strings.Contains(err.Error(), link) {
			t.Errorf("%s: err = %v, want a refusal naming %s", name, err, link)
		}
	}

	root = t.TempDir()
	writeTree(t, root, map[string]string{"elsewhere/docs.tsv": "d\n"})
	symlink(t, "elsewhere", root, Dir)
	wantLinkedDirError(t, open(root, DocsPath), root)
}
