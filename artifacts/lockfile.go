package artifacts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

// FileLock is an exclusive lock on one lock file of machine-local state
// outside a base, such as a base's folder of receipt snapshots: the same
// fail-fast kernel lock as the build lock (flock on Unix, LockFileEx on
// Windows), taken on the file itself, which holds the holder's line while
// it is held.
type FileLock struct {
	f *os.File
}

// LockFile takes the lock on the file at path, creating it (0600) when
// missing. It never waits: when another process holds the lock it returns
// a *FileBusyError naming that holder at once. holder says what takes the
// lock, e.g. "cairn context --save-receipt". A link at path is refused
// rather than followed.
//
// The file stays when the lock is released: the kernel's lock, not the
// file's existence, is what excludes, so a file left behind is harmless.
func LockFile(path, holder string) (*FileLock, error) {
	// Where open cannot refuse a link (Windows), a look at the name does,
	// before the open, which would create what a link names, and after
	// it, before anything is written.
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("cannot lock %s: %w", path, ErrLink)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	if err := sameAsName(f, path); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	return lockOpened(f, path, holder)
}

// lockOpened takes the lock on f, the lock file opened at path, and
// writes the holder's line in it; f is closed unless the lock is taken.
func lockOpened(f *os.File, path, holder string) (*FileLock, error) {
	busy, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	if busy {
		b, _ := io.ReadAll(io.LimitReader(f, lockHolderMax))
		f.Close()
		line, _, _ := strings.Cut(string(b), "\n")
		return nil, &FileBusyError{Path: path, Holder: strings.TrimSpace(line)}
	}
	// Only the holder writes the line, after it holds the lock.
	line := holderLine(holder, time.Now())
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(line), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return &FileLock{f: f}, nil
}

// sameAsName checks that f, opened at path, is the regular file a
// no-follow look at path sees now.
func sameAsName(f *os.File, path string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return ErrLink
	case !info.Mode().IsRegular() || !os.SameFile(info, st):
		return errors.New("the file was replaced while it was opened")
	}
	return nil
}

// Release gives the lock up. Releasing a nil or released FileLock does
// nothing.
func (l *FileLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	// The line goes while the lock is still held, so nobody reads a
	// holder that has finished.
	return errors.Join(f.Truncate(0), unlock(f), f.Close())
}

// FileBusyError says a lock file is held by another process; it names the
// holder and exits 3.
type FileBusyError struct {
	Path   string // the lock file
	Holder string // the holder's line; "" if not yet written
}

func (e *FileBusyError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "holder not written yet"
	}
	return fmt.Sprintf("%s is held by another cairn (%s); wait for it to finish and run again. "+
		"The system frees the lock when that process exits, so the file itself is harmless", e.Path, holder)
}

// ExitCode is 3: busy (SPEC §2).
func (e *FileBusyError) ExitCode() int { return 3 }
