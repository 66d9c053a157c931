package load

import (
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// statRows is a stat cache that can list its rows (artifacts.StatFile).
type statRows interface {
	Each(fn func(path string, e artifacts.StatEntry))
}

// statTake is Take's listing of the corpus trees top of the base in the
// folder dir without a walk, from the rows of the stat cache stat (see
// folders.go): the root is listed, being small and where a build writes;
// then every folder row of those trees is statted and must be a folder
// with its recorded modification time, and every file row of a corpus
// input is statted for its size and time. ok is false, and the caller
// walks, when the cache has no folder rows for a tree that is there, when
// anything differs from what a walk would accept, or on any error.
//
// Stats are taken relative to the root's descriptor without following a
// final link, and a row is taken only once the row of its folder has been
// checked in the same pass (rows are sorted, so a folder's row comes
// before what it holds): a folder that became a link, whose row a walk
// no longer writes, leaves the rows below it without a checked folder,
// and the query walks rather than stat through the link.
func statTake(dir string, c classifier, top map[string]bool, stat artifacts.StatLookup) (out []entry, ok bool) {
	rows, isRows := stat.(statRows)
	if !isRows {
		return nil, false
	}
	root, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(root)
	names, types, listed := readDirents(root, make([]byte, direntBuf))
	if !listed {
		return nil, false
	}
	var ds diag.List // a walk would report what lands here: then it walks
	trees := map[string]bool{}
	for i, name := range names {
		switch {
		case IsConfigFile(name):
			size, mtime, ctime, regular := statFile(root, name)
			if !regular {
				return nil, false
			}
			c.add(&ds, &out, name, size, mtime, ctime, false)
		case !top[name] || strings.HasPrefix(name, "."):
			// walkOnly skips these too
		case types[i] == unix.DT_DIR:
			trees[name] = false // true once its folder row holds
		default:
			return nil, false
		}
	}
	ok = true
	checked := map[string]bool{} // folders whose rows hold, as "a/b"
	rows.Each(func(p string, e artifacts.StatEntry) {
		first, _, nested := strings.Cut(p, "/")
		if !ok || !nested || !top[first] {
			return
		}
		folder, isFolder := strings.CutSuffix(p, "/")
		if parent := path.Dir(folder); isFolder && parent != "." && !checked[parent] || !isFolder && !checked[path.Dir(p)] {
			ok = false
			return
		}
		if isFolder {
			var st unix.Stat_t
			if unix.Fstatat(root, folder, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR ||
				st.Mtim.Nano() != e.MtimeNS {
				ok = false
				return
			}
			checked[folder] = true
			if folder == first {
				trees[first] = true
			}
			return
		}
		if k := c.classify(p, &ds); k != kindConfig && k.group() != GroupCorpus {
			return
		}
		size, mtime, ctime, regular := statFile(root, p)
		if !regular {
			ok = false
			return
		}
		c.add(&ds, &out, p, size, mtime, ctime, false)
	})
	for _, held := range trees {
		ok = ok && held
	}
	if !ok || len(ds.Sorted()) > 0 {
		return nil, false
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	return out, true
}

// statFile stats the path p below the folder open as fd without following
// a final link, and reports whether it is a regular file.
func statFile(fd int, p string) (size, mtimeNS, ctimeNS int64, regular bool) {
	var st unix.Stat_t
	if unix.Fstatat(fd, p, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, 0, 0, false
	}
	return st.Size, st.Mtim.Nano(), st.Ctim.Nano(), true
}
