package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages"
	"github.com/cairn-kb/cairn/stages/builder"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/load"
)

// BuildCmd is `cairn build`.
type BuildCmd struct {
	Check        bool   `help:"Build in memory and write nothing; list each committed output (AGENTS.md, CLAUDE.md) a build would change and exit 1 if any would: the CI gate. The git-ignored artifacts under .cairn/ never fail it (see --artifacts)."`
	Artifacts    bool   `help:"With --check, check every artifact under .cairn/ byte for byte too (reproducibility checks on golden bytes, a repaired artifact)."`
	FailOnChange bool   `help:"Build, then exit 1 if the build created, changed or deleted a committed output (a rules file), listing each: the pre-commit hook that regenerates the rules files for you to stage." name:"fail-on-change"`
	RulesOnly    bool   `help:"Refresh only the rules files (AGENTS.md, CLAUDE.md) and what they are made from; the index and graph stay as the last build made them, and queries read what changed since anew, until the next build." name:"rules-only"`
	Quiet        bool   `help:"Print nothing but warnings and errors."`
	Timings      bool   `help:"Print how long each stage took, to stderr."`
	AsOf         string `help:"The day governance windows are evaluated at for the rules files (default: $CAIRN_AS_OF, else today, UTC)." placeholder:"DAY"`
	Format       string `help:"Output format: text, or json for a program (what ran, and every file written, or with --check every file that would be)." default:"text" enum:"text,json" placeholder:"FORMAT"`
}

// Help is the detail under the summary of `cairn build --help`.
func (BuildCmd) Help() string {
	return `Stages whose inputs are unchanged are kept; a build that would change nothing writes nothing. A build that runs longer than a second shows its progress on stderr when that is a terminal (not with --quiet).

Examples:

    cairn build
    cairn build --check                # in CI: exit 1 if a committed rules file is stale
    cairn build --check --artifacts    # also .cairn/, byte for byte
    cairn build --fail-on-change       # pre-commit: regenerate the rules files, exit 1 if one changed
    cairn build --rules-only           # a terms or notes change, in the rules files now; the index later`
}

// Run builds the base, or checks it with --check.
func (c *BuildCmd) Run(env *Env) error {
	if c.Artifacts && !c.Check {
		return usageError("--artifacts goes with --check: a build always brings .cairn/ up to date")
	}
	if c.FailOnChange && c.Check {
		return usageError("--fail-on-change goes with a build, --check with none: pick one")
	}
	if c.RulesOnly && c.Check {
		return usageError("--rules-only goes with a build: --check compares everything a whole build would write")
	}
	root, asOf, err := baseAndDay(env, c.AsOf)
	if err != nil {
		return err
	}
	watch := buildWatch{progress: buildProgress(env.Stderr, c.Quiet || c.Format == "json")}
	if c.Timings {
		watch.clock = newStageClock(env.Stderr)
	}
	res, err := runBuild(builder.Options{Root: root, AsOf: asOf, Check: c.Check, RulesOnly: c.RulesOnly}, env.Stderr, watch)
	var kept *load.KeptCorpusError
	if errors.As(err, &kept) {
		return &exitError{code: 2, msg: kept.Error()} // what was asked cannot be done in this state of the base
	}
	if err != nil {
		return err
	}
	// What the gates count: a committed output (a rules file) is what a
	// fresh clone and a commit can be wrong about; .cairn/ is git-ignored
	// and made wherever it is needed, so only --artifacts counts it.
	listed := res.sync.Changes
	if !c.Artifacts {
		listed = committedChanges(listed)
	}
	if c.Format == "json" {
		reported := listed // a check reports what it compared
		if !c.Check {
			reported = res.sync.Changes // a build, every file it wrote
		}
		if err := writeJSON(env.Stdout, res.report(c.Check, reported)); err != nil {
			return err
		}
	} else if c.Check || c.FailOnChange {
		for _, ch := range listed {
			fmt.Fprintf(env.Stdout, "%s\t%s\n", ch.Action, escape.Line(ch.Path))
		}
	}
	switch {
	case c.Check && len(listed) > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("%d file(s) would change; run `cairn build` to bring them up to date%s", len(listed), commitHint(listed))}
	case c.Check:
		if !c.Quiet && c.Format != "json" {
			fmt.Fprintln(env.Stderr, "cairn: up to date: a build would change no "+checkedOutputs(c.Artifacts))
		}
		return nil
	}
	if !c.Quiet && c.Format != "json" {
		fmt.Fprintln(env.Stderr, "cairn: "+res.summary())
	}
	if c.FailOnChange && len(listed) > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("the build wrote %d rules file(s); review them, stage them and commit again", len(listed))}
	}
	return nil
}

