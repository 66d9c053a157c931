package load

import (
	"errors"
	"io"
	"io/fs"
	"unsafe"

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

// MaxValueBytes caps one field value of a record, or a cached body, as
// ranking keeps it: a longer value is cut at a character boundary at the
// cap for the index, the excerpts and the title cell, with a warning,
// while the record stays whole in its document (read shows it as it is).
// Every copy the projection makes of a value (its terms, its digest, its
// row) then costs at most this much: a 50 MB title cost the build about
// 750 MB of memory before.
const MaxValueBytes = 1 << 20

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
	data, err = readAll(io.LimitReader(f, limit+1), size)
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

// readAll reads r to its end into a buffer of size+1 bytes, size being
// what stat said (one byte more shows a file that grew since), growing it
// only when the file did. bytes.Buffer.ReadFrom and io.Copy would read
// the same bytes through a second buffer or a copy to a larger one.
func readAll(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
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

// readText is readFile returning a string. The bytes read are never
// changed after, so the string shares them, as strings.Builder's own
// String does: one allocation of the file's stat size.
func readText(fsys fs.FS, path string, limit int64, ds *diag.List) (string, bool) {
	data, ok := readFile(fsys, path, limit, ds)
	if !ok || len(data) == 0 {
		return "", ok
	}
	return unsafe.String(&data[0], len(data)), true
}
