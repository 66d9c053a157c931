package artifacts

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sync"
)

// A Scratch is a file a build writes its intermediate runs to and reads
// back before it ends (the inverted runs of a large corpus, merged into
// postings.tsv), so that they are not held in memory meanwhile. It lives
// under the artifacts folder with a temporary file's name, so a killed
// build's is swept by the next Sync as its other temporary files are
// (see Spool); Remove deletes it, and so does the spool's Discard. On a
// nil spool it is a buffer in memory, as everything a --check builds is.
//
// Appends are made whole, one at a time, from any goroutine; each returns
// the section it wrote, which Section reads back once writing is done.
type Scratch struct {
	spool *Spool
	name  string // what it is for, in errors
	mu    sync.Mutex
	tmp   string   // base-relative; "" in memory
	file  *os.File // nil in memory
	mem   []byte   // in memory: everything appended
	size  int64
	err   error
}

// A ScratchSection is one append's bytes in a Scratch.
type ScratchSection struct {
	Offset, Length int64
}

// Scratch makes a scratch file for name, what it holds (an artifact's
// name: its temporary file is named after it).
func (s *Spool) Scratch(name string) *Scratch {
	sc := &Scratch{spool: s, name: name}
	if s == nil {
		return sc
	}
	tmp, f, err := s.stage(Dir, path.Base(name), os.O_RDWR)
	if err != nil {
		sc.err = fmt.Errorf("artifacts: cannot write the scratch file of %s: %w", name, err)
		return sc
	}
	sc.tmp, sc.file = tmp, f
	return sc
}

// Append writes p at the end of the scratch file and returns where it is.
// After a failed write every later one fails too, with the first error.
func (sc *Scratch) Append(p []byte) (ScratchSection, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.err != nil {
		return ScratchSection{}, sc.err
	}
	at := ScratchSection{Offset: sc.size, Length: int64(len(p))}
	if sc.file == nil {
		sc.mem = append(sc.mem, p...)
	} else if _, err := sc.file.Write(p); err != nil {
		sc.err = fmt.Errorf("artifacts: cannot write the scratch file of %s: %w", sc.name, err)
		return ScratchSection{}, sc.err
	}
	sc.size += int64(len(p))
	return at, nil
}

// Section reads back what an append wrote. Reads of sections may run
// side by side, but not beside an Append.
func (sc *Scratch) Section(at ScratchSection) io.Reader {
	if sc.file == nil {
		return bytes.NewReader(sc.mem[at.Offset : at.Offset+at.Length])
	}
	return &scratchReader{sc: sc, r: io.NewSectionReader(sc.file, at.Offset, at.Length)}
}

// scratchReader names the scratch file in a read's error.
type scratchReader struct {
	sc *Scratch
	r  *io.SectionReader
}

func (r *scratchReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("artifacts: cannot read back the scratch file of %s: %w", r.sc.name, err)
	}
	return n, err
}

// Size is how many bytes were appended.
func (sc *Scratch) Size() int64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.size
}

// Remove deletes the scratch file; its sections can no longer be read.
// It is safe to call more than once.
func (sc *Scratch) Remove() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.mem = nil
	if sc.file == nil {
		return
	}
	sc.file.Close()
	sc.file = nil
	sc.spool.remove(sc.tmp)
	if sc.err == nil {
		sc.err = fmt.Errorf("artifacts: the scratch file of %s is removed", sc.name)
	}
}