// committedChanges keeps the changes to committed outputs (committed).
func committedChanges(changes []artifacts.Change) []artifacts.Change {
	var kept []artifacts.Change
	for _, ch := range changes {
		if committed(ch.Path) {
			kept = append(kept, ch)
		}
	}
	return kept
}

// committed reports whether an output lies outside the artifacts folder:
// a rules file, which is committed with the base.
func committed(path string) bool { return !strings.HasPrefix(path, artifacts.Dir+"/") }

// commitHint is what a failed check adds when a committed file is stale:
// the build writes it, but it only counts once it is committed.
func commitHint(changes []artifacts.Change) string {
	if len(committedChanges(changes)) == 0 {
		return ""
	}
	return ", and commit the rules files it writes"
}

// checkedOutputs names what a passing check compared.
func checkedOutputs(withArtifacts bool) string {
	if withArtifacts {
		return "rules file or artifact"
	}
	return "rules file"
}

// buildReport is `cairn build --format json`: what ran and what was (or,
// with --check, would be) written.
type buildReport struct {
	Check bool     `json:"check"`
	Ran   []string `json:"ran"`
	Kept  []string `json:"kept"`
	// Stale names the kept stages whose inputs changed since they were
	// made: --rules-only kept them as they were.
	Stale []string `json:"stale"`
	Items int      `json:"items"`
	Edges int      `json:"edges"`
	// Spliced counts the record documents and pages the index and graph
	// took anew while keeping the rest of the previous build's; 0 when
	// they were built whole.
	Spliced   int           `json:"spliced"`
	Changes   []buildChange `json:"changes"`
	Unchanged int           `json:"unchanged"`
}

// buildChange is one file of a buildReport. Committed marks a rules
// file, which is committed with the base; the rest are under .cairn/.
type buildChange struct {
	Action    string `json:"action"`
	Path      string `json:"path"`
	Committed bool   `json:"committed"`
}

func (r buildResult) report(check bool, listed []artifacts.Change) buildReport {
	rep := buildReport{Check: check, Ran: nonNil(r.out.Ran), Kept: nonNil(r.out.Skipped), Stale: nonNil(r.out.Stale), Items: r.out.Items, Edges: r.out.Edges,
		Spliced: r.out.Spliced, Changes: []buildChange{}, Unchanged: len(r.sync.Unchanged)}
	for _, ch := range listed {
		rep.Changes = append(rep.Changes, buildChange{Action: ch.Action, Path: ch.Path,
			Committed: committed(ch.Path)})
	}
	return rep
}

// nonNil makes an empty list print as [] rather than null in JSON.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// buildResult is what one build did.
type buildResult struct {
	out  stages.Output
	sync artifacts.Result
}

// changedFiles says how many changed files a build spliced.
func changedFiles(n int) string {
	if n == 1 {
		return "1 changed file"
	}
	return fmt.Sprintf("%d changed files", n)
}

