// Package testhome gives a test binary a home of its own, so that no test
// writes in the user's: cairn keeps stat and config caches under
// $XDG_CACHE_HOME (else ~/.cache) and receipt snapshots under
// $XDG_STATE_HOME (else ~/.local/state), and a test that builds or queries
// a base would otherwise leave them in the real ones.
//
// It is for tests only; nothing else imports it. It lives beside goldentest,
// the other package every test binary shares, since the top level of the
// repository is fixed.
package testhome

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Run points XDG_CACHE_HOME, XDG_STATE_HOME and HOME (and USERPROFILE,
// which is the home on Windows) at fresh temporary folders, runs the
// tests, removes the folders and returns the tests' exit code. A
// package's TestMain calls it before any test runs:
//
//	func TestMain(m *testing.M) { os.Exit(testhome.Run(m)) }
//
// The go command's own folders are first pinned to where they are now
// (GOCACHE, GOPATH and with it the module cache, GOENV), so that a test
// that runs go build keeps using the user's caches and settings rather
// than compiling everything again into the temporary home.
func Run(m *testing.M) int {
	pinGo()
	top, err := os.MkdirTemp("", "cairn-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	defer os.RemoveAll(top)
	for _, v := range []struct{ name, dir string }{
		{"XDG_CACHE_HOME", "cache"},
		{"XDG_STATE_HOME", "state"},
		{"HOME", "home"},
		{"USERPROFILE", "home"},
	} {
		dir := filepath.Join(top, v.dir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "testhome:", err)
			return 1
		}
		os.Setenv(v.name, dir)
	}
	return m.Run()
}

// pinGo sets the go command's folders that default to places under the
// home to those places, where they are not set already.
func pinGo() {
	if os.Getenv("GOCACHE") == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(dir, "go-build"))
		}
	}
	if os.Getenv("GOPATH") == "" {
		if home, err := os.UserHomeDir(); err == nil {
			os.Setenv("GOPATH", filepath.Join(home, "go"))
		}
	}
	if os.Getenv("GOENV") == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			os.Setenv("GOENV", filepath.Join(dir, "go", "env"))
		}
	}
}
