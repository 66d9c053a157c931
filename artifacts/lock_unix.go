//go:build unix

package artifacts

import (
	"errors"
	"os"
	"syscall"
)

// oNoFollow makes an open refuse a link at the name.
const oNoFollow = syscall.O_NOFOLLOW

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
