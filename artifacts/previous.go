package artifacts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadPrevious reads the manifest of the last build under root. It returns
// nil and no error when there is none; a manifest that cannot be decoded
// comes back as nil with the reason, and the caller rebuilds everything.
func ReadPrevious(root string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ManifestPath)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifest(data)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// Intact returns a predicate that reports whether an output named by m is
// on disk under root with the size and hash m records. Size is checked
// first, so only outputs of the right size are read.
func Intact(root string, m *Manifest) func(path string) bool {
	return func(p string) bool {
		if m == nil {
			return false
		}
		stamp, ok := m.Output(p)
		if !ok {
			return false
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		st, err := os.Stat(full)
		if err != nil || !st.Mode().IsRegular() || st.Size() != stamp.Bytes {
			return false
		}
		data, err := os.ReadFile(full)
		return err == nil && Hash(data) == stamp.XXHash
	}
}
