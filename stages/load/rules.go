package load

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// loadRulesFiles reads every AGENTS.md and CLAUDE.md the walk found. A
// file whose cairn section cannot be delimited is an error: cairn cannot
// tell its own lines from the user's there, so it must not rewrite it.
func loadRulesFiles(fsys fs.FS, entries []entry, ds *diag.List) []model.RulesFile {
	found := make(map[string]bool, len(entries))
	for _, e := range entries {
		found[e.path] = true
	}
	var out []model.RulesFile
	for _, e := range entries {
		text, ok := readTextRaw(fsys, e.path, MaxContentBytes, ds)
		if !ok {
			continue
		}
		if _, _, _, err := artifacts.FindRulesSection([]byte(text)); err != nil {
			var se *artifacts.SectionError
			if errors.As(err, &se) {
				ds.Errorf(e.path, se.Line, 1, "rules-section", "%s", se.Msg)
			}
			continue
		}
		rf := model.RulesFile{Path: e.path, Text: text, Symlink: e.symlink}
		if path.Base(e.path) == artifacts.ClaudeFile {
			agents := path.Join(path.Dir(e.path), artifacts.AgentsFile)
			rf.SameAsAgents = found[agents] && sameFile(fsys, agents, e.path)
		}
		out = append(out, rf)
	}
	return out
}

// sameFile reports whether two paths of fsys are one file, through a
// symbolic or a hard link. It compares what the file system reports
// (device and inode where the FS is backed by the OS); an FS that reports
// nothing of the kind never sees two paths as one.
func sameFile(fsys fs.FS, a, b string) bool {
	sa, errA := fs.Stat(fsys, a)
	sb, errB := fs.Stat(fsys, b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// RulesKey is the rules stage's key: the governance and content keys,
// which together cover the configuration, the voices, the terms store, the
// notes log and the content files, then the shape of each rules
// file: its path, whether it is a link, whether a CLAUDE.md is the
// AGENTS.md beside it or imports it, whether it holds a section, and
// whether it holds a section of kapi's, which a section replaces. Text
// around a section is not part of it, so editing that text never makes the
// rules stale; the section's own bytes are checked through the outputs'
// stamps. The rules stage computes the same key over the files as it
// leaves them, so a build that follows one with nothing changed finds it
// current.
func RulesKey(governanceKey, contentKey string, files []model.RulesFile) string {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b model.RulesFile) int { return strings.Compare(a.Path, b.Path) })
	h := xxhash.New()
	h.WriteString("cairn/rules\n" + governanceKey + "\n" + contentKey + "\n")
	for _, f := range files {
		_, _, section, _ := artifacts.FindRulesSection([]byte(f.Text))
		imports := path.Base(f.Path) == artifacts.ClaudeFile && artifacts.ImportsAgents([]byte(f.Text))
		h.WriteString(f.Path)
		for _, b := range []bool{f.Symlink, f.SameAsAgents, imports, section} {
			h.WriteString("\t" + strconv.FormatBool(b))
		}
		if len(artifacts.LegacySections([]byte(f.Text))) > 0 {
			h.WriteString("\tkapi") // only then, so that other bases' keys stay
		}
		h.WriteString("\n")
	}
	return artifacts.HashSum(h.Sum64())
}
