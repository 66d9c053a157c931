package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeProgress(w *bytes.Buffer, columns int, delay time.Duration) (*progress, *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	p := newProgress(w, columns, delay)
	p.now, p.start = clock.now, clock.t
	return p, clock
}

// frames splits what the display wrote into the lines it drew, each
// redrawn from the start of the line.
func frames(out string) []string {
	var fs []string
	for _, f := range strings.Split(out, "\r") {
		if strings.TrimSpace(f) != "" {
			fs = append(fs, strings.TrimRight(f, " "))
		}
	}
	return fs
}

// TestProgressBar: a stage advancing through its items draws a bar with
// its counts, throttled, and the end clears the line.
func TestProgressBar(t *testing.T) {
	var out bytes.Buffer
	p, clock := newFakeProgress(&out, 80, 0)
	p.Advance("load", 0, 1000)
	clock.advance(10 * time.Millisecond)
	p.Advance("load", 10, 1000) // within progressRedraw of the last: not drawn
	clock.advance(progressRedraw)
	p.Advance("load", 500, 1000)
	clock.advance(progressRedraw)
	p.Advance("load", 1000, 1000)
	p.Ended("load")
	p.Advance("project", 1, 4) // another stage: drawn at once
	p.Done()
	p.Advance("project", 2, 4) // after Done: nothing
	got := frames(out.String())
	want := []string{
		"cairn: building  0.0s  load     [                              ] 0/1000",
		"cairn: building  0.1s  load     [===============               ] 500/1000",
		"cairn: building  0.2s  load     [==============================] 1000/1000",
		"cairn: building  0.2s  load done",
		"cairn: building  0.2s  project  [=======                       ] 1/4",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Done leaves the cursor at the start of a blank line.
	if s := out.String(); !strings.HasSuffix(s, "\r"+strings.Repeat(" ", len(want[4]))+"\r") {
		t.Errorf("the line is not cleared at the end: %q", s[max(0, len(s)-100):])
	}
}

// TestProgressDelay: nothing shows before the delay; a build that ends
// sooner prints nothing at all.
func TestProgressDelay(t *testing.T) {
	var out bytes.Buffer
	p, clock := newFakeProgress(&out, 80, time.Second)
	p.Advance("load", 1, 10)
	p.Ended("load")
	clock.advance(900 * time.Millisecond)
	p.Ended("project")
	if out.Len() != 0 {
		t.Fatalf("drawn before the delay: %q", out.String())
	}
	clock.advance(200 * time.Millisecond)
	p.Ended("graph")
	if got := frames(out.String()); len(got) != 1 || got[0] != "cairn: building  1.1s  graph done" {
		t.Errorf("after the delay: %q", got)
	}

	out.Reset()
	quick, _ := newFakeProgress(&out, 80, time.Second)
	quick.Ended("load")
	quick.Clear()
	quick.Done()
	if out.Len() != 0 {
		t.Errorf("a build under the delay printed %q", out.String())
	}
}

// TestProgressFitsTheTerminal: a line wider than the terminal would wrap,
// and \r would then redraw only its last row; it is cut to fit.
func TestProgressFitsTheTerminal(t *testing.T) {
	var out bytes.Buffer
	p, _ := newFakeProgress(&out, 40, 0)
	p.Advance("project", 5, 10)
	for _, f := range frames(out.String()) {
		if len([]rune(f)) >= 40 {
			t.Errorf("a line of %d columns on a terminal of 40: %q", len([]rune(f)), f)
		}
	}
}

// TestProgressNil: a build that shows no progress has a nil *progress,
// whose methods do nothing.
func TestProgressNil(t *testing.T) {
	var p *progress
	p.Advance("load", 1, 2)
	p.Ended("load")
	p.Clear()
	p.Done()
	var w buildWatch
	w.mark("load")
	if buildProgress(&bytes.Buffer{}, false) != nil {
		t.Errorf("a progress display on a buffer, which is no terminal")
	}
}
