package load

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/cairn-kb/cairn/stages/diag"
)

// Size caps per kind of input. A file over its cap is an error, never a
// silent truncation: the message names the cap so the user can split it.
const (
	MaxDocumentBytes   = 256 << 20 // a record document
	MaxPageBytes       = 8 << 20   // a wiki, project or task page
	MaxContentBytes    = 8 << 20   // a content file
	MaxGovernanceBytes = 8 << 20   // cairn.yaml, a voice, terms.yaml, log.jsonl
	MaxBodyBytes       = 32 << 20  // a cached body
)

// readFile reads path from fsys, refusing files over limit. Problems become
// diagnostics on path; ok is false when nothing usable was read.
func readFile(fsys fs.FS, path string, limit int64, ds *diag.List) (data []byte, ok bool) {
	f, err := fsys.Open(path)
	if err != nil {
		ds.Errorf(path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
		return nil, false
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		if st.Size() > limit {
			ds.Errorf(path, 0, 0, "too-large", "the file is %d bytes, over the %d-byte cap for this kind of file; split it into smaller files", st.Size(), limit)
			return nil, false
		}
		size = st.Size()
	}
	// Read into a buffer of the stat size (plus one byte to see growth), so
	// a large document is not copied through a growing buffer.
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	_, err = buf.ReadFrom(io.LimitReader(f, limit+1))
	data = buf.Bytes()
	if err != nil {
		ds.Errorf(path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
		return nil, false
	}
	if int64(len(data)) > limit {
		ds.Errorf(path, 0, 0, "too-large", "the file is over the %d-byte cap for this kind of file; split it into smaller files", limit)
		return nil, false
	}
	return data, true
}

// unwrapPath drops the *fs.PathError wrapper, whose path would repeat the
// file name the diagnostic already carries.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readText reads a text file into a string with one allocation of its
// stat size, refusing files over limit like readFile.
func readText(fsys fs.FS, path string, limit int64, ds *diag.List) (string, bool) {
	f, err := fsys.Open(path)
	if err != nil {
		ds.Errorf(path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
		return "", false
	}
	defer f.Close()
	var b strings.Builder
	if st, err := f.Stat(); err == nil {
		if st.Size() > limit {
			ds.Errorf(path, 0, 0, "too-large", "the file is %d bytes, over the %d-byte cap for this kind of file; split it into smaller files", st.Size(), limit)
			return "", false
		}
		b.Grow(int(st.Size()))
	}
	if _, err := io.Copy(&b, io.LimitReader(f, limit+1)); err != nil {
		ds.Errorf(path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
		return "", false
	}
	if int64(b.Len()) > limit {
		ds.Errorf(path, 0, 0, "too-large", "the file is over the %d-byte cap for this kind of file; split it into smaller files", limit)
		return "", false
	}
	return b.String(), true
}
