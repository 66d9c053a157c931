package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/cairn-kb/cairn/stages/lib/diag"
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

// bom is the UTF-8 byte order mark some editors write at a file's start.
const bom = "\xef\xbb\xbf"

// readFile reads path from fsys, refusing files over limit, and drops a
// leading byte order mark, so that every kind of input takes one the same
// way. Problems become diagnostics on path; ok is false when nothing
// usable was read.
func readFile(fsys fs.FS, path string, limit int64, ds *diag.List) (data []byte, ok bool) {
	data, ok = readFileRaw(fsys, path, limit, ds)
	return bytes.TrimPrefix(data, []byte(bom)), ok
}

// readFileRaw is readFile keeping the bytes as they are, for a reader
// whose offsets must be the file's (a record's span) or that writes the
// file back (a rules file).
func readFileRaw(fsys fs.FS, path string, limit int64, ds *diag.List) (data []byte, ok bool) {
	data, err := ReadCapped(fsys, path, limit)
	var big *tooLargeError
	switch {
	case errors.As(err, &big):
		ds.Errorf(path, 0, 0, "too-large", "%v", big)
		return nil, false
	case err != nil:
		ds.Errorf(path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
		return nil, false
	}
	return data, true
}

// tooLargeError is a file over the cap of its kind.
type tooLargeError struct {
	size, limit int64
}

func (e *tooLargeError) Error() string {
	if e.size < 0 {
		return fmt.Sprintf("the file is over the %d-byte cap for this kind of file; split it into smaller files", e.limit)
	}
	return fmt.Sprintf("the file is %d bytes, over the %d-byte cap for this kind of file; split it into smaller files", e.size, e.limit)
}

// errNotRegular is a path that is a folder, a FIFO, a device or a socket
// where a file is expected. Opening a FIFO would wait for a writer.
var errNotRegular = errors.New("not a regular file")

// ReadCapped reads path, stat first: a path that is not a regular file,
// or a file over limit, is refused before it is opened, so no byte of a
// gigabyte file is read to find it too large. The read itself stops one
// byte past limit, for a file that grew since its stat. Every reader of
// this stage goes through it, and so does the query stage when it shows
// a page whole. From a Dir, the stat is the open file's, taken after an
// open that cannot block (see Dir).
func ReadCapped(fsys fs.FS, path string, limit int64) ([]byte, error) {
	if d, ok := fsys.(*Dir); ok {
		if data, done, err := d.readCapped(path, limit); done {
			return data, err
		}
	}
	st, err := fs.Stat(fsys, path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", errNotRegular, describeMode(st.Mode()))}
	}
	if st.Size() > limit {
		return nil, &tooLargeError{size: st.Size(), limit: limit}
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readAll(io.LimitReader(f, limit+1), st.Size())
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &tooLargeError{size: -1, limit: limit}
	}
	return data, nil
}

// describeMode names what a path is when it is not a regular file.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// capOf is the size cap of a kind of input: what hashing checks before
// reading, with the cap its reader applies.
func capOf(k fileKind) int64 {
	switch k {
	case kindDocument, kindBodiesManifest:
		return MaxDocumentBytes
	case kindPage:
		return MaxPageBytes
	case kindBody:
		return MaxBodyBytes
	case kindContent, kindRules:
		return MaxContentBytes
	}
	return MaxGovernanceBytes // the configuration, voices, terms, the log, .gitignore
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
	return asString(data), ok
}

// readTextRaw is readFileRaw returning a string, as readText does.
func readTextRaw(fsys fs.FS, path string, limit int64, ds *diag.List) (string, bool) {
	data, ok := readFileRaw(fsys, path, limit, ds)
	return asString(data), ok
}

// asString is data as a string. A copy: sharing the bytes through unsafe
// measured no faster (a cold build of the 100k benchmark base, paired: 1.02x
// CPU, the same peak memory).
func asString(data []byte) string { return string(data) }
