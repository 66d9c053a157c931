package load

import (
	"io/fs"
	"os"
)

// Dir is a base folder opened for reading: an fs.FS confined to the
// folder as os.Root's is, which reads a whole file with one confined open
// where the system has one. os.Root opens a path one element at a time,
// an openat and a close per folder on the way, then prepares the file for
// its poller: on a base of thousands of small pages that was a tenth of a
// build. Where the fast open refuses a path or fails, the read goes the
// os.Root way, so what is refused and how the error reads stay os.Root's.
type Dir struct {
	rootFS
	root *os.Root
	fast *beneath // nil where the system has no confined open
}

// rootFS is what os.Root.FS returns.
type rootFS interface {
	fs.StatFS
	fs.ReadDirFS
	fs.ReadFileFS
	fs.ReadLinkFS
}

// OpenDir opens the folder path for reading. Close releases it.
func OpenDir(path string) (*Dir, error) {
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{rootFS: root.FS().(rootFS), root: root, fast: openBeneath(path)}, nil
}

// Close closes the folder.
func (d *Dir) Close() error {
	d.fast.close()
	return d.root.Close()
}

// readCapped is ReadCapped's fast path; done is false when the caller must
// read the os.Root way.
func (d *Dir) readCapped(name string, limit int64) (data []byte, done bool, err error) {
	if d.fast == nil || !fs.ValidPath(name) {
		return nil, false, nil
	}
	return d.fast.readCapped(name, limit)
}
