package artifacts

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
)

// ReadPrevious reads the manifest of the last build under root. It returns
// nil and no error when there is none; a manifest that cannot be decoded
// comes back with the reason, and the caller rebuilds everything. One of
// another format comes back with only its outputs, which are still this
// base's files: the build deletes those it no longer writes.
func ReadPrevious(root string) (*Manifest, error) {
	return readManifest(root, DecodeManifest)
}

// ReadPreviousHead is ReadPrevious without the input list (Inputs is nil):
// what a query needs to trust the artifacts, at a fraction of the decoding.
func ReadPreviousHead(root string) (*Manifest, error) {
	return readManifest(root, DecodeManifestHead)
}

func readManifest(root string, decode func([]byte) (Manifest, error)) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ManifestPath)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := decode(data)
	if err != nil {
		if m.Format != 0 && m.Format != FormatVersion {
			return &Manifest{Format: m.Format, Outputs: m.Outputs}, err
		}
		return nil, err
	}
	return &m, nil
}

// Intact returns a predicate that reports whether an output named by m is
// on disk under root with the size and hash m records. It is stat-first:
// an output whose size and modification time match the stat cache entry
// recorded when it was written, with the hash m names, is intact without
// being read; any other is read and hashed. A rules file is always read:
// its stamp covers its cairn section alone (see StampFile), so its size
// says nothing.
func Intact(root string, m *Manifest, cache StatLookup) func(path string) bool {
	return func(p string) bool {
		if m == nil {
			return false
		}
		stamp, ok := m.Output(p)
		if !ok {
			return false
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		if IsRulesFile(p) {
			data, err := os.ReadFile(full)
			return err == nil && StampFile(File{Path: p, Data: data}) == stamp
		}
		st, err := os.Stat(full)
		if err != nil || !st.Mode().IsRegular() || st.Size() != stamp.Bytes {
			return false
		}
		if c, ok := cache.Lookup(p); ok && c.Bytes == st.Size() && c.MtimeNS == st.ModTime().UnixNano() && c.XXHash == stamp.XXHash {
			return true
		}
		sum, err := hashFile(full)
		return err == nil && sum == stamp.XXHash
	}
}

// FirstChangedInput returns the first input m records that is no longer
// on disk under root with its recorded size and hash, and why; "" when
// every one is. Like Intact it is stat-first, and it walks nothing: a file
// added since the build is not seen, which is what a reader that must not
// walk the base accepts.
func FirstChangedInput(root string, m *Manifest, cache StatLookup) (path, why string) {
	for _, in := range m.Inputs {
		full := filepath.Join(root, filepath.FromSlash(in.Path))
		st, err := os.Stat(full)
		switch {
		case err != nil:
			return in.Path, "was removed since the build"
		case st.Size() != in.Bytes:
			return in.Path, "changed since the build"
		}
		if c, ok := cache.Lookup(in.Path); ok && c.Bytes == st.Size() && c.MtimeNS == st.ModTime().UnixNano() && c.XXHash == in.XXHash {
			continue
		}
		if sum, err := hashFile(full); err != nil || sum != in.XXHash {
			return in.Path, "changed since the build"
		}
	}
	return "", ""
}

// hashFile streams a file through xxhash without holding it in memory.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := xxhash.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return HashSum(h.Sum64()), nil
}

// StampOutputs records in cache the stat of every output m names, as it is
// on disk now, so that the next build's Intact needs no read. An output
// whose size differs from m's record is left out, and so is every rules
// file, which Intact always reads.
func StampOutputs(root string, m *Manifest, cache StatCache) {
	for _, o := range m.Outputs {
		if IsRulesFile(o.Path) {
			delete(cache, o.Path)
			continue
		}
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(o.Path)))
		if err != nil || st.Size() != o.Bytes {
			delete(cache, o.Path)
			continue
		}
		cache[o.Path] = StatEntry{Bytes: o.Bytes, MtimeNS: st.ModTime().UnixNano(), XXHash: o.XXHash}
	}
}
