//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// watchFIFO makes a FIFO at p and reports, through the returned func,
// whether anything opened it for reading: a goroutine waits to open its
// writing end, which succeeds only once a reader opens the other, and
// closes it at once, so a reader sees an empty file instead of hanging.
// The func also ends the goroutine.
func watchFIFO(t *testing.T, p string) (opened func() bool) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	var seen atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			seen.Store(true)
			f.Close()
		}
	}()
	return func() bool {
		// Read before the release below opens the reading end itself.
		was := seen.Load()
		if r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-done
			r.Close()
		}
		return was
	}
}

// TestRulesLinkNeverOpened: an AGENTS.md or CLAUDE.md that is a link
// leaving the base, or a link to something that is not a regular file, is
// refused before anything opens what it points to (SPEC §3): the build,
// check and context never read through it, not even after a build that
// knew a regular file there.
func TestRulesLinkNeverOpened(t *testing.T) {
	isolate(t)
	for _, c := range []struct{ name, link, wantErr string }{
		{"outside, absolute", "CLAUDE.md", "path-escape"},
		{"outside, relative", "docs/AGENTS.md", "path-escape"},
		{"inside, to a FIFO", "docs/CLAUDE.md", ""},
	} {
		dir := filepath.Join(t.TempDir(), "kb")
		if code, _, stderr := cairn(t, "init", dir); code != 0 {
			t.Fatal(stderr)
		}
		writeFile(t, filepath.Join(dir, "docs", "guide.md"), "# Guide\n\nHow to sail.\n")
		fifo := filepath.Join(t.TempDir(), "rules")
		target := fifo
		if c.wantErr == "" {
			fifo = filepath.Join(dir, "docs", "pipe")
			target = "pipe"
		} else if strings.Contains(c.name, "relative") {
			rel, err := filepath.Rel(filepath.Join(dir, "docs"), fifo)
			if err != nil {
				t.Fatal(err)
			}
			target = rel
		}
		// Built first, so that queries and the next build have a
		// manifest and a stat cache that name a regular rules file there.
		writeFile(t, filepath.Join(dir, filepath.FromSlash(c.link)), "# Rules\n")
		mustBuild(t, dir)
		os.Remove(filepath.Join(dir, filepath.FromSlash(c.link)))
		opened := watchFIFO(t, fifo)
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(c.link))); err != nil {
			t.Fatal(err)
		}
		// check and context read past it: a rules file is an output,
		// neither content nor an input of an answer.
		cairn(t, "--base", dir, "check")
		cairn(t, "--base", dir, "context", "sail")
		code, _, stderr := cairn(t, "--base", dir, "build")
		if c.wantErr != "" && (code == 0 || !strings.Contains(stderr, c.link) || !strings.Contains(stderr, c.wantErr)) {
			t.Errorf("%s: build: exit %d, stderr:\n%s\nwant %s refused as %s", c.name, code, stderr, c.link, c.wantErr)
		}
		if opened() {
			t.Errorf("%s: what the link %s points to was opened", c.name, c.link)
		}
	}
}
