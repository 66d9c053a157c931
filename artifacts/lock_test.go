package artifacts

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// holderPattern is the shape of the line a lock holder writes.
var holderPattern = regexp.MustCompile(`^pid=(\d+) host=\S+ cmd=(.*) since=(\S+)$`)

// TestLockAcquireBusyRelease is the lock's contract, on every system:
// the holder's line is written, a second acquisition fails at once with a
// *BusyError naming that holder (exit 3), and after a release no holder
// file is left and the lock can be taken again.
func TestLockAcquireBusyRelease(t *testing.T) {
	root := t.TempDir()
	lock, err := AcquireLock(root, "cairn build")
	if err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(root, ".cairn", "lock")
	if info, err := os.Stat(filepath.Join(root, ".cairn")); err != nil || !info.IsDir() {
		t.Fatalf(".cairn not created: %v", err)
	}
	b, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	m := holderPattern.FindStringSubmatch(strings.TrimSuffix(string(b), "\n"))
	if m == nil || m[1] != fmt.Sprint(os.Getpid()) || m[2] != "cairn build" {
		t.Fatalf("lock file = %q, want pid=%d host=... cmd=cairn build since=...", b, os.Getpid())
	}
	if _, err := time.Parse(time.RFC3339, m[3]); err != nil || !strings.HasSuffix(m[3], "Z") {
		t.Errorf("since = %q, want RFC3339 UTC", m[3])
	}

	// Same process, new open file description (new handle on Windows): the
	// kernel still refuses.
	_, err = AcquireLock(root, "cairn build --again")
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("second AcquireLock: err = %v, want *BusyError", err)
	}
	if busy.ExitCode() != 3 {
		t.Errorf("ExitCode = %d, want 3", busy.ExitCode())
	}
	if busy.Path != lockFile {
		t.Errorf("Path = %q, want %q", busy.Path, lockFile)
	}
	if want := strings.TrimSuffix(string(b), "\n"); busy.Holder != want {
		t.Errorf("Holder = %q, want %q", busy.Holder, want)
	}
	msg := busy.Error()
	for _, part := range []string{"the base is busy", busy.Holder, lockFile, "harmless"} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q lacks %q", msg, part)
		}
	}
	// The refused attempt must not have clobbered the holder's line.
	if after, _ := os.ReadFile(lockFile); string(after) != string(b) {
		t.Errorf("lock file changed by a refused attempt: %q", after)
	}

	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if err := lock.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if _, err := os.Stat(lockFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Release left the holder file behind: %v", err)
	}
	again, err := AcquireLock(root, "cairn build")
	if err != nil {
		t.Fatalf("AcquireLock after Release: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestLockMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "no-such-base")
	if _, err := AcquireLock(root, "cairn build"); err == nil {
		t.Fatal("AcquireLock succeeded on a missing root")
	}
	if _, err := os.Stat(root); err == nil {
		t.Error("AcquireLock created the missing root")
	}
}

func TestBusyErrorWithoutHolder(t *testing.T) {
	e := &BusyError{Path: "/b/.cairn/lock"}
	if msg := e.Error(); !strings.Contains(msg, "holder not written yet") || !strings.Contains(msg, "/b/.cairn/lock") {
		t.Errorf("message = %q", msg)
	}
}

func TestLockHeldByOtherProcess(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), lockChildEnv+"="+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	defer func() {
		if !done {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child said %q, %v; want \"locked\"", line, err)
	}

	_, err = AcquireLock(root, "cairn build")
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("AcquireLock while a child holds it: err = %v, want *BusyError", err)
	}
	m := holderPattern.FindStringSubmatch(busy.Holder)
	if m == nil || m[1] != fmt.Sprint(cmd.Process.Pid) || m[2] != "cairn child" {
		t.Errorf("Holder = %q, want the child's pid %d and cmd", busy.Holder, cmd.Process.Pid)
	}

	// Kill the child without letting it release: the kernel frees the lock,
	// and the file it leaves behind does not block the next build.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	done = true
	lock, err := AcquireLock(root, "cairn build")
	if err != nil {
		t.Fatalf("AcquireLock after the holder died: %v", err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestLockRefusesALinkedDir: the lock is never taken in a folder .cairn
// links to: nothing is created, written or deleted there, and the build
// stops with exit code 2.
func TestLockRefusesALinkedDir(t *testing.T) {
	for name, make := range linkedDirs(t) {
		t.Run(name, func(t *testing.T) {
			root, target := make(t)
			before := stateOf(t, target)
			lock, err := AcquireLock(root, "cairn build")
			if err == nil {
				lock.Release()
			}
			wantLinkedDirError(t, err, root)
			wantUntouched(t, target, before)
		})
	}
}
