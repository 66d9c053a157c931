package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/cmd/cairn/internal/collect"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/load"
)

// CollectCmd is `cairn collect [SOURCE…]`.
type CollectCmd struct {
	Sources    []string `arg:"" optional:"" name:"SOURCE" help:"Sources to collect (default: every source of cairn.yaml with a run command or a built-in collector). git and markdown need no configuration."`
	Days       int      `help:"How many completed days to fill, counting back from yesterday." default:"30"`
	Refresh    bool     `help:"Collect again the days (and snapshots) already collected, and rewrite them."`
	AsOf       string   `help:"The day collection stops before: it is never collected (default: $CAIRN_AS_OF, else today, UTC)." placeholder:"DAY"`
	Repo       string   `help:"The repository the git collector reads (default: sources.git.path, else the base's own repository)." placeholder:"PATH"`
	jsonFormat `embed:""`
}

// collectReport is cairn collect --format json: a source a line of the
// text report, with the same facts as data.
type collectReport struct {
	Sources []collectSource `json:"sources"`
}

// collectSource is one source's part of a collectReport.
type collectSource struct {
	Source  string           `json:"source"`
	Written []collectWritten `json:"written"`
	Present int              `json:"present"`
	Empty   int              `json:"without_commits"`
	Skipped []collectSkipped `json:"skipped"`
	// BadCommits are the commits the git collector left out, each with
	// what is wrong with it.
	BadCommits []collectBadCommit `json:"bad_commits,omitempty"`
	// Newest is, when the git source's window held no commit, the author
	// day of the newest commit before it ("" for none), and Hint the
	// sentence the text report prints.
	Newest string `json:"newest_commit,omitempty"`
	Hint   string `json:"hint,omitempty"`
	Error  string `json:"error,omitempty"`
}

// collectWritten is a document written, with its record count.
type collectWritten struct {
	Path    string `json:"path"`
	Records int    `json:"records"`
}

// collectSkipped is a note left out, and why.
type collectSkipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// collectBadCommit is a commit left out, and why.
type collectBadCommit struct {
	SHA     string `json:"sha"`
	Problem string `json:"problem"`
}

// Help is the detail under the summary of `cairn collect --help`.
func (CollectCmd) Help() string {
	return `Each source's documents go to events/YYYY-MM-DD/<source>.json (index/<source>.json for a snapshot). A day is collected once it is over; a day already collected is left as it is unless --refresh. A command gets the day as --since DAY --until NEXT-DAY appended to its arguments and in $CAIRN_SINCE and $CAIRN_UNTIL. A source that fails is reported with its stderr, the others still run, and cairn exits 1. Written documents are listed on stdout.

Examples:

    cairn collect git
    cairn collect --days 7
    cairn collect tickets --refresh --days 2`
}

// maxCollectDays bounds --days: a century of days.
const maxCollectDays = 36525

// Run collects the sources and reports each.
func (c *CollectCmd) Run(env *Env) error {
	if c.Days < 1 || c.Days > maxCollectDays {
		return usageError("--days %d; give a number of days from 1 to %d", c.Days, maxCollectDays)
	}
	root, err := env.findBase()
	if err != nil {
		return err
	}
	today, err := c.today(env)
	if err != nil {
		return err
	}
	now, err := collectedAt(env)
	if err != nil {
		return err
	}
	in, err := c.input(env, root, today, now)
	if err != nil {
		return err
	}
	lock, err := artifacts.AcquireLock(root, "cairn collect")
	if err != nil {
		return err
	}
	defer lock.Release()
	// Each command runs in a process group of its own, which a terminal's
	// Ctrl-C does not reach: the interrupt cancels the collection instead,
	// which stops every command with what it started, and the lock is
	// released on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, err := collect.Run(ctx, in)
	if ctx.Err() != nil {
		c.report(env, out, today)
		return &exitError{code: 130, msg: "interrupted; the documents listed are written, and cairn collect fills the other days when run again"}
	}
	if err != nil {
		return err
	}
	return c.report(env, out, today)
}

