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
type Lock struct {
	dir    *os.File
	holder string // the holder file, removed on Release
}

// lockHolderMax bounds how much of a lock file is read to name its holder;
// the line is short, and a damaged file must not be read whole.
const lockHolderMax = 4 << 10

// AcquireLock takes the build lock of the base at root, creating .cairn
// (0755) when missing. It never waits: when another process holds the lock
// it returns a *BusyError naming that holder at once. holder says what
// takes the lock, e.g. "cairn build".
//
// The lock is the kernel's (flock on Unix), not a file's existence, so it
// is released when its process exits, however it exits. A holder file left
// behind by a crashed build is harmless: the next build overwrites it.
func AcquireLock(root string, holder string) (*Lock, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %s is not a folder", root)
	}
	// Only .cairn is created, never root itself: a mistyped base path must
	// fail here rather than grow a new folder tree.
	dir := filepath.Join(root, Dir)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	name := filepath.Join(root, filepath.FromSlash(LockPath))
	busy, err := tryLock(d)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("artifacts: cannot lock %s: %w", dir, err)
	}
	if busy {
		d.Close()
		return nil, &BusyError{Path: name, Holder: readHolder(name)}
	}
	// Only the holder writes the line, after it holds the lock, so two
	// builds never write it at once. A reader racing with this write may see
	// an empty or partial line; BusyError copes with that.
	if err := os.WriteFile(name, []byte(holderLine(holder, time.Now())), 0o644); err != nil {
		unlock(d)
		d.Close()
		return nil, fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	return &Lock{dir: d, holder: name}, nil
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
// holder has not written it yet.
func readHolder(name string) string {
	f, err := os.Open(name)
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
	if l == nil || l.dir == nil {
		return nil
	}
	d := l.dir
	l.dir = nil
	// The holder file goes while the lock is still held, so nobody reads
	// a holder that has finished.
	errRemove := os.Remove(l.holder)
	if errors.Is(errRemove, fs.ErrNotExist) {
		errRemove = nil
	}
	// Closing alone would release the lock too; unlocking first makes the
	// release explicit and independent of descriptors a child may share.
	errUnlock := unlock(d)
	errClose := d.Close()
	if err := errors.Join(errRemove, errUnlock, errClose); err != nil {
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
