package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"runtime/debug"
)

// Mapped reads previous artifacts for a build that splices them: on a
// Unix system each file is mapped read-only rather than copied into
// memory, so that a splice, which reads every table of the index to write
// it again, does not pay for a copy of each (on the 100k benchmark base,
// paired: a new day x0.90 CPU, a one-record edit x0.93). The bytes it
// gives are valid until Release, and are read safely only inside Guard:
// a mapped file that another program truncates faults when its lost
// pages are read, and Guard makes that fault an error. Nothing read
// through it may be kept past Release: a caller copies what it keeps.
// The zero value is ready to use; elsewhere, or for a file system that
// gives no *os.File, it reads the files.
type Mapped struct {
	maps [][]byte
}

// ErrMappedChanged says a mapped artifact lost bytes while it was read:
// another program truncated it.
var ErrMappedChanged = errors.New("artifacts: an artifact was cut short while it was read; build again")

// Read returns the bytes of path in fsys, mapped when it can be.
func (m *Mapped) Read(fsys fs.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if osf, ok := f.(*os.File); ok && canMap {
		st, err := osf.Stat()
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("artifacts: %s is not a regular file", path)
		}
		if st.Size() == 0 {
			return []byte{}, nil
		}
		if int64(int(st.Size())) != st.Size() {
			return nil, fmt.Errorf("artifacts: %s is too large to map here (%d bytes)", path, st.Size())
		}
		data, err := mapFile(osf, st.Size())
		if err != nil {
			return nil, fmt.Errorf("artifacts: cannot map %s: %w", path, err)
		}
		m.maps = append(m.maps, data)
		return data, nil
	}
	return fs.ReadFile(fsys, path)
}

// Release unmaps every file Read mapped.
func (m *Mapped) Release() {
	for _, b := range m.maps {
		unmapFile(b)
	}
	m.maps = nil
}

// Guard runs f with faults on the mapped bytes made an error
// (ErrMappedChanged) instead of a crash. A panic of f that is not such a
// fault goes on.
func (m *Mapped) Guard(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fault, ok := r.(interface{ Addr() uintptr }); ok && m.holds(fault.Addr()) {
			err = ErrMappedChanged
			return
		}
		panic(r)
	}()
	return f()
}

// holds reports whether addr lies in one of the mapped files.
func (m *Mapped) holds(addr uintptr) bool {
	for _, b := range m.maps {
		if start := reflect.ValueOf(b).Pointer(); addr >= start && addr < start+uintptr(len(b)) {
			return true
		}
	}
	return false
}