// input reads the base's configuration and resolves what to collect. The
// commands come from that file and nowhere else.
func (c *CollectCmd) input(env *Env, root string, today, now time.Time) (collect.Input, error) {
	// cairn.yaml is read inside the base, as the build reads it: the
	// commands it names run, so one linked from outside must not.
	base, err := os.OpenRoot(root)
	if err != nil {
		return collect.Input{}, err
	}
	defer base.Close()
	cfg, ds := load.ReadConfig(base.FS())
	if errs := diag.ErrorsOnly(ds); len(errs) > 0 {
		for _, d := range errs {
			fmt.Fprintln(env.Stderr, d.String())
		}
		return collect.Input{}, &exitError{code: 2, msg: "the configuration has errors; nothing was collected"}
	}
	if _, err := collect.Plan(cfg, c.Sources); err != nil {
		return collect.Input{}, usageError("%v", err)
	}
	in := collect.Input{Dir: root, Config: cfg, Sources: c.Sources, Today: today, Days: c.Days,
		Refresh: c.Refresh, Now: now, Environ: os.Environ()}
	if c.Repo != "" {
		repo, err := filepath.Abs(c.Repo)
		if err != nil {
			return in, err
		}
		in.Repo = repo
	}
	return in, nil
}

// today is the as-of day: --as-of, $CAIRN_AS_OF, else the clock's UTC day.
func (c *CollectCmd) today(env *Env) (time.Time, error) {
	if c.AsOf != "" || env.Getenv("CAIRN_AS_OF") != "" {
		return asOfDay(c.AsOf, env)
	}
	now := env.now().UTC()
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), nil
}

// collectedAt is the instant documents record: $CAIRN_NOW when set (for
// reproducible collections), else the clock.
func collectedAt(env *Env) (time.Time, error) {
	v := env.Getenv("CAIRN_NOW")
	if v == "" {
		return env.now().UTC(), nil
	}
	t, err := load.ParseStamp(v)
	if err != nil {
		return time.Time{}, usageError("$CAIRN_NOW %q: %v", v, err)
	}
	return t.UTC(), nil
}

// quietHint words where the commits of a git source are when its window
// held none: how far back the newest is, and the --days that reaches it,
// in a command that keeps the flags that decide the window.
func (c *CollectCmd) quietHint(source string, q collect.Quiet, today time.Time) string {
	head := fmt.Sprintf("cairn: collect %s: ", source)
	switch {
	case q.NoCommit:
		return head + "the repository has no commit yet, so there is nothing to collect; commit, or name another repository with --repo"
	case q.Newest.IsZero():
		return head + fmt.Sprintf("no commit before %s; the commits of that day and after are collected once their day is over", today.Format(time.DateOnly))
	}
	ago := int(today.Sub(q.Newest).Hours() / 24)
	line := head + fmt.Sprintf("no commit in the last %d days; the newest is from %s, %d days ago", c.Days, q.Newest.Format(time.DateOnly), ago)
	switch {
	case ago <= c.Days:
		// Only a commit the window could not hold falls here: one
		// authored on the as-of day or later but committed before it,
		// or one the walk's slack of older commits stopped short of.
		return line
	case ago > maxCollectDays:
		return line + fmt.Sprintf(", further back than --days reaches (%d)", maxCollectDays)
	}
	cmd := fmt.Sprintf("cairn collect %s --days %d", source, ago)
	if c.Repo != "" {
		cmd += " --repo " + shellWord(c.Repo)
	}
	if c.AsOf != "" {
		cmd += " --as-of " + c.AsOf
	}
	return line + ": run " + cmd + " to reach it"
}

// shellWord is s as one word of a POSIX shell command line: as it is when
// it holds nothing a shell reads specially, else single-quoted.
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@=%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxSkippedNamed bounds the skipped notes, and the commits left out,
// named one by one: the count says how many more there are.
const maxSkippedNamed = 10

// reportSkipped names the notes the markdown collector left out, and why,
// each on its own line, with what to do about it.
func reportSkipped(env *Env, r collect.Result) {
	for i, s := range r.Skipped {
		if i == maxSkippedNamed {
			fmt.Fprintf(env.Stderr, "cairn: collect %s: and %d more skipped\n", r.Source, len(r.Skipped)-maxSkippedNamed)
			break
		}
		fmt.Fprintf(env.Stderr, "cairn: collect %s: skipped %s: %d bytes, over the %d-byte cap of a note; split it or move it out of the notes folder\n", r.Source, escape.Line(s.Path), s.Size, collect.MaxNoteBytes)
	}
}

