//go:build unix

package collect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandTimeoutKillsGroup: a command that times out is stopped with
// everything it started, not only the process cairn ran.
func TestCommandTimeoutKillsGroup(t *testing.T) {
	in := commandInput(t, []string{"sh", "-c", "sleep 30 & echo $! > pidfile; sleep 30"}, "1s")
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Results[0].Err; got == nil || !strings.Contains(got.Error(), "timed out after 1s") {
		t.Fatalf("the command gave %v, want a timeout", got)
	}
	text, err := os.ReadFile(filepath.Join(in.Dir, "pidfile"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	// Death is asked of it, not speed: the kill is sent by the time Run
	// returns, and the poll only waits for the system to carry it out.
	for range 40 {
		if !alive(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the command's child %d outlived its timeout", pid)
}

// alive reports whether process pid runs: it exists and, where /proc says
// so, is not a zombie left for an init that does not reap.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}
