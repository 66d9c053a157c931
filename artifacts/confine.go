package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Everything cairn writes or reads of its own under a base goes through an
// os.Root of the base, so that no path and no symlink met on the way
// reaches outside it (SPEC §3). Two rules go further than os.Root, which
// follows a link that stays inside the base:
//
//   - .cairn itself must be a real folder. A link there would move the
//     lock and every artifact to wherever it points, so it is refused
//     (LinkError) before anything is read or written below it.
//   - A folder below .cairn must be real too, so that a stale output
//     named by an edited manifest cannot reach a user's file by a link.
//   - A file cairn owns (an artifact, the manifest, the lock's holder
//     file) is only ever a regular file. A link in its place is not read;
//     writes replace it by renaming a fresh file over it, which replaces
//     the link itself and never touches what it points to.

// LinkError is a path cairn keeps as a real folder or file of its own, or
// writes in place, that is a symbolic link: .cairn, or a rules file or the
// notes log that cairn is about to write. It exits 2, like any base that
// cannot be used as it is, and Fix says what to do.
type LinkError struct {
	Path string // the link: an OS path for .cairn, else base-relative
	Fix  string
}

func (e *LinkError) Error() string { return e.Path + " is a symbolic link; " + e.Fix }

// ExitCode is 2: the base cannot be used as it is.
func (e *LinkError) ExitCode() int { return 2 }

// dirLinkFix is what to do about a .cairn that is a link.
const dirLinkFix = "cairn keeps its artifacts and build lock only in a real folder inside the base: remove the link and run cairn build, which makes the folder"

// dirLinkError refuses the .cairn of the base at root.
func dirLinkError(root *os.Root) error {
	return &LinkError{Path: filepath.Join(root.Name(), Dir), Fix: dirLinkFix}
}

// openArtifacts opens the base at dir as an os.Root, refusing it when its
// .cairn is a symbolic link. The caller closes the root.
func openArtifacts(dir string) (*os.Root, error) {
	root, err := openBase(dir)
	if err != nil {
		return nil, err
	}
	if err := checkDir(root); err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// checkDir refuses a .cairn that is a symbolic link. A missing one is
// fine: the build makes it.
func checkDir(root *os.Root) error {
	info, err := root.Lstat(Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("artifacts: cannot check %s: %w", filepath.Join(root.Name(), Dir), err)
	case info.Mode()&fs.ModeSymlink != 0:
		return dirLinkError(root)
	}
	return nil
}

// ErrLink says that a file cairn owns is a symbolic link, which is never
// followed.
var ErrLink = errors.New("the file is a symbolic link, which cairn does not follow")

// openRegular opens name, a file cairn owns, for reading only when it is a
// regular file and not a link; the file it opened is checked to be the one
// it looked at, so a link put there in between is not read either.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	osName := filepath.FromSlash(name)
	info, err := root.Lstat(osName)
	if err != nil {
		return nil, nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, ErrLink
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file")
	}
	f, err := openShared(root, osName)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !os.SameFile(info, st) {
		f.Close()
		return nil, nil, errors.New("the file was replaced while it was opened")
	}
	return f, st, nil
}

// checkBelowDir refuses a path under .cairn whose way there, below .cairn
// itself (which checkDir vouches for), passes a symbolic link; paths
// outside .cairn are left to os.Root.
func checkBelowDir(root *os.Root, name string) error {
	rest, ok := strings.CutPrefix(name, Dir+"/")
	if !ok {
		return nil
	}
	for i := range len(rest) {
		if rest[i] != '/' {
			continue
		}
		folder := Dir + "/" + rest[:i]
		info, err := root.Lstat(filepath.FromSlash(folder))
		if err != nil {
			return nil // missing, or not a folder: the write or delete says so
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return &LinkError{Path: folder, Fix: "cairn keeps its artifacts only in real folders under " + Dir + ": remove the link and build again"}
		}
	}
	return nil
}

// OpenArtifact opens name, a file under .cairn of the base opened as root,
// for a reader: only as a regular file reached by no link, and only when
// .cairn itself is no link (a *LinkError). A missing file is an error
// satisfying errors.Is(err, fs.ErrNotExist). The returned info is the
// open file's.
func OpenArtifact(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	if err := checkDir(root); err != nil {
		return nil, nil, err
	}
	if err := checkBelowDir(root, name); err != nil {
		return nil, nil, err
	}
	f, info, err := openRegular(root, name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return f, info, err
}

// OpenOwnFile opens name, a file cairn owns in the folder dir of
// machine-local state outside any base (a receipt snapshot), for reading:
// only as a regular file, never through a link in its place (an error
// satisfying errors.Is(err, ErrLink)). Links on the way to dir are the
// user's and followed. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func OpenOwnFile(dir, name string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	return openRegular(root, name)
}
