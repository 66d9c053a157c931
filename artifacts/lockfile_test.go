package artifacts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockFileBusyRelease is LockFile's contract, on every system: a
// second lock of the same file fails at once with a *FileBusyError naming
// the holder (exit 3); after a release the file stays, empty, and the lock
// can be taken again.
func TestLockFileBusyRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := LockFile(path, "cairn context --save-receipt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockFile(path, "another cairn")
	var busy *FileBusyError
	if !errors.As(err, &busy) {
		t.Fatalf("second LockFile: err = %v, want *FileBusyError", err)
	}
	m := holderPattern.FindStringSubmatch(busy.Holder)
	if m == nil || m[1] != fmt.Sprint(os.Getpid()) || m[2] != "cairn context --save-receipt" {
		t.Errorf("Holder = %q, want this process and its cmd", busy.Holder)
	}
	if busy.ExitCode() != 3 || !strings.Contains(busy.Error(), busy.Holder) || !strings.Contains(busy.Error(), path) {
		t.Errorf("ExitCode = %d, message %q", busy.ExitCode(), busy.Error())
	}
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
		t.Errorf("after Release the file holds %q, %v; want it there and empty", b, err)
	}
	again, err := LockFile(path, "cairn context --save-receipt")
	if err != nil {
		t.Fatalf("LockFile after Release: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestLockFileRefusesALink: a link at the lock file's name is refused,
// on every system, and what it points to is neither created nor written.
func TestLockFileRefusesALink(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{"precious.txt", "missing.txt"} {
		if target == "precious.txt" {
			if err := os.WriteFile(filepath.Join(dir, target), []byte("mine\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		symlink(t, target, dir, "lock-"+target)
		held, err := LockFile(filepath.Join(dir, "lock-"+target), "cairn context --save-receipt")
		if err == nil {
			held.Release()
		}
		if !errors.Is(err, ErrLink) {
			t.Errorf("link to %s: err = %v, want ErrLink", target, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "precious.txt")); err != nil || string(b) != "mine\n" {
		t.Errorf("precious.txt = %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock created the file a link names: %v", err)
	}
}
