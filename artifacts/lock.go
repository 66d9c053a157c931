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

// Lock holds the base's exclusive build lock: an advisory lock on
// <root>/.cairn/lock. Only builds take it; readers never do, because the
// manifest-last write order in Sync already keeps them safe.
type Lock struct {
	f    *os.File
	path string
}

// lockHolderMax bounds how much of a lock file is read to name its holder;
// the line is short, and a damaged file must not be read whole.
const lockHolderMax = 4 << 10

// AcquireLock takes the build lock of the base at root, creating .cairn
// (0755) and the lock file (0644) when missing. It never waits: when another
// process holds the lock it returns a *BusyError naming that holder at once.
// holder says what takes the lock, e.g. "cairn build".
//
// The lock is the kernel's (flock on Unix), not the file's existence, so it
// is released when its process exits, however it exits. A lock file left
// behind by a crashed build is harmless and is simply locked again.
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
	name := filepath.Join(root, filepath.FromSlash(LockPath))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot lock the base: %w", err)
	}
	busy, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("artifacts: cannot lock %s: %w", name, err)
	}
	if busy {
		who := readHolder(f)
		f.Close()
		return nil, &BusyError{Path: name, Holder: who}
	}
	// Only the holder writes the line, after it holds the lock, so two
	// builds never write it at once. A reader racing with this write may see
	// an empty or partial line; BusyError copes with that.
	line := holderLine(holder, time.Now())
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(line), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	return &Lock{f: f, path: name}, nil
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

// readHolder returns the first line of the lock file, or "" when the holder
// has not written it yet.
func readHolder(f *os.File) string {
	b, _ := io.ReadAll(io.NewSectionReader(f, 0, lockHolderMax))
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// Release gives the lock up and closes the file; the file stays, since a
// later build locks it again. Releasing a nil or released Lock does nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	// The holder line is cleared while the lock is still held, so that a
	// finished build leaves an empty lock file: two checkouts built on
	// different machines then hold byte-identical .cairn trees.
	errTrunc := f.Truncate(0)
	// Closing alone would release the lock too; unlocking first makes the
	// release explicit and independent of descriptors a child may share.
	errUnlock := unlock(f)
	errClose := f.Close()
	if err := errors.Join(errTrunc, errUnlock, errClose); err != nil {
		return fmt.Errorf("artifacts: cannot release %s: %w", l.path, err)
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
