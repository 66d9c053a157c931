package artifacts

import "fmt"

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
	return writeAtomic(root, name, data)
}
