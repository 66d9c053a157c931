package check

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// Selection is the content files a check reads, and what it was asked
// about and will not read.
type Selection struct {
	// Files are the content files to check, sorted.
	Files []string
	// Skipped are the named files that are not content files of the base
	// (a page, a rules file, a file the content globs or .gitignore leave
	// out), sorted: a caller says it did not check them.
	Skipped []string
	// Diagnostics are what the walk could not list.
	Diagnostics []diag.Diagnostic
}

// Select lists the content files named by paths (base-relative, clean;
// "." is the whole base): a file is checked when it is a content file, a
// folder stands for the content files inside it, and no paths stand for
// every content file of the base. A path that does not exist is an
// error: the caller named something the base does not hold.
func Select(fsys fs.FS, cfg model.Config, paths []string) (Selection, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var sel Selection
	var dirs []string
	for _, p := range paths {
		st, err := fs.Stat(fsys, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return Selection{}, fmt.Errorf("%s does not exist in the base; name a content file or a folder inside it", p)
		case err != nil:
			return Selection{}, fmt.Errorf("%s cannot be read inside the base (%v); name a path inside it", p, err)
		case st.IsDir():
			dirs = append(dirs, p)
		case isContent(fsys, cfg, p):
			sel.Files = append(sel.Files, p)
		default:
			sel.Skipped = append(sel.Skipped, p)
		}
	}
	if len(dirs) > 0 {
		files, ds := load.ContentPaths(fsys, cfg, dirs)
		sel.Files = append(sel.Files, files...)
		sel.Diagnostics = ds
	}
	slices.Sort(sel.Files)
	sel.Files = slices.Compact(sel.Files)
	slices.Sort(sel.Skipped)
	sel.Skipped = slices.Compact(sel.Skipped)
	return sel, nil
}

// Changed keeps, of the paths git reports as changed, the content files
// that exist: a deleted file has nothing to check, and a changed page or
// source file is not content.
func Changed(fsys fs.FS, cfg model.Config, paths []string) []string {
	var out []string
	for _, p := range paths {
		if st, err := fs.Stat(fsys, p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if isContent(fsys, cfg, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isContent reports whether the file p is a content file as the build's
// walk finds them: outside hidden folders (.git, .cairn, ...), taken by the
// content globs, and not left out by a .gitignore.
func isContent(fsys fs.FS, cfg model.Config, p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return load.IsContent(cfg, p) && !load.IgnoredContent(fsys, p)
}
