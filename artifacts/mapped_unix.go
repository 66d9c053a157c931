//go:build unix

package artifacts

import (
	"os"
	"syscall"
)

// canMap says Mapped maps files here.
const canMap = true

// mapFile maps the first n bytes of f read-only and shared: the page
// cache's own pages, no copy.
func mapFile(f *os.File, n int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile undoes mapFile.
func unmapFile(b []byte) { syscall.Munmap(b) }
