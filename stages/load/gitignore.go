package load

import (
	"cmp"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// GitignoreFile is the name of the files whose patterns keep a file out of
// the content group.
const GitignoreFile = ".gitignore"

// ignoreRule is one pattern of a .gitignore file, as git reads it.
type ignoreRule struct {
	base    string // the folder of its .gitignore, "" at the base root
	glob    string // a doublestar pattern over paths relative to base
	negate  bool   // "!pattern": a path it matches is not ignored after all
	dirOnly bool   // "pattern/": it matches folders only
	inside  bool   // "pattern/**": it matches what a folder holds, not the folder
}

// gitignore is cairn's own reading of gitignore(5) over doublestar:
// TestGitignoreAgreesWithGit checks it against git check-ignore, which
// go-git's matcher (v5.19.3) does not pass (it ignores vendor/keep.md
// under "vendor/**" and "!vendor/keep.md"; git keeps it).
//
// gitignore is the rules of every .gitignore file of a base, the root's
// first and deeper files after: for any path, the last rule that matches
// it decides, so a deeper file overrides a shallower one and a later
// line an earlier one, as in git.
type gitignore struct {
	rules []ignoreRule
}

// parseGitignore reads the patterns of the .gitignore file p, whose folder
// is base. Patterns follow gitignore(5): blank lines and # comments are
// skipped, trailing unescaped spaces dropped; a leading ! negates; a
// trailing / matches folders only; a pattern with a / at its start or in
// its middle is anchored to base, any other matches at every depth below
// it; * and ? match within one path element, ** across them. A pattern
// cairn cannot read is a warning, and left out.
func parseGitignore(p, base string, data string, ds *diag.List) []ignoreRule {
	var rules []ignoreRule
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSuffix(line, "\r")
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		r := ignoreRule{base: base}
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			continue
		}
		r.glob = escapeBraces(line)
		if !anchored {
			r.glob = "**/" + r.glob
		}
		r.inside = strings.HasSuffix(r.glob, "/**")
		if !doublestar.ValidatePattern(r.glob) {
			ds.Warnf(p, i+1, 1, "bad-gitignore", "cairn cannot read the pattern %q, so it keeps no file out of the content; fix its brackets", line)
			continue
		}
		rules = append(rules, r)
	}
	return rules
}

// escapeBraces makes { and } literal: doublestar reads them as
// alternatives, which gitignore patterns do not have.
func escapeBraces(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case c == '\\' && i+1 < len(glob):
			b.WriteByte(c)
			i++
			b.WriteByte(glob[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// matches reports whether r matches the path p, a folder when dir is true.
func (r ignoreRule) matches(p string, dir bool) bool {
	if r.dirOnly && !dir {
		return false
	}
	rel := p
	if r.base != "" {
		var ok bool
		if rel, ok = under(p, r.base); !ok {
			return false
		}
	}
	if ok, _ := doublestar.Match(r.glob, rel); !ok {
		return false
	}
	// doublestar's a/** matches a itself; git's matches only what is in a.
	if r.inside {
		if self, _ := doublestar.Match(strings.TrimSuffix(r.glob, "/**"), rel); self {
			return false
		}
	}
	return true
}

// ignores reports whether the file p is ignored: the last rule that
// matches a folder above it or the file itself says so. As in git, a
// file in an ignored folder stays ignored whatever a later rule says of
// the file.
func (g *gitignore) ignores(p string) bool {
	if g == nil || len(g.rules) == 0 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && g.decides(p[:i], true) {
			return true
		}
	}
	return g.decides(p, false)
}

// decides reports whether the last rule that matches p ignores it.
func (g *gitignore) decides(p string, dir bool) bool {
	for i := len(g.rules) - 1; i >= 0; i-- {
		if g.rules[i].matches(p, dir) {
			return !g.rules[i].negate
		}
	}
	return false
}

// loadGitignore reads the .gitignore files the walk found, shallower
// first.
func loadGitignore(fsys fs.FS, files []entry, ds *diag.List) *gitignore {
	slices.SortFunc(files, func(a, b entry) int {
		return cmp.Or(cmp.Compare(strings.Count(a.path, "/"), strings.Count(b.path, "/")), strings.Compare(a.path, b.path))
	})
	g := &gitignore{}
	for _, f := range files {
		// One that cannot be read keeps nothing out; the build goes on.
		var read diag.List
		text, ok := readText(fsys, f.path, MaxGovernanceBytes, &read)
		for _, d := range read.Sorted() {
			d.Severity = diag.Warning
			ds.Add(d)
		}
		if !ok {
			continue
		}
		base := path.Dir(f.path)
		if base == "." {
			base = ""
		}
		g.rules = append(g.rules, parseGitignore(f.path, base, text, ds)...)
	}
	return g
}
