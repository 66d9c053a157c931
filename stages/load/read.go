package load

import (
	"errors"
	"io"
	"io/fs"

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
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		ds.Errorf(path, 0, 0, "too-large", "the file is %d bytes, over the %d-byte cap for this kind of file; split it into smaller files", st.Size(), limit)
		return nil, false
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
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
