//go:build !unix && !windows

package artifacts

import (
	"fmt"
	"os"
	"runtime"
)

// oNoFollow is 0 where open has no such flag; tryLock fails there anyway.
const oNoFollow = 0

// holdLock fails on systems with neither flock nor LockFileEx: building
// without the lock could let two builds interleave their writes, so cairn
// refuses to build there rather than build unsafely. Queries take no lock
// and still work.
func holdLock(base *os.Root) (*os.File, bool, error) {
	_, err := tryLock(nil)
	return nil, false, lockError(base, err)
}

// putHolder is never reached where holdLock fails.
func putHolder(*os.Root, *os.File, string) error { return nil }

// dropLock is never reached where holdLock fails.
func dropLock(*os.Root, *os.File) error { return nil }

// tryLock fails: see holdLock.
func tryLock(*os.File) (bool, error) {
	return false, fmt.Errorf("the build lock is not supported on %s", runtime.GOOS)
}

// unlock has nothing to undo where tryLock never locks.
func unlock(*os.File) error { return nil }
