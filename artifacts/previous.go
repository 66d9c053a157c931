package artifacts

import (
	"errors"
	"fmt"
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
// base's files: the build deletes those it no longer writes. A .cairn that
// is a symbolic link is a *LinkError, and nothing is read through it.
func ReadPrevious(root string) (*Manifest, error) {
	f, st, err := openManifest(root)
	if f == nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("artifacts: cannot read %s: %w", ManifestPath, err)
	}
	return decodePrevious(data, DecodeManifest)
}

// openManifest opens the manifest under root, refusing a linked .cairn
// and a manifest that is a link (the next build replaces it). It returns
// no file and no error when there is no manifest.
func openManifest(root string) (*os.File, fs.FileInfo, error) {
	base, err := openArtifacts(root)
	if err != nil {
		return nil, nil, err
	}
	defer base.Close()
	f, st, err := openRegular(base, ManifestPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("artifacts: cannot read %s: %w", ManifestPath, err)
	}
	return f, st, nil
}

// ReadPreviousHead is ReadPrevious without the input list (Inputs is nil):
// what a query needs to trust the artifacts. The list comes last in a
// manifest of this format, so only the bytes before it are read (and the
// file's last bytes, which show it is whole); any other manifest is read
// whole and decoded as DecodeManifestHead does.
func ReadPreviousHead(root string) (*Manifest, error) {
	f, st, err := openManifest(root)
	if f == nil {
		return nil, err
	}
	defer f.Close()
	if m, ok := readHead(f, st.Size()); ok {
		return m, nil
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return decodePrevious(data, DecodeManifestHead)
}

// headProbe is how much of a manifest ReadPreviousHead reads first: the
// head of a large base's manifest (its outputs, with a rules file per
// content folder, and stages) takes a few kilobytes.
const headProbe = 16 << 10

// inputsTail is how an encoded manifest ends: its input list, then the
// object, closed.
const inputsTail = "  ]\n}\n"

// readHead reads the head of a manifest of this format whose input list
// comes last, after its outputs and stages; ok is false for any other,
// which the caller reads whole.
func readHead(f *os.File, size int64) (*Manifest, bool) {
	if size < int64(len(inputsTail)) {
		return nil, false
	}
	tail := make([]byte, len(inputsTail))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil || string(tail) != inputsTail {
		return nil, false
	}
	for probe := int64(headProbe); ; probe *= 4 {
		buf := make([]byte, min(probe, size))
		if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
			return nil, false
		}
		if head, found := headBeforeInputs(buf); found {
			m, err := DecodeManifestHead(head)
			if err != nil || m.Format != FormatVersion {
				return nil, false
			}
			return &m, true
		}
		if int64(len(buf)) == size {
			return nil, false
		}
	}
}

// headBeforeInputs finds the top-level "inputs" key of a manifest that
// names its outputs and stages before it, and returns the manifest with
// the input list's value replaced by null and the object closed there.
func headBeforeInputs(data []byte) (head []byte, found bool) {
	var outputs, stages bool
	eachTopKey(data, func(key string, colon int) bool {
		switch key {
		case `"outputs"`:
			outputs = true
		case `"stages"`:
			stages = true
		case `"inputs"`:
			if outputs && stages {
				head, found = append(data[:colon+1:colon+1], " null\n}\n"...), true
			}
			return false
		}
		return true
	})
	return head, found
}

// decodePrevious decodes a previous manifest; one of another format comes
// back with its outputs and the error.
func decodePrevious(data []byte, decode func([]byte) (Manifest, error)) (*Manifest, error) {
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
// says nothing. An output is only ever a regular file inside the base: a
// link in its place, or a linked .cairn, is not read and not intact.
func Intact(root string, m *Manifest, cache StatLookup) func(path string) bool {
	return func(p string) bool {
		if m == nil {
			return false
		}
		stamp, ok := m.Output(p)
		if !ok {
			return false
		}
		// The base is opened for each output rather than once: the
		// predicate may outlive any point where a root could be closed.
		base, err := openArtifacts(root)
		if err != nil {
			return false
		}
		defer base.Close()
		if checkBelowDir(base, p) != nil {
			return false
		}
		if IsRulesFile(p) {
			f, _, err := openRegular(base, p)
			if err != nil {
				return false
			}
			defer f.Close()
			data, err := io.ReadAll(f)
			return err == nil && StampFile(File{Path: p, Data: data}) == stamp
		}
		st, err := base.Lstat(filepath.FromSlash(p))
		if err != nil || !st.Mode().IsRegular() || st.Size() != stamp.Bytes {
			return false
		}
		if c, ok := cache.Lookup(p); ok && c.VouchesFor(st) && c.XXHash == stamp.XXHash {
			return true
		}
		f, _, err := openRegular(base, p)
		if err != nil {
			return false
		}
		defer f.Close()
		sum, err := hashReader(f)
		return err == nil && sum == stamp.XXHash
	}
}

// FirstChangedInput returns the first input m records that is no longer
// on disk under root with its recorded size and hash, and why; "" when
// every one is. Like Intact it is stat-first, and it walks nothing: a file
// added since the build is not seen, which is what a reader that must not
// walk the base accepts.
//
// Inputs are read through the base, as the build reads them: a link that
// stays inside it is followed, one that leaves it is as good as removed.
func FirstChangedInput(root string, m *Manifest, cache StatLookup) (path, why string) {
	base, err := openBase(root)
	if err != nil {
		if len(m.Inputs) == 0 {
			return "", ""
		}
		return m.Inputs[0].Path, "cannot be read: " + err.Error()
	}
	defer base.Close()
	for _, in := range m.Inputs {
		name := filepath.FromSlash(in.Path)
		st, err := base.Stat(name)
		switch {
		case err != nil:
			return in.Path, "was removed since the build"
		case st.Size() != in.Bytes:
			return in.Path, "changed since the build"
		}
		if c, ok := cache.Lookup(in.Path); ok && c.VouchesFor(st) && c.XXHash == in.XXHash {
			continue
		}
		if sum, err := hashFile(base, name); err != nil || sum != in.XXHash {
			return in.Path, "changed since the build"
		}
	}
	return "", ""
}

// hashFile streams a file of the base through xxhash without holding it in
// memory.
func hashFile(base *os.Root, name string) (string, error) {
	f, err := base.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return hashReader(f)
}

// hashReader streams r through xxhash.
func hashReader(r io.Reader) (string, error) {
	h := xxhash.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return HashSum(h.Sum64()), nil
}

// StampOutputs records in cache the stat of every output m names, as it is
// on disk now, so that the next build's Intact needs no read. An output
// whose size differs from m's record is left out, and so is every rules
// file, which Intact always reads.
func StampOutputs(root string, m *Manifest, cache StatCache) {
	base, err := openArtifacts(root)
	if err != nil {
		for _, o := range m.Outputs {
			delete(cache, o.Path)
		}
		return
	}
	defer base.Close()
	for _, o := range m.Outputs {
		if IsRulesFile(o.Path) {
			delete(cache, o.Path)
			continue
		}
		st, err := base.Lstat(filepath.FromSlash(o.Path))
		if err != nil || !st.Mode().IsRegular() || st.Size() != o.Bytes {
			delete(cache, o.Path)
			continue
		}
		cache[o.Path] = StatEntry{Bytes: o.Bytes, MtimeNS: st.ModTime().UnixNano(), CtimeNS: ChangeNS(st), XXHash: o.XXHash}
	}
}
