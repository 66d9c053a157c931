package artifacts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const section = RulesOpen + "\n## Rules\n- Write \"Harbor\".\n" + RulesClose + "\n"

func TestFindRulesSection(t *testing.T) {
	cases := []struct {
		name, data string
		want       string // the section, "" when none
		errLine    int    // 0: no error
	}{
		{"empty", "", "", 0},
		{"only user text", "# Mine\n\nHello.\n", "", 0},
		{"only the section", section, section, 0},
		{"between user text", "# Mine\n\n" + section + "\nMore.\n", section, 0},
		{"last line without LF", "top\n" + strings.TrimSuffix(section, "\n"), strings.TrimSuffix(section, "\n"), 0},
		{"CRLF and indentation", "a\r\n  " + RulesOpen + "\r\nx\r\n" + RulesClose + " \r\nb\r\n", "  " + RulesOpen + "\r\nx\r\n" + RulesClose + " \r\n", 0},
		{"a marker inside a line is text", "see " + RulesOpen + " above\n", "", 0},
		{"unclosed", "a\n" + RulesOpen + "\nx\n", "", 2},
		{"close without open", "a\n" + RulesClose + "\n", "", 2},
		{"two opens", RulesOpen + "\n" + RulesOpen + "\n" + RulesClose + "\n", "", 2},
		{"two sections", section + section, "", 5},
		// A user's example of the markers, in a code block, is text.
		{"markers in a fence", "How it looks:\n```md\n" + RulesOpen + "\n(generated)\n" + RulesClose + "\n```\n", "", 0},
		{"one marker in a fence", "~~~~\n" + RulesClose + "\n~~~\n~~~~\n", "", 0},
		{"a fence before the section", "```\n" + section + "```\n" + section, section, 0},
		{"a byte-order mark", "\ufeff" + section, "\ufeff" + section, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start, end, found, err := FindRulesSection([]byte(c.data))
			var se *SectionError
			switch {
			case c.errLine > 0:
				if !errors.As(err, &se) || se.Line != c.errLine {
					t.Fatalf("err = %v, want a SectionError on line %d", err, c.errLine)
				}
			case err != nil:
				t.Fatalf("err = %v", err)
			case (c.want != "") != found:
				t.Fatalf("found = %v", found)
			case found && c.data[start:end] != c.want:
				t.Errorf("section = %q, want %q", c.data[start:end], c.want)
			}
		})
	}
}

func TestStampFile(t *testing.T) {
	mine := File{Path: "docs/AGENTS.md", Data: []byte("# Mine\n\n" + section)}
	edited := File{Path: "docs/AGENTS.md", Data: []byte("# Mine, edited\n\n" + section + "\nAnd more of mine.\n")}
	if StampFile(mine) != StampFile(edited) {
		t.Error("an edit outside the section changed the stamp")
	}
	inside := File{Path: "docs/AGENTS.md", Data: []byte("# Mine\n\n" + strings.Replace(section, "Harbor", "harbor", 1))}
	if StampFile(mine) == StampFile(inside) {
		t.Error("an edit inside the section kept the stamp")
	}
	if got := StampFile(mine); got.Bytes != int64(len(section)) || got.XXHash != Hash([]byte(section)) {
		t.Errorf("stamp = %+v, want the section's size and hash", got)
	}
	// Under .cairn, or by another name, a file is stamped whole.
	for _, p := range []string{".cairn/AGENTS.md", "docs/AGENTS.txt"} {
		if got := StampFile(File{Path: p, Data: mine.Data}); got.Bytes != int64(len(mine.Data)) {
			t.Errorf("%s stamped %d bytes, want the whole file", p, got.Bytes)
		}
	}
}

func TestIntactReadsRulesFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"AGENTS.md": "# Mine\n\n" + section})
	m := &Manifest{Outputs: []FileStamp{StampFile(File{Path: "AGENTS.md", Data: []byte("# Mine\n\n" + section)})}}
	cache := StatCache{}
	StampOutputs(root, m, cache)
	if _, ok := cache["AGENTS.md"]; ok {
		t.Error("a rules file entered the stat cache")
	}
	intact := Intact(root, m, cache)
	if !intact("AGENTS.md") {
		t.Fatal("a rules file as written is not intact")
	}
	writeTree(t, root, map[string]string{"AGENTS.md": "# Mine, longer now\n\n" + section + "\nP.S.\n"})
	if !intact("AGENTS.md") {
		t.Error("an edit outside the section made the rules file look changed")
	}
	writeTree(t, root, map[string]string{"AGENTS.md": "# Mine\n\n" + strings.Replace(section, "Harbor", "HARBOR", 1)})
	if intact("AGENTS.md") {
		t.Error("an edit inside the section went unnoticed")
	}
	if err := os.Remove(filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if intact("AGENTS.md") {
		t.Error("a deleted rules file is intact")
	}
}

