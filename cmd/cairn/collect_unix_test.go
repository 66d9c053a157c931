//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/golden/goldentest"
)

// TestCollectInterrupt: an interrupted collect stops the commands it ran
// with everything they started (they run in process groups of their own,
// which the terminal's Ctrl-C does not reach) and exits on its own.
func TestCollectInterrupt(t *testing.T) {
	isolate(t)
	bin := builtCairn(t)
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	writeFile(t, filepath.Join(dir, "cairn.yaml"), "sources:\n  slow:\n    run: [sh, -c, 'sleep 30 & echo $! > pidfile; sleep 30']\n    fields: {id: .id, title: .t, time: .at}\n")
	cmd := exec.Command(bin, "--base", dir, "collect", "--days", "1", "--as-of", "2026-11-28")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := 0
	for range 200 {
		text, err := os.ReadFile(filepath.Join(dir, "pidfile"))
		if pid, _ = strconv.Atoi(strings.TrimSpace(string(text))); err == nil && pid > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the command never wrote its child's pid")
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "cairn: interrupted") {
		t.Errorf("an interrupted collect ended with %v:\n%s", err, stderr.String())
	}
	goldentest.ExpectGone(t, pid, "the interrupted collect")
}
