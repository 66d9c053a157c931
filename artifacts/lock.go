package artifacts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Lock holds the base's exclusive build lock: an advisory lock on the
// <root>/.cairn folder itself, with the holder described in .cairn/lock
// while it holds it. Only builds take it; readers never do, because the
// manifest-last write order in Sync already keeps them safe.
//
// Locking the folder rather than the description file means a finished
// build leaves no lock file and touches no file's mtime, so a no-op build
// rewrites nothing and two checkouts hold byte-identical .cairn trees.
//
// On Windows, whose byte-range locks need a file, the lock is on the holder
// file itself, well past the line (a Windows lock also bars reading the
// bytes it covers), and the file is removed once the lock is given up; the
// contract is the same.
type Lock struct {
	base   *os.Root // the base, through which the holder file is removed
	f      *os.File // what holds the kernel's lock: .cairn, or the holder file on Windows
	holder string   // the holder file (OS path), for messages
}

// lockHolderMax bounds how much of a lock file is read to name its holder;
// the line is short, and a damaged file must not be read whole.
const lockHolderMax = 4 << 10

// AcquireLock takes the build lock of the base at root, creating .cairn
// (0755) when missing. It never waits: when another process holds the lock
// it returns a *BusyError naming that holder at once. holder says what
// takes the lock, e.g. "cairn build". A .cairn that is a symbolic link is
// refused with a *LinkError: the lock, and the build after it, would
// happen wherever the link points.
//
// The lock is the kernel's (flock on Unix, LockFileEx on Windows), not a
// file's existence, so it is released when its process exits, however it
// exits. A holder file left behind by a crashed build is harmless: the
// next build replaces it.
func AcquireLock(root string, holder string) (*Lock, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %s is not a folder", root)
	}
	base, err := openArtifacts(root)
	if err != nil {
		return nil, err
	}
	l, err := lockIn(base, holder)
	if err != nil {
		base.Close()
		return nil, err
	}
	return l, nil
}

// lockIn takes the lock of the opened base.
func lockIn(base *os.Root, holder string) (*Lock, error) {
	// Only .cairn is created, never the base itself: a mistyped base path
	// fails in AcquireLock rather than grow a new folder tree.
	if err := base.Mkdir(Dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	name := filepath.Join(base.Name(), filepath.FromSlash(LockPath))
	f, busy, err := holdLock(base)
	if err != nil {
		return nil, err
	}
	if busy {
		return nil, &BusyError{Path: name, Holder: readHolder(base)}
	}
	// Only the holder writes the line, after it holds the lock, so two
	// builds never write it at once.
	if err := putHolder(base, f, holderLine(holder, time.Now())); err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	return &Lock{base: base, f: f, holder: name}, nil
}

// lockError says the lock of the base could not be taken.
func lockError(base *os.Root, err error) error {
	return fmt.Errorf("artifacts: cannot lock %s: %w", filepath.Join(base.Name(), Dir), err)
}

// openLockDir opens .cairn for locking, after checkDir found it no link:
// the folder opened must be the one a no-follow look at the name sees, so
// that a link put in its place meanwhile is refused too.
func openLockDir(base *os.Root) (*os.File, error) {
	dir := filepath.Join(base.Name(), Dir)
	d, err := base.Open(Dir)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	st, err := d.Stat()
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	info, err := base.Lstat(Dir)
	switch {
	case err != nil:
		d.Close()
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	case info.Mode()&fs.ModeSymlink != 0 || !os.SameFile(info, st):
		d.Close()
		return nil, dirLinkError(base)
	case !st.IsDir():
		d.Close()
		return nil, fmt.Errorf("artifacts: cannot lock the base: %s is a file where cairn keeps its artifacts folder; move it away and run again", dir)
	}
	return d, nil
}

// holderLine describes the process taking the lock, for the BusyError of
// whoever comes next: pid=<pid> host=<hostname> cmd=<holder> since=<RFC3339 UTC>.
func holderLine(holder string, now time.Time) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	// The line must stay one line: newlines in holder would split it.
	holder = strings.Join(strings.Fields(holder), " ")
	return fmt.Sprintf("pid=%d host=%s cmd=%s since=%s\n",
		os.Getpid(), host, holder, now.UTC().Format(time.RFC3339))
}

// readHolder returns the first line of the holder file, or "" when the
// holder has not written it yet. A link there is not read: what it points
// to is no holder's line, and may be a file the error must not show.
func readHolder(base *os.Root) string {
	f, _, err := openRegular(base, LockPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, lockHolderMax))
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// Release removes the holder file and gives the lock up. Releasing a nil
// or released Lock does nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	err := dropLock(l.base, f)
	l.base.Close()
	if err != nil {
		return fmt.Errorf("artifacts: cannot release the lock on %s: %w", filepath.Dir(l.holder), err)
	}
	return nil
}

// BusyError says the lock is held; it names the holder and exits 3.
type BusyError struct {
	Path   string // the lock file (OS path)
	Holder string // the holder's line from the lock file; "" if not yet written
}

// Error says who holds the lock and what to do. Removing the file is not
// the fix for a dead holder (the kernel has already freed its lock), so the
// message says a leftover file is harmless and asks for removal only when
// the holder is gone and the error persists.
func (e *BusyError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "holder not written yet"
	}
	return fmt.Sprintf("the base is busy: another cairn is building it (%s); wait for it to finish and run again. "+
		"The system frees the lock when that process exits, so a leftover %s is harmless; "+
		"remove it only if that process is gone and this message persists", holder, e.Path)
}

// ExitCode is 3: the base is busy (SPEC §2).
func (e *BusyError) ExitCode() int { return 3 }
