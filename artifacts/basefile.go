package artifacts

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// WriteBaseFile replaces one file of the base itself, not an artifact, the
// way Sync writes artifacts: through a temporary file in the same folder,
// fsynced and renamed, inside the base. `cairn note` appends to the notes
// log with it. The caller holds the base lock, so that two writers never
// interleave.
func WriteBaseFile(dir, name string, data []byte) error {
	if err := checkPath(name); err != nil {
		return fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	root, err := openBase(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	// Renaming over a link would replace the link with a file and leave
	// what it points to behind: refuse, and say what to do.
	if st, err := root.Lstat(filepath.FromSlash(name)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return &LinkError{Path: name, Fix: "cairn writes it only as a regular file, never through a link: replace the link with the file it points to"}
	}
	return writeAtomic(root, name, data)
}
