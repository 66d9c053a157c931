//go:build !unix

package artifacts

import (
	"fmt"
	"os"
	"runtime"
)

// oNoFollow is 0 where open has no such flag; tryLock fails there anyway.
const oNoFollow = 0

// tryLock fails on systems without flock: building without the lock could
// let two builds interleave their writes, so cairn refuses to build there
// rather than build unsafely. Queries take no lock and still work.
func tryLock(f *os.File) (bool, error) {
	return false, fmt.Errorf("the build lock is not supported on %s", runtime.GOOS)
}

// unlock has nothing to undo where tryLock never locks.
func unlock(f *os.File) error { return nil }
