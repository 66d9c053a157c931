package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LockLog takes the lock of the base's notes log, .cairn/log.lock (see
// LogLockPath): the lock every writer of the log holds while it reads the
// log, writes its new content and syncs it, and nothing longer.
//
// It is not the build lock on purpose. A build holds the build lock for
// as long as it runs, seconds on a large base, and a note that had to
// wait for it could be refused and lost; the log's own lock is held for
// one append, so a note waits only for other notes. A build reads the
// log without this lock: the log is replaced whole by a rename, so a
// build reads the old content or the new one, and a note that lands after
// the build read the log makes the log newer than the build, which the
// next query sees and the next build reads.
//
// Like LockFile it never waits: when another process holds the lock it
// returns a *FileBusyError naming that holder at once. It creates .cairn
// (0755) when missing and refuses a .cairn that is a link, as AcquireLock
// does. The lock file stays when the lock is released: removing it while
// another process waits to lock it would let a third lock a new file at
// the same name.
func LockLog(root, holder string) (*FileLock, error) {
	base, err := openArtifacts(root)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	return lockLogIn(base, holder)
}

// lockLogIn is LockLog on the opened base.
func lockLogIn(base *os.Root, holder string) (*FileLock, error) {
	name := filepath.Join(base.Name(), filepath.FromSlash(LogLockPath))
	if err := base.Mkdir(Dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cannot lock %s: %w", name, err)
	}
	d, err := openLockDir(base) // .cairn must be a real folder
	if err != nil {
		return nil, err
	}
	d.Close()
	f, err := openLockFile(base, LogLockPath)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", name, err)
	}
	return lockOpened(f, name, holder)
}

// openLockFile opens a lock file of .cairn (the log's lock, and on
// Windows the build lock's holder file) for writing, creating it,
// never through a link: a link there, or anything but a file, is removed
// first (the name is cairn's own, and removing a name never follows a
// link), and the file opened is checked to be the regular file a
// no-follow look at the name sees.
func openLockFile(base *os.Root, name string) (*os.File, error) {
	osName := filepath.FromSlash(name)
	if info, err := base.Lstat(osName); err == nil && !info.Mode().IsRegular() {
		if err := base.Remove(osName); err != nil {
			return nil, err
		}
	}
	f, err := base.OpenFile(osName, os.O_RDWR|os.O_CREATE|oNoFollow, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var info fs.FileInfo
		info, err = base.Lstat(osName)
		if err == nil && (!info.Mode().IsRegular() || !os.SameFile(info, st)) {
			err = errors.New(name + " was replaced while it was opened; run again")
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
