package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPty opens a pseudo-terminal: the master end, which reads what is
// written to the terminal, and the terminal itself, for a stderr.
func openPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("ptsname: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// drain reads the master end until every terminal end is closed (then
// Linux answers EIO), in the background, so that a writer never blocks
// on a full terminal buffer.
func drain(master *os.File) <-chan string {
	done := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, master)
		done <- b.String()
	}()
	return done
}

// shownThenCleared matches a progress line drawn on the terminal, then
// blanked, before the build's summary.
var shownThenCleared = regexp.MustCompile(`(?s)\rcairn: building +\d+\.\ds  \w+ done.*\r +\r.*cairn: ran `)

// TestProgressOnATerminal: a build whose stderr is a terminal shows its
// progress there and clears it before the summary; with --quiet, or when
// stderr is a pipe, nothing of it is written. The real command tree runs
// in this process, with the display's delay taken to zero.
func TestProgressOnATerminal(t *testing.T) {
	isolate(t)
	saved := progressShowAfter
	progressShowAfter = "0s"
	t.Cleanup(func() { progressShowAfter = saved })
	build := func(stderr *os.File, args ...string) {
		t.Helper()
		var out bytes.Buffer
		env := &Env{Stdout: &out, Stderr: stderr, Getenv: func(string) string { return "" }, Getwd: os.Getwd}
		if code := runEnv(append([]string{"--base", copyBase(t, "demo"), "build"}, args...), env); code != 0 {
			t.Fatalf("build %v: exit %d", args, code)
		}
	}

	master, tty := openPty(t)
	shown := drain(master)
	build(tty)
	tty.Close()
	if got := <-shown; !shownThenCleared.MatchString(got) {
		t.Errorf("on a terminal: no progress line drawn and cleared before the summary:\n%q", got)
	}

	master, tty = openPty(t)
	shown = drain(master)
	build(tty, "--quiet")
	tty.Close()
	if got := <-shown; got != "" {
		t.Errorf("with --quiet the terminal got %q", got)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	piped := drain(r)
	build(w)
	w.Close()
	if got := <-piped; strings.Contains(got, "building") || strings.Contains(got, "\r") || !strings.HasPrefix(got, "cairn: ran ") {
		t.Errorf("on a pipe: %q; want the summary alone", got)
	}
}

// TestProgressBinary runs the built binary (its delay lowered at link
// time) with stderr on a real terminal, then on a pipe.
func TestProgressBinary(t *testing.T) {
	isolate(t)
	bin := builtCairn(t)
	run := func(stderr io.Writer) string {
		t.Helper()
		cmd := exec.Command(bin, "--base", copyBase(t, "demo"), "build")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("cairn build: %v", err)
		}
		return out.String()
	}

	master, tty := openPty(t)
	shown := drain(master)
	if out := run(tty); out != "" {
		t.Errorf("stdout %q; progress belongs on stderr", out)
	}
	tty.Close()
	if got := <-shown; !shownThenCleared.MatchString(got) {
		t.Errorf("on a terminal: no progress line drawn and cleared before the summary:\n%q", got)
	}

	var piped bytes.Buffer // exec hands the child a pipe for a buffer
	run(&piped)
	if got := piped.String(); strings.Contains(got, "building") || strings.Contains(got, "\r") || !strings.HasPrefix(got, "cairn: ran ") {
		t.Errorf("on a pipe: %q; want the summary alone", got)
	}
}
