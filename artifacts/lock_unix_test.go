//go:build unix

package artifacts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockReplacesALinkedHolderFile: a link where the holder line goes is
// replaced by the holder file, never written through, wherever it points;
// and a busy error never shows what a link there points to. Unix only:
// the test puts a link in place of the holder file while the lock is held,
// and Windows removes no file a process has open.
func TestLockReplacesALinkedHolderFile(t *testing.T) {
	outside := outsideTree(t)
	before := stateOf(t, outside)
	for _, target := range []string{filepath.Join(outside, "precious.txt"), "../notes.md"} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{"notes.md": "mine\n"})
		symlink(t, target, root, LockPath)
		lock, err := AcquireLock(root, "cairn build")
		if err != nil {
			t.Fatalf("link to %s: %v", target, err)
		}
		lockFile := filepath.Join(root, filepath.FromSlash(LockPath))
		info, err := os.Lstat(lockFile)
		if err != nil || !info.Mode().IsRegular() {
			t.Errorf("link to %s: %s is not a regular file while the lock is held: %v, %v", target, LockPath, info, err)
		}
		if b, _ := os.ReadFile(lockFile); !holderPattern.MatchString(strings.TrimSuffix(string(b), "\n")) {
			t.Errorf("link to %s: holder file = %q", target, b)
		}

		// A link put there while the lock is held is not read.
		if err := os.Remove(lockFile); err != nil {
			t.Fatal(err)
		}
		symlink(t, target, root, LockPath)
		_, err = AcquireLock(root, "cairn build --again")
		var busy *BusyError
		if !errors.As(err, &busy) {
			t.Fatalf("second AcquireLock: err = %v, want *BusyError", err)
		}
		if busy.Holder != "" {
			t.Errorf("link to %s: the busy error shows %q, read through the link", target, busy.Holder)
		}

		if err := lock.Release(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(lockFile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("link to %s: Release left %s: %v", target, LockPath, err)
		}
		if got := readFile(t, root, "notes.md"); got != "mine\n" {
			t.Errorf("notes.md = %q", got)
		}
	}
	wantUntouched(t, outside, before)
}
