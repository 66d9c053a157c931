package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// A Spool is where a build writes its large artifacts as it makes them,
// so that none of them is ever held whole in memory: each goes to a
// temporary file under the artifacts folder, hashed as it is written, and
// Sync renames it over its name, or removes it when the file there holds
// the same bytes already. A nil *Spool writes in memory instead (File.Data),
// as a --check or a test does, which must not write anything.
//
// The temporary files are named as every temporary file of cairn's is
// (TempPrefix), so those a killed build leaves are swept by the next
// build's Sync; Discard removes those of a build that is not synced. Only
// the holder of the base lock may spool.
type Spool struct {
	root   *os.Root
	mu     sync.Mutex
	staged map[string]bool // temporary files written and not yet committed or removed
}

// NewSpool makes a spool for the base at dir, creating its artifacts
// folder if need be. The caller holds the base lock, closes the spool
// when the build is synced, and discards it when it is not.
func NewSpool(dir string) (*Spool, error) {
	root, err := openBase(dir)
	if err != nil {
		return nil, err
	}
	if err := makeDirs(root, Dir); err != nil {
		root.Close()
		return nil, fmt.Errorf("artifacts: cannot create %s: %w", Dir, err)
	}
	return &Spool{root: root, staged: map[string]bool{}}, nil
}

// Discard removes every temporary file the spool wrote that Sync did not
// commit, and closes it. It is safe on a nil spool and after Close.
func (s *Spool) Discard() {
	if s == nil || s.root == nil {
		return
	}
	s.mu.Lock()
	for tmp := range s.staged {
		s.root.Remove(filepath.FromSlash(tmp))
	}
	clear(s.staged)
	s.mu.Unlock()
	s.Close()
}

// Close closes the spool, leaving its files where they are.
func (s *Spool) Close() {
	if s != nil && s.root != nil {
		s.root.Close()
		s.root = nil
	}
}

// spoolBuffer is how much of an artifact is held before it is written.
const spoolBuffer = 256 << 10

// Create starts the artifact at path (under the artifacts folder). On a
// nil spool it is written in memory, sizeHint bytes reserved for it.
func (s *Spool) Create(name string, sizeHint int) *Output {
	o := &Output{path: name}
	if s == nil {
		o.b = make([]byte, 0, sizeHint)
		return o
	}
	o.spool = s
	if !strings.HasPrefix(name, Dir+"/") {
		o.err = fmt.Errorf("artifacts: %s is not under %s; only artifacts are spooled", name, Dir)
		return o
	}
	o.hash, o.b = xxhash.New(), make([]byte, 0, spoolBuffer)
	tmp, f, err := s.stage(path.Dir(name), path.Base(name), os.O_WRONLY)
	if err != nil {
		o.err = fmt.Errorf("artifacts: cannot write %s: %w", name, err)
		return o
	}
	o.tmp, o.file = tmp, f
	return o
}

// stage creates a temporary file for base in dir, opened with access, and
// records it as the spool's, for Discard to remove.
func (s *Spool) stage(dir, base string, access int) (string, *os.File, error) {
	tmp, f, err := createTempMode(s.root, dir, base, access)
	if err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	s.staged[tmp] = true
	s.mu.Unlock()
	return tmp, f, nil
}

// An Output is one artifact being written, in memory or through a spool.
// Its writes never fail on their own: the first error is kept and Finish
// returns it. Written through a spool, it holds at most spoolBuffer bytes.
type Output struct {
	path    string
	b       []byte // the bytes not yet written out; in memory, all of them
	flushed int64  // bytes written out before b
	spool   *Spool // nil in memory
	tmp     string
	file    *os.File
	hash    *xxhash.Digest
	err     error
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	if o.spool != nil && len(p) >= spoolBuffer {
		// A large write goes to the file as it is, not through the buffer,
		// which would grow to hold it.
		o.flush()
		held := o.b
		o.b = p
		o.flush()
		o.b = held[:0]
		return len(p), nil
	}
	o.b = append(o.b, p...)
	o.full()
	return len(p), nil
}

// WriteString appends s.
func (o *Output) WriteString(s string) (int, error) {
	o.b = append(o.b, s...)
	o.full()
	return len(s), nil
}

