//go:build unix

package artifacts

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// oNoFollow makes an open refuse a link at the name.
const oNoFollow = syscall.O_NOFOLLOW

// holdLock takes the flock of .cairn itself, so that a finished build
// leaves no lock file behind. busy is true when another build holds it.
func holdLock(base *os.Root) (f *os.File, busy bool, err error) {
	d, err := openLockDir(base)
	if err != nil {
		return nil, false, err
	}
	busy, err = tryLock(d)
	if err != nil || busy {
		d.Close()
		if err != nil {
			err = lockError(base, err)
		}
		return nil, busy, err
	}
	return d, false, nil
}

// putHolder puts the holder line in place by renaming a fresh file over
// the holder file, so that a link left there is replaced, never written
// through, and a reader sees the whole line or none. It is not fsynced:
// the line only matters while this process lives.
func putHolder(base *os.Root, _ *os.File, line string) error {
	tmp, f, err := createTemp(base, Dir, path.Base(LockPath))
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = base.Rename(filepath.FromSlash(tmp), filepath.FromSlash(LockPath))
	}
	if err != nil {
		base.Remove(filepath.FromSlash(tmp))
	}
	return err
}

// dropLock removes the holder file and gives up the flock of .cairn, open
// as d.
func dropLock(base *os.Root, d *os.File) error {
	// The holder file goes while the lock is still held, so nobody reads
	// a holder that has finished. Removing a name never follows a link.
	errRemove := base.Remove(filepath.FromSlash(LockPath))
	if errors.Is(errRemove, fs.ErrNotExist) {
		errRemove = nil
	}
	// Closing alone would release the lock too; unlocking first makes the
	// release explicit and independent of descriptors a child may share.
	return errors.Join(errRemove, unlock(d), d.Close())
}

// tryLock takes an exclusive flock on f without waiting. flock belongs to
// the open file description, so a second open of the same file, even in
// this process, is refused too; and the kernel drops it when the process
// dies. busy is true when another description holds it.
func tryLock(f *os.File) (busy bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lockErr error
	err = rc.Control(func(fd uintptr) {
		for {
			lockErr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if lockErr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil {
		return false, err
	}
	if errors.Is(lockErr, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, lockErr
}

// unlock drops the flock taken by tryLock.
func unlock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var unlockErr error
	if err := rc.Control(func(fd uintptr) {
		unlockErr = syscall.Flock(int(fd), syscall.LOCK_UN)
	}); err != nil {
		return err
	}
	return unlockErr
}