func (r buildResult) summary() string {
	if len(r.sync.Changes) == 0 && len(r.out.Ran) == 0 {
		return "nothing to do: every stage is current and no file was rewritten"
	}
	var b strings.Builder
	if len(r.out.Ran) > 0 {
		fmt.Fprintf(&b, "ran %s", strings.Join(r.out.Ran, ", "))
		switch {
		case r.out.Spliced > 0:
			fmt.Fprintf(&b, " (%d items, %d edges; %s spliced into the previous build)", r.out.Items, r.out.Edges, changedFiles(r.out.Spliced))
		case r.out.Items > 0:
			fmt.Fprintf(&b, " (%d items, %d edges)", r.out.Items, r.out.Edges)
		}
	}
	if len(r.out.Skipped) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "kept %s", strings.Join(r.out.Skipped, ", "))
		if len(r.out.Stale) > 0 {
			fmt.Fprintf(&b, " (%s as the last build made them: queries read what changed since anew, until cairn build)", strings.Join(r.out.Stale, ", "))
		}
	}
	counts := map[string]int{}
	for _, c := range r.sync.Changes {
		counts[c.Action]++
	}
	fmt.Fprintf(&b, "; %d created, %d updated, %d deleted, %d unchanged",
		counts[artifacts.ActionCreate], counts[artifacts.ActionUpdate], counts[artifacts.ActionDelete], len(r.sync.Unchanged))
	return b.String()
}

// buildBase builds the base at root (package builder), evaluating
// governance windows at asOf; with check it only compares. It prints the
// notices, the diagnostics and the warnings to stderr; base mistakes exit
// 2.
func buildBase(root string, asOf time.Time, check bool, stderr io.Writer, watch buildWatch) (buildResult, error) {
	return runBuild(builder.Options{Root: root, AsOf: asOf, Check: check}, stderr, watch)
}

// buildLocked is buildBase for a caller that holds the base lock already.
func buildLocked(root string, asOf time.Time, check bool, stderr io.Writer, watch buildWatch) (buildResult, error) {
	return runBuild(builder.Options{Root: root, AsOf: asOf, Check: check, Locked: true}, stderr, watch)
}

// runBuild runs one build and prints what it has to say.
func runBuild(opts builder.Options, stderr io.Writer, watch buildWatch) (buildResult, error) {
	// The progress line goes before anything else is printed, on every
	// return.
	defer watch.progress.Done()
	opts.ToolVersion, opts.Mark, opts.Progress = Version, watch.mark, watch.progress.Advance
	res, err := builder.Run(context.Background(), opts)
	watch.progress.Done()
	for _, n := range res.Notices {
		fmt.Fprintln(stderr, "cairn: warning: "+n)
	}
	var derr *diag.Errors
	if errors.As(err, &derr) {
		for _, d := range derr.Diagnostics {
			fmt.Fprintln(stderr, d.String())
		}
		return buildResult{}, derr
	}
	for _, d := range res.Out.Warnings {
		fmt.Fprintln(stderr, d.String())
	}
	if err != nil {
		return buildResult{}, err
	}
	return buildResult{out: res.Out, sync: res.Sync}, nil
}

// buildWatch is what follows a build as it runs, each part nil when not
// asked for: the --timings clock and the progress display.
type buildWatch struct {
	clock    *stageClock
	progress *progress
}

// mark is stages.Input.Mark: a stage has ended.
func (w buildWatch) mark(stage string) {
	if w.clock != nil {
		w.progress.Clear() // the clock prints a line of its own
		w.clock.mark(stage)
	}
	w.progress.Ended(stage)
}

// stageClock prints the time each stage took; a nil clock does nothing.
type stageClock struct {
	w    io.Writer
	last time.Time
}

func newStageClock(w io.Writer) *stageClock { return &stageClock{w: w, last: time.Now()} }

func (c *stageClock) mark(stage string) {
	if c == nil {
		return
	}
	now := time.Now()
	fmt.Fprintf(c.w, "cairn: %-8s %6d ms\n", stage, now.Sub(c.last).Milliseconds())
	c.last = now
}
