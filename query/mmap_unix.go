//go:build unix

package query

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. An empty file has no
// mapping (nil).
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil // read it with positioned reads instead
	}
	return data, nil
}

func unmapFile(data []byte) error { return syscall.Munmap(data) }
