//go:build windows

package artifacts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// oNoFollow is 0: Windows has no such open flag. LockFile's file is
// machine-local state in the user's own folder, and the build lock checks
// its holder file by hand (openHolderFile).
const oNoFollow = 0

// lockOffset is where the one locked byte lies. A Windows byte-range lock
// is mandatory, so it lies far past the holder line, which others must
// still read, and within 32 bits, which every file system takes.
const lockOffset = 1 << 30

// holdLock takes the lock on the holder file itself: a Windows lock needs
// a file, and .cairn is a folder. busy is true when another build holds
// it.
func holdLock(base *os.Root) (f *os.File, busy bool, err error) {
	// .cairn is checked to be a real folder, as on Unix, though not
	// locked.
	d, err := openLockDir(base)
	if err != nil {
		return nil, false, err
	}
	d.Close()
	f, err = openLockFile(base, LockPath)
	if err != nil {
		return nil, false, lockError(base, err)
	}
	busy, err = tryLock(f)
	if err != nil || busy {
		f.Close()
		if err != nil {
			err = lockError(base, err)
		}
		return nil, busy, err
	}
	return f, false, nil
}

// putHolder writes the line into the holder file f, which this process
// has locked; a line a crashed holder left is replaced.
func putHolder(_ *os.Root, f *os.File, line string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(line), 0)
	return err
}

// dropLock empties the holder file f while it is still locked, so nobody
// reads a holder that has finished, unlocks and closes it, and then
// removes it. Windows removes no file another process has open (Go opens
// files without FILE_SHARE_DELETE): when the next build or a reader of its
// line has it open already, the file stays, and it is harmless.
func dropLock(base *os.Root, f *os.File) error {
	err := errors.Join(f.Truncate(0), unlock(f), f.Close())
	errRemove := base.Remove(filepath.FromSlash(LockPath))
	if errRemove != nil && !errors.Is(errRemove, fs.ErrNotExist) &&
		!errors.Is(errRemove, windows.ERROR_SHARING_VIOLATION) && !errors.Is(errRemove, windows.ERROR_ACCESS_DENIED) {
		err = errors.Join(err, errRemove)
	}
	return err
}

// tryLock takes an exclusive lock on f's byte at lockOffset without
// waiting. The lock belongs to the handle, so a second open of the same
// file, even in this process, is refused too; and Windows drops it when
// the process dies. busy is true when another handle holds it.
func tryLock(f *os.File) (busy bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lockErr error
	err = rc.Control(func(h uintptr) {
		ol := windows.Overlapped{Offset: lockOffset}
		lockErr = windows.LockFileEx(windows.Handle(h), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	})
	if err != nil {
		return false, err
	}
	if errors.Is(lockErr, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, lockErr
}

// unlock drops the lock taken by tryLock.
func unlock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var unlockErr error
	if err := rc.Control(func(h uintptr) {
		ol := windows.Overlapped{Offset: lockOffset}
		unlockErr = windows.UnlockFileEx(windows.Handle(h), 0, 1, 0, &ol)
	}); err != nil {
		return err
	}
	return unlockErr
}
