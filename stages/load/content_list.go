package load

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// This file lists and reads content files one by one, for a reader that
// checks some of them (cairn check) rather than building them all: the
// same walk, the same classification and the same .gitignore rules as the
// build's, and nothing of the base is read but the files asked for.

// ContentPaths lists the content files of the base inside the folders
// dirs (base-relative, "." for the whole base), sorted. Only the top-level
// folders the dirs sit in are walked, so checking docs/ lists nothing of
// events/. A content file the base's .gitignore files ignore is left out,
// as the build leaves it out.
func ContentPaths(fsys fs.FS, cfg model.Config, dirs []string) ([]string, []diag.Diagnostic) {
	var ds diag.List
	c := newClassifier(cfg)
	var top map[string]bool
	if !slices.Contains(dirs, ".") {
		top = map[string]bool{GitignoreFile: true}
		for _, d := range dirs {
			top[strings.SplitN(d, "/", 2)[0]] = true
		}
	}
	entries := walkOnly(fsys, c, &ds, top, nil)
	var ignores []entry
	for _, e := range entries {
		if e.kind == kindGitignore {
			ignores = append(ignores, e)
		}
	}
	var g *gitignore
	if len(ignores) > 0 {
		g = loadGitignore(fsys, ignores, &ds)
	}
	var out []string
	for _, e := range entries {
		if e.kind != kindContent || g != nil && g.ignores(e.path) || !inside(e.path, dirs) {
			continue
		}
		out = append(out, e.path)
	}
	// The walk's own notes about files that are not content (stray files
	// in a layer folder) are the build's to report, not a check's.
	var kept diag.List
	for _, d := range ds.Sorted() {
		if d.Severity == diag.Error {
			kept.Add(d)
		}
	}
	return out, kept.Sorted()
}

// inside reports whether p is in one of the folders dirs.
func inside(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "." || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// IgnoredContent reports whether the base's .gitignore files leave the
// content file p out: the .gitignore files of the root and of every folder
// above p are read, and nothing else.
func IgnoredContent(fsys fs.FS, p string) bool {
	var files []entry
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		f := path.Join(dir, GitignoreFile)
		if st, err := fs.Stat(fsys, f); err == nil && st.Mode().IsRegular() {
			files = append(files, entry{path: f, kind: kindGitignore})
		}
		if dir == "." {
			break
		}
	}
	if len(files) == 0 {
		return false
	}
	var ds diag.List
	return loadGitignore(fsys, files, &ds).ignores(p)
}

// ReadContent reads one content file as the build reads it: the size cap,
// the frontmatter and its point:. BodyLine is the line the text after the
// frontmatter starts on (1 without frontmatter). A file that cannot be
// read or whose frontmatter cannot be decoded comes back with ok false and
// the mistakes found.
func ReadContent(fsys fs.FS, p string) (f model.ContentFile, bodyLine int, ds []diag.Diagnostic, ok bool) {
	var list diag.List
	data, ok := readFile(fsys, p, MaxContentBytes, &list)
	if !ok {
		return model.ContentFile{Path: p}, 0, list.Sorted(), false
	}
	fm, _, bodyLine, ok := decodeFrontmatter(p, data, &list)
	return model.ContentFile{Path: p, Point: fm.Point, Text: string(data)}, bodyLine, list.Sorted(), ok
}
