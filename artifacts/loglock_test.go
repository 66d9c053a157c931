package artifacts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLockLogBusyRelease is LockLog's contract: a second lock of the
// log fails at once with a *FileBusyError; the build lock and the log's
// are apart, so either is taken while the other is held; after a release
// the lock file stays, empty, and the lock can be taken again.
func TestLockLogBusyRelease(t *testing.T) {
	root := t.TempDir()
	held, err := LockLog(root, "cairn note")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockLog(root, "another note")
	var busy *FileBusyError
	if !errors.As(err, &busy) || busy.ExitCode() != 3 {
		t.Fatalf("second LockLog: err = %v, want a *FileBusyError", err)
	}
	build, err := AcquireLock(root, "cairn build")
	if err != nil {
		t.Fatalf("the build lock with the log's held: %v", err)
	}
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, filepath.FromSlash(LogLockPath))
	if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
		t.Errorf("after Release the lock file holds %q, %v; want it there and empty", b, err)
	}
	again, err := LockLog(root, "cairn note")
	if err != nil {
		t.Fatalf("LockLog with the build lock held: %v", err)
	}
	if err := errors.Join(again.Release(), build.Release()); err != nil {
		t.Fatal(err)
	}
}

// TestLockLogRefusesLinks: a .cairn that links elsewhere is refused, as
// the build lock refuses it, with nothing made there; a link at the lock
// file's name is replaced by a file, and what it pointed to is untouched.
func TestLockLogRefusesLinks(t *testing.T) {
	for name, make := range linkedDirs(t) {
		t.Run(name, func(t *testing.T) {
			root, target := make(t)
			before := stateOf(t, target)
			lock, err := LockLog(root, "cairn note")
			if err == nil {
				lock.Release()
			}
			wantLinkedDirError(t, err, root)
			wantUntouched(t, target, before)
		})
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	precious := filepath.Join(t.TempDir(), "precious.txt")
	if err := os.WriteFile(precious, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, precious, root, filepath.FromSlash(LogLockPath))
	lock, err := LockLog(root, "cairn note")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(LogLockPath))); err != nil || !info.Mode().IsRegular() {
		t.Errorf("the lock file is %v, %v; want a regular file in place of the link", info, err)
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "mine\n" {
		t.Errorf("precious.txt = %q, %v", b, err)
	}
}
