package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages"
	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/load"
)

// BuildCmd is `cairn build`.
type BuildCmd struct {
	Check   bool   `help:"Build in memory and write nothing; list every file that would change and exit 1 if any would (for CI and pre-commit)."`
	Quiet   bool   `help:"Print nothing but warnings and errors."`
	Timings bool   `help:"Print how long each stage took, to stderr."`
	AsOf    string `help:"The day governance windows are evaluated at for the rules files (default: $CAIRN_AS_OF, else today, UTC)." placeholder:"DAY"`
}

// Help is the detail under the summary of `cairn build --help`.
func (BuildCmd) Help() string {
	return `Stages whose inputs are unchanged are kept; a build that would change nothing writes nothing. A build that runs longer than a second shows its progress on stderr when that is a terminal (not with --quiet).

Examples:

    cairn build
    cairn build --check --quiet    # in CI or a pre-commit hook: exit 1 if .cairn/ or a rules file is stale`
}

// Run builds the base, or checks it with --check.
func (c *BuildCmd) Run(env *Env) error {
	root, asOf, err := baseAndDay(env, c.AsOf)
	if err != nil {
		return err
	}
	watch := buildWatch{progress: buildProgress(env.Stderr, c.Quiet)}
	if c.Timings {
		watch.clock = newStageClock(env.Stderr)
	}
	res, err := buildBase(root, asOf, c.Check, env.Stderr, watch)
	if err != nil {
		return err
	}
	if c.Check {
		for _, ch := range res.sync.Changes {
			fmt.Fprintf(env.Stdout, "%s\t%s\n", ch.Action, ch.Path)
		}
		if len(res.sync.Changes) > 0 {
			return &exitError{code: 1, msg: fmt.Sprintf("%d file(s) would change; run `cairn build` to bring them up to date", len(res.sync.Changes))}
		}
		if !c.Quiet {
			fmt.Fprintln(env.Stderr, "cairn: up to date: a build would change nothing")
		}
		return nil
	}
	if !c.Quiet {
		fmt.Fprintln(env.Stderr, "cairn: "+res.summary())
	}
	return nil
}

// buildResult is what one build did.
type buildResult struct {
	out  stages.Output
	sync artifacts.Result
}

func (r buildResult) summary() string {
	if len(r.sync.Changes) == 0 && len(r.out.Ran) == 0 {
		return "nothing to do: every stage is current and no file was rewritten"
	}
	var b strings.Builder
	if len(r.out.Ran) > 0 {
		fmt.Fprintf(&b, "ran %s", strings.Join(r.out.Ran, ", "))
		if r.out.Items > 0 {
			fmt.Fprintf(&b, " (%d items, %d edges)", r.out.Items, r.out.Edges)
		}
	}
	if len(r.out.Skipped) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "kept %s", strings.Join(r.out.Skipped, ", "))
	}
	counts := map[string]int{}
	for _, c := range r.sync.Changes {
		counts[c.Action]++
	}
	fmt.Fprintf(&b, "; %d created, %d updated, %d deleted, %d unchanged",
		counts[artifacts.ActionCreate], counts[artifacts.ActionUpdate], counts[artifacts.ActionDelete], len(r.sync.Unchanged))
	return b.String()
}

// buildBase runs the pipeline on the base at root, evaluating governance
// windows at asOf. With check it only diffs; otherwise it takes the build
// lock, syncs and saves the stat cache.
// Diagnostics are printed to stderr; base mistakes exit 2.
func buildBase(root string, asOf time.Time, check bool, stderr io.Writer, watch buildWatch) (buildResult, error) {
	if !check {
		lock, err := artifacts.AcquireLock(root, "cairn build")
		if err != nil {
			return buildResult{}, err
		}
		defer lock.Release()
	}
	return buildLocked(root, asOf, check, stderr, watch)
}

// buildLocked is buildBase for a caller that holds the base lock already
// (or checks, which needs none).
func buildLocked(root string, asOf time.Time, check bool, stderr io.Writer, watch buildWatch) (buildResult, error) {
	var res buildResult
	// The line goes before anything else is printed, on every return.
	defer watch.progress.Done()
	start := time.Now() // before any stat is taken; see StatCache.DropRacy
	prev, err := artifacts.ReadPrevious(root)
	if err != nil {
		// prev is then nil, or holds only the outputs of a manifest of
		// another format, for Sync to delete those no longer written.
		fmt.Fprintf(stderr, "cairn: the previous manifest is unreadable (%v); rebuilding everything\n", err)
	}
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return res, err
	}
	defer osRoot.Close()
	cache := trustedStats(root, check)
	out, err := stages.Build(context.Background(), stages.Input{
		FS:          osRoot.FS(),
		Stat:        cache,
		Previous:    prev,
		Intact:      artifacts.Intact(root, prev, cache),
		ToolVersion: Version,
		AsOf:        asOf,
		Mark:        watch.mark,
		Progress:    watch.progress.Advance,
	})
	var derr *diag.Errors
	if errors.As(err, &derr) {
		watch.progress.Done()
		for _, d := range derr.Diagnostics {
			fmt.Fprintln(stderr, d.String())
		}
		return res, derr
	}
	if err != nil {
		return res, err
	}
	if len(out.Warnings) > 0 {
		watch.progress.Clear() // drawn again as the sync ends
	}
	for _, d := range out.Warnings {
		fmt.Fprintln(stderr, d.String())
	}
	res.out = out
	out.Plan.Root = root
	if check {
		res.sync, err = artifacts.Diff(out.Plan)
		return res, err
	}
	res.sync, err = artifacts.Sync(out.Plan)
	if err != nil {
		return res, err
	}
	watch.mark("sync")
	watch.progress.Done()
	// Inputs written moments ago are hashed again next time; the outputs
	// stamped below are cairn's own, just written and hashed.
	out.Stat.DropRacy(start)
	if m, err := artifacts.DecodeManifestHead(out.Plan.Manifest.Data); err == nil {
		artifacts.StampOutputs(root, &m, out.Stat)
	}
	paths := slices.Sorted(maps.Keys(out.Stat))
	if err := artifacts.WriteStatCache(root, out.Stat, paths); err != nil {
		fmt.Fprintf(stderr, "cairn: warning: cannot save the stat cache (%v); the next build will hash every input again\n", err)
	}
	// A configuration that built without mistakes is cached for queries,
	// under the hash the stat cache vouches for (none when it was racy).
	if e, ok := out.Stat[load.ConfigFile]; ok {
		cc := artifacts.ConfigCache{XXHash: e.XXHash, Data: load.EncodeConfigCache(out.Config)}
		if err := artifacts.WriteConfigCache(root, cc); err != nil {
			fmt.Fprintf(stderr, "cairn: warning: cannot save the config cache (%v); queries will decode cairn.yaml\n", err)
		}
	}
	return res, nil
}

// trustedStats is the stat cache a build may trust: this machine's, or,
// for --check, none. The check is the CI gate and proves bytes: with no
// stat to vouch for a file, every input is hashed to make the build keys
// and every output and rules file is hashed against the manifest
// (artifacts.Intact), so an edit that kept a file's size and modification
// time is found and listed. A query trusts the stats (see query.Open).
func trustedStats(root string, check bool) artifacts.StatCache {
	if check {
		return artifacts.StatCache{}
	}
	return artifacts.ReadStatCache(root)
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
