//go:build unix

package collect

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/golden/goldentest"
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
	goldentest.ExpectGone(t, pid, "its timeout")
}