// WriteByte appends c.
func (o *Output) WriteByte(c byte) error {
	o.b = append(o.b, c)
	o.full()
	return nil
}

// full writes the bytes held out when a spooled output holds enough.
func (o *Output) full() {
	if o.spool != nil && len(o.b) >= spoolBuffer {
		o.flush()
	}
}

// flush writes the bytes held to the temporary file and the hash.
func (o *Output) flush() {
	if o.err == nil && o.file != nil {
		o.hash.Write(o.b)
		if _, err := o.file.Write(o.b); err != nil {
			o.err = fmt.Errorf("artifacts: cannot write %s: %w", o.path, err)
		}
	}
	o.flushed += int64(len(o.b))
	o.b = o.b[:0]
}

// Len is how many bytes were written so far.
func (o *Output) Len() int64 { return o.flushed + int64(len(o.b)) }

// Finish ends the artifact and returns it as a File: with its bytes in
// memory, or staged in its temporary file, hashed, for Sync to commit.
// fail, when not nil, is an error of the caller's that makes the
// artifact void; it is returned, and the temporary file removed.
func (o *Output) Finish(fail error) (File, error) {
	if o.err == nil && fail != nil {
		o.err = fail
	}
	if o.spool == nil {
		if o.err != nil {
			return File{}, o.err
		}
		return File{Path: o.path, Data: o.b}, nil
	}
	o.flush()
	if o.file != nil {
		if err := o.file.Close(); o.err == nil && err != nil {
			o.err = fmt.Errorf("artifacts: cannot write %s: %w", o.path, err)
		}
		o.file = nil
	}
	o.b = nil
	if o.err != nil {
		o.spool.remove(o.tmp)
		return File{}, o.err
	}
	return File{Path: o.path, staged: &staged{spool: o.spool, tmp: o.tmp, bytes: o.flushed, xxhash: HashSum(o.hash.Sum64())}}, nil
}

// remove removes a temporary file the spool wrote.
func (s *Spool) remove(tmp string) {
	if tmp == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.staged[tmp] && s.root != nil {
		s.root.Remove(filepath.FromSlash(tmp))
	}
	delete(s.staged, tmp)
}

// staged is a File whose bytes are in a spool's temporary file.
type staged struct {
	spool  *Spool
	tmp    string // base-relative
	bytes  int64
	xxhash string
}

// Staged reports whether f's bytes are in a temporary file, not in Data.
func (f File) Staged() bool { return f.staged != nil }

// Size is how many bytes f holds.
func (f File) Size() int64 {
	if f.staged != nil {
		return f.staged.bytes
	}
	return int64(len(f.Data))
}

// commit puts f's temporary file in place of its name, as writeAtomic
// puts a file written whole (installTemp).
func (st *staged) commit(root *os.Root, name string) error {
	if err := runHook("write", name); err != nil {
		return fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	f, err := root.OpenFile(filepath.FromSlash(st.tmp), os.O_RDWR, 0)
	if err == nil {
		err = installTemp(root, f, st.tmp, name)
	}
	if err != nil {
		return fmt.Errorf("artifacts: cannot write %s: %w", name, err) // Discard removes the temporary file
	}
	st.spool.mu.Lock()
	delete(st.spool.staged, st.tmp)
	st.spool.mu.Unlock()
	return nil
}

// sameAs reports whether the file open at r holds what f's temporary
// file holds, reading both a chunk at a time.
func (st *staged) sameAs(root *os.Root, r io.Reader) (bool, error) {
	t, err := root.Open(filepath.FromSlash(st.tmp))
	if err != nil {
		return false, err
	}
	defer t.Close()
	a, b := make([]byte, compareChunk), make([]byte, compareChunk)
	for {
		n, errA := io.ReadFull(r, a)
		m, errB := io.ReadFull(t, b)
		if n != m || !bytes.Equal(a[:n], b[:m]) {
			return false, nil
		}
		endA, endB := errors.Is(errA, io.EOF) || errors.Is(errA, io.ErrUnexpectedEOF), errors.Is(errB, io.EOF) || errors.Is(errB, io.ErrUnexpectedEOF)
		switch {
		case errA != nil && !endA:
			return false, errA
		case errB != nil && !endB:
			return false, errB
		case endA || endB:
			return endA == endB, nil
		}
	}
}