func TestSyncReleaseAndDelete(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"AGENTS.md":         "# Mine\n\n" + section,
		"docs/AGENTS.md":    section,
		"docs/CLAUDE.md":    "@AGENTS.md\n",
		"old/CLAUDE.md":     section,
		".cairn/stale.tsv":  "x",
		"blog/AGENTS.md":    "# Unchanged\n",
		"docs/api/notes.md": "content",
	})
	ageAll(t, root)
	p := Plan{
		Root:     root,
		Files:    []File{{Path: "docs/AGENTS.md", Data: []byte(section)}},
		Release:  []File{{Path: "AGENTS.md", Data: []byte("# Mine\n")}, {Path: "blog/AGENTS.md", Data: []byte("# Unchanged\n")}},
		Delete:   []string{"old/CLAUDE.md", "gone/AGENTS.md"},
		Manifest: manifest("m"),
		Previous: []string{".cairn/stale.tsv", "docs/CLAUDE.md"},
	}
	diff, err := Diff(p)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	setHook(t, func(event, path string) error {
		events = append(events, event+" "+path)
		return nil
	})
	want := Result{
		Changes: []Change{
			{".cairn/manifest.json", ActionCreate},
			{".cairn/stale.tsv", ActionDelete},
			{"AGENTS.md", ActionUpdate},
			{"old/CLAUDE.md", ActionDelete},
		},
		Unchanged: []string{"blog/AGENTS.md", "docs/AGENTS.md"},
	}
	syncWants(t, p, want)
	if d := cmp.Diff(want, diff); d != "" {
		t.Errorf("Diff differs from Sync (-sync +diff):\n%s", d)
	}
	wantEvents := []string{
		"write AGENTS.md", "rename AGENTS.md",
		"delete .cairn/stale.tsv", "delete old/CLAUDE.md",
		"write .cairn/manifest.json", "rename .cairn/manifest.json",
	}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Errorf("operations (-want +got):\n%s", d)
	}
	got := snapshot(t, root)
	if got["AGENTS.md"].Data != "# Mine\n" || got["docs/CLAUDE.md"].Data != "@AGENTS.md\n" {
		t.Errorf("after sync: AGENTS.md %q, docs/CLAUDE.md %q", got["AGENTS.md"].Data, got["docs/CLAUDE.md"].Data)
	}
	if !got["blog/AGENTS.md"].MTime.Equal(oldTime) {
		t.Error("a byte-identical released file was rewritten")
	}
	if exists(root, "old/CLAUDE.md") {
		t.Error("old/CLAUDE.md was not deleted")
	}
}

func TestSyncReleasesAndDeletesOnlyRulesFiles(t *testing.T) {
	for _, name := range []string{"docs/guide.md", ".cairn/AGENTS.md", "../AGENTS.md", "cairn.yaml"} {
		for role, p := range map[string]Plan{
			"release": {Release: []File{{Path: name, Data: []byte("x")}}, Manifest: manifest("m")},
			"delete":  {Delete: []string{name}, Manifest: manifest("m")},
		} {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"docs/guide.md": "mine", "cairn.yaml": "mine"})
			p.Root = root
			if _, err := Sync(p); err == nil {
				t.Errorf("Sync accepted %s of %q", role, name)
			}
			if got := readFile(t, root, "docs/guide.md"); got != "mine" {
				t.Errorf("%s of %q touched docs/guide.md", role, name)
			}
		}
	}
	p := Plan{Files: []File{{Path: "AGENTS.md"}}, Delete: []string{"AGENTS.md"}, Manifest: manifest("m"), Root: t.TempDir()}
	if _, err := Sync(p); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("writing and deleting one rules file: err = %v, want a refusal", err)
	}
}

func TestImportsAgents(t *testing.T) {
	cases := map[string]bool{
		"@AGENTS.md\n":                    true,
		"# Claude\n\n  @./AGENTS.md  \n":  true,
		"See @AGENTS.md for the rules.\n": false,
		"@AGENTS.md.bak\n":                false,
		"":                                false,
	}
	for text, want := range cases {
		if got := ImportsAgents([]byte(text)); got != want {
			t.Errorf("ImportsAgents(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSyncKeepsAReplacedFilesMode: a rules file a user kept private stays
// private when cairn rewrites its section.
func TestSyncKeepsAReplacedFilesMode(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"AGENTS.md": "# Mine\n\n" + section})
	if err := os.Chmod(filepath.Join(root, "AGENTS.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	newer := "# Mine\n\n" + strings.Replace(section, "\n", "\nA new rule.\n", 1)
	p := Plan{Root: root, Files: []File{{Path: "AGENTS.md", Data: []byte(newer)}}, Manifest: File{Path: ManifestPath, Data: []byte("{}\n")}}
	if _, err := Sync(p); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(root, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode after the rewrite %v, want -rw-------", st.Mode().Perm())
	}
}

// TestWriteBaseFileRefusesALink: renaming over a link would replace it and
// strand what it points to; the write is refused and nothing changes.
func TestWriteBaseFileRefusesALink(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"governance/real.jsonl": "old\n"})
	if err := os.Symlink("real.jsonl", filepath.Join(root, "governance", "log.jsonl")); err != nil {
		t.Fatal(err)
	}
	err := WriteBaseFile(root, "governance/log.jsonl", []byte("new\n"))
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("err = %v, want a refusal naming the link", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "governance", "real.jsonl")); string(data) != "old\n" {
		t.Errorf("the link's target changed: %q", data)
	}
}
