package artifacts

import (
	"fmt"
	"io"
	"os"
	"path"
)

// Files of the base itself, not artifacts, that cairn writes: the notes
// log (`cairn note`), collected record documents (`cairn collect`) and
// imported governance files (`cairn import kapi`). Each is reached only
// through real folders: a link on the way, even one that stays inside the
// base, is refused and named, because the build does not follow linked
// folders either, so a file written through one would never be read; and
// a link at the file itself is refused, because renaming over it would
// replace the user's link and leave what it points to behind.

// baseLinkFix is what to do about a link on the way to a file of the base.
const baseLinkFix = "cairn writes the files of a base only in real folders and never through a link: replace the link with the folder or file it points to"

// WriteBaseFile replaces one file of the base itself, not an artifact, the
// way Sync writes artifacts: through a temporary file in the same folder,
// fsynced and renamed, inside the base. Temporary files that a killed
// write of the same file left are removed first. The caller holds the
// lock of the file's writers (the base lock, or LockLog's for the notes
// log), so that two writers never interleave and no temporary file
// removed belongs to a write under way.
func WriteBaseFile(dir, name string, data []byte) error {
	root, err := openBaseFile(dir, name, "write")
	if err != nil {
		return err
	}
	defer root.Close()
	target := path.Base(name)
	if err := sweepTemps(root, path.Dir(name), func(t string) bool { return t == target }); err != nil {
		return err
	}
	return writeAtomic(root, name, data)
}

// ReadBaseFile reads one file of the base that a writer is about to
// replace, the way WriteBaseFile would write it: a link on the way or at
// the file is a *LinkError, anything but a regular file is refused, and a
// missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadBaseFile(dir, name string) ([]byte, error) {
	f, err := OpenBaseFile(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot read %s: %w", name, err)
	}
	return data, nil
}

// OpenBaseFile opens for reading one file of the base as ReadBaseFile
// reads it. The caller closes the file.
func OpenBaseFile(dir, name string) (*os.File, error) {
	root, err := openBaseFile(dir, name, "read")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, _, err := openRegular(root, name)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot read %s: %w", name, err)
	}
	return f, nil
}

// openBaseFile opens the base at dir for an access (its verb) to the
// file name, after checking the path and that no link lies on the way to
// it. The caller closes the root.
func openBaseFile(dir, name, verb string) (*os.Root, error) {
	if err := checkPath(name); err != nil {
		return nil, fmt.Errorf("artifacts: cannot %s %s: %w", verb, name, err)
	}
	root, err := openBase(dir)
	if err != nil {
		return nil, err
	}
	link, err := linkOnWay(root, name)
	if err == nil && link != "" {
		err = &LinkError{Path: link, Fix: baseLinkFix}
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}
