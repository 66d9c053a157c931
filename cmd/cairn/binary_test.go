package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairn-kb/cairn/golden/testhome"
)

// built is the cairn binary the tests that need a real process run,
// built once per test run into a folder TestMain removes (a t.TempDir
// would go with the first test that asked for it).
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// goCache is the go build cache as the test run began: tests move
// XDG_CACHE_HOME (isolate), which would send go build to an empty cache
// and have it compile everything, the standard library included.
var goCache string

// TestMain runs the tests in a home of their own (testhome), so that the
// builds and queries they run leave no stat cache, config cache or receipt
// snapshot in the user's, and then removes the binary built for them.
func TestMain(m *testing.M) {
	goCache = os.Getenv("GOCACHE")
	if dir, err := os.UserCacheDir(); goCache == "" && err == nil {
		goCache = filepath.Join(dir, "go-build")
	}
	code := testhome.Run(m)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// builtCairn builds this package into a binary and returns its path. Its
// progress display shows at once (progressShowAfter is lowered), so that
// a build of a small base shows it on a terminal.
func builtCairn(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "cairn-test-bin-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "cairn")
		cmd := exec.Command("go", "build", "-ldflags=-X main.progressShowAfter=0s", "-o", built.path, ".")
		// Built as it ships: static, with no cgo (kong imports os/user,
		// which would link the C library).
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if goCache != "" {
			cmd.Env = append(cmd.Env, "GOCACHE="+goCache)
		}
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}
