package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressShowAfter is how long a build runs before its progress shows: a
// build that ends sooner prints no progress at all. It is a string so that
// a test can lower it in a built binary (-ldflags -X
// main.progressShowAfter=0s); nothing else sets it.
var progressShowAfter = "1s"

// progressRedraw is how often the line is redrawn at most: a stage reports
// every item it advances, far more often than a person can read.
const progressRedraw = 100 * time.Millisecond

// progressBarWidth is the width of the bar, in cells: with the stage and
// the counts, the line stays within 80 columns.
const progressBarWidth = 30

// progress shows how far a build is, on one line of stderr redrawn in
// place with \r, and clears the line when the build ends. Stages report
// to it as each ends (Ended) and as each advances through its items
// (Advance); a nil *progress shows nothing. Its methods may be called
// from several goroutines.
type progress struct {
	w       io.Writer
	delay   time.Duration // nothing shows before the build has run this long
	columns int           // the terminal's width: a longer line would wrap, and \r not reach its start
	now     func() time.Time

	mu    sync.Mutex
	start time.Time
	drawn time.Time // when the line was last drawn; zero while nothing is shown
	width int       // the width of the line on the terminal, to clear it
	done  bool      // Done was called: nothing is drawn any more
	ended string    // the stage finished last
	stage string    // the stage advancing, and how far it is
	count int
	total int
}

// newProgress is a progress display on w, a terminal columns wide,
// showing after delay.
func newProgress(w io.Writer, columns int, delay time.Duration) *progress {
	return &progress{w: w, delay: delay, columns: columns, now: time.Now, start: time.Now()}
}

// buildProgress is the progress display of a build: on stderr when it is
// a terminal and --quiet is off, else nil.
func buildProgress(stderr io.Writer, quiet bool) *progress {
	f, ok := stderr.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	delay, err := time.ParseDuration(progressShowAfter)
	if err != nil {
		delay = time.Second
	}
	columns, _, err := term.GetSize(int(f.Fd()))
	if err != nil || columns <= 0 {
		columns = 80
	}
	return newProgress(stderr, columns, delay)
}

// Ended records that a stage has finished (stages.Input.Mark).
func (p *progress) Ended(stage string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = stage
	if p.stage == stage {
		p.stage, p.count, p.total = "", 0, 0
	}
	p.draw(true)
}

// Advance records that stage has done count of its total items.
func (p *progress) Advance(stage string, count, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := stage != p.stage
	p.stage, p.count, p.total = stage, count, total
	p.draw(changed)
}

// Clear takes the line away, so that a message can be printed; the next
// report draws it again.
func (p *progress) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// Done clears the line for good: the build is over.
func (p *progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.done = true
}

func (p *progress) clear() {
	if !p.drawn.IsZero() {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.drawn, p.width = time.Time{}, 0
	}
}

// draw redraws the line, unless the build is younger than the delay or
// the line was drawn moments ago (unless now says a stage changed).
func (p *progress) draw(now bool) {
	t := p.now()
	elapsed := t.Sub(p.start)
	if p.done || elapsed < p.delay || (!now && !p.drawn.IsZero() && t.Sub(p.drawn) < progressRedraw) {
		return
	}
	line := p.line(elapsed)
	if r := []rune(line); len(r) >= p.columns {
		line = string(r[:max(0, p.columns-1)])
	}
	pad := max(0, p.width-len([]rune(line)))
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.drawn, p.width = t, len([]rune(line))
}

// line is the text of the display: the time so far, the stage advancing
// with a bar and its counts, or else the stage finished last.
func (p *progress) line(elapsed time.Duration) string {
	s := fmt.Sprintf("cairn: building %4.1fs", elapsed.Seconds())
	if p.stage != "" && p.total > 0 {
		filled := min(progressBarWidth, progressBarWidth*p.count/p.total)
		return s + fmt.Sprintf("  %-8s [%s%s] %d/%d", p.stage,
			strings.Repeat("=", filled), strings.Repeat(" ", progressBarWidth-filled), p.count, p.total)
	}
	if p.ended != "" {
		s += "  " + p.ended + " done"
	}
	return s
}
