//go:build unix

package goldentest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ExpectGone fails the test unless process pid, a child a command
// started, is gone within two seconds; it kills what outlived. Death is
// asked of it, not speed: the kill is sent by the time the caller looks,
// and the poll only waits for the system to carry it out.
func ExpectGone(t testing.TB, pid int, what string) {
	t.Helper()
	for range 40 {
		if !alive(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the command's child %d outlived %s", pid, what)
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