// reportBadCommits names the commits the git collector left out, and what
// is wrong with each, on lines of their own.
func reportBadCommits(env *Env, r collect.Result) {
	for i, b := range r.BadCommits {
		if i == maxSkippedNamed {
			fmt.Fprintf(env.Stderr, "cairn: collect %s: and %d more commits left out\n", r.Source, len(r.BadCommits)-maxSkippedNamed)
			break
		}
		fmt.Fprintf(env.Stderr, "cairn: collect %s: left out commit %s: %s; the other commits are collected\n", r.Source, b.SHA, b.Problem)
	}
}

// report prints the written documents on stdout and a line per source on
// stderr, then each failure; it is an exit 1 when a source failed.
func (c *CollectCmd) report(env *Env, out collect.Output, today time.Time) error {
	if c.json() {
		if err := writeJSON(env.Stdout, c.jsonReport(out, today)); err != nil {
			return err
		}
		return collectFailure(out)
	}
	for _, r := range out.Results {
		records := 0
		for _, w := range r.Written {
			fmt.Fprintln(env.Stdout, w.Path)
			records += w.Count
		}
		line := fmt.Sprintf("cairn: collect %s: %d written (%d records), %d present", r.Source, len(r.Written), records, r.Present)
		if r.Empty > 0 {
			line += fmt.Sprintf(", %d without commits", r.Empty)
		}
		if len(r.Skipped) > 0 {
			line += fmt.Sprintf(", %d skipped", len(r.Skipped))
		}
		if len(r.BadCommits) > 0 {
			line += fmt.Sprintf(", %d left out", len(r.BadCommits))
		}
		fmt.Fprintln(env.Stderr, line)
		if r.Quiet != nil {
			fmt.Fprintln(env.Stderr, c.quietHint(r.Source, *r.Quiet, today))
		}
		reportSkipped(env, r)
		reportBadCommits(env, r)
		if r.Err != nil {
			fmt.Fprintf(env.Stderr, "cairn: %s\n", escape.Text(r.Err.Error()))
		}
	}
	return collectFailure(out)
}

// collectFailure is the exit 1 of a collection in which a source failed.
func collectFailure(out collect.Output) error {
	var failed []string
	for _, r := range out.Results {
		if r.Err != nil {
			failed = append(failed, r.Source)
		}
	}
	if len(failed) > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%d of %d sources failed (%s); the others' documents are written; fix the source and run cairn collect again", len(failed), len(out.Results), strings.Join(failed, ", "))}
	}
	return nil
}

// jsonReport is the report as data.
func (c *CollectCmd) jsonReport(out collect.Output, today time.Time) collectReport {
	rep := collectReport{Sources: []collectSource{}}
	for _, r := range out.Results {
		s := collectSource{Source: r.Source, Written: []collectWritten{}, Present: r.Present, Empty: r.Empty, Skipped: []collectSkipped{}}
		for _, w := range r.Written {
			s.Written = append(s.Written, collectWritten{Path: w.Path, Records: w.Count})
		}
		for _, sk := range r.Skipped {
			reason := fmt.Sprintf("%d bytes, over the %d-byte cap of a note", sk.Size, collect.MaxNoteBytes)
			s.Skipped = append(s.Skipped, collectSkipped{Path: sk.Path, Reason: reason})
		}
		for _, b := range r.BadCommits {
			s.BadCommits = append(s.BadCommits, collectBadCommit{SHA: b.SHA, Problem: b.Problem})
		}
		if r.Quiet != nil {
			if !r.Quiet.Newest.IsZero() {
				s.Newest = r.Quiet.Newest.Format(time.DateOnly)
			}
			s.Hint = strings.TrimPrefix(c.quietHint(r.Source, *r.Quiet, today), "cairn: collect "+r.Source+": ")
		}
		if r.Err != nil {
			s.Error = r.Err.Error()
		}
		rep.Sources = append(rep.Sources, s)
	}
	return rep
}
