// Package builder builds a base in place, as `cairn build` does: it takes
// the build lock, reads the previous manifest and this machine's stat
// cache, runs the pipeline (stages.Build), brings .cairn/ and the rules
// files up to date (artifacts.Sync), or with Check only compares them
// (artifacts.Diff), and saves the stat and configuration caches for the
// next build and the queries. The CLI is flags and printing over it.
package builder

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages"
	"github.com/cairn-kb/cairn/stages/load"
)

// Options is one build.
type Options struct {
	// Root is the base's folder.
	Root string
	// AsOf is the day governance windows are evaluated at.
	AsOf time.Time
	// Check compares what a build would write with the disk and writes
	// nothing, taking no lock.
	Check bool
	// Locked says the caller holds the base's build lock already.
	Locked bool
	// RulesOnly refreshes the rules files and keeps the index and graph
	// as the last build made them (stages.Input.RulesOnly).
	RulesOnly bool
	// ToolVersion is recorded in the manifest.
	ToolVersion string
	// Mark and Progress follow the build as stages.Input's do; Mark is
	// also called with "sync" once the files are written.
	Mark     func(stage string)
	Progress func(stage string, done, total int)
}

// Result is what a build did.
type Result struct {
	// Out is the pipeline's output (what ran, its warnings, its counts).
	Out stages.Output
	// Sync is what was written, or with Check what would be.
	Sync artifacts.Result
	// Notices are problems that did not stop the build (an unreadable
	// previous manifest, a cache that could not be saved), each a
	// sentence saying what it costs.
	Notices []string
}

// Run builds the base at opts.Root. Mistakes in the base come back as
// *diag.Errors, with nothing written; Result.Out holds the warnings
// whenever the pipeline ran, even if writing then failed.
func Run(ctx context.Context, opts Options) (Result, error) {
	if !opts.Check && !opts.Locked {
		lock, err := artifacts.AcquireLock(opts.Root, "cairn build")
		if err != nil {
			return Result{}, err
		}
		defer lock.Release()
	}
	var res Result
	start := time.Now() // before any stat is taken; see StatCache.DropRacy
	prev, err := artifacts.ReadPrevious(opts.Root)
	if err != nil {
		// prev is then nil, or holds only the outputs of a manifest of
		// another format, for Sync to delete those no longer written.
		res.Notices = append(res.Notices, fmt.Sprintf("the previous manifest is unreadable (%v); rebuilding everything", err))
	}
	dir, err := load.OpenDir(opts.Root)
	if err != nil {
		return res, err
	}
	defer dir.Close()
	cache := trustedStats(opts.Root, opts.Check)
	// A build writes its large tables into temporary files as it makes
	// them, so that they are never all in memory at once; a check writes
	// nothing and keeps them in memory. Those Sync does not commit go.
	var spool *artifacts.Spool
	if !opts.Check {
		if spool, err = artifacts.NewSpool(opts.Root); err != nil {
			return res, err
		}
		defer spool.Discard()
	}
	out, err := stages.Build(ctx, stages.Input{
		Spool:       spool,
		FS:          dir,
		Stat:        cache,
		Previous:    prev,
		Intact:      artifacts.Intact(opts.Root, prev, cache),
		ToolVersion: opts.ToolVersion,
		AsOf:        opts.AsOf,
		Mark:        opts.Mark,
		Progress:    opts.Progress,
		Unlocked:    opts.Check,
		RulesOnly:   opts.RulesOnly,
	})
	res.Out = out
	if err != nil {
		return res, err
	}
	out.Plan.Root = opts.Root
	if opts.Check {
		res.Sync, err = artifacts.Diff(out.Plan)
		return res, err
	}
	if res.Sync, err = artifacts.Sync(out.Plan); err != nil {
		return res, err
	}
	if opts.Mark != nil {
		opts.Mark("sync")
	}
	// Inputs written moments ago are hashed again next time; the outputs
	// stamped below are cairn's own, just written and hashed.
	out.Stat.DropRacy(start)
	if m, err := artifacts.DecodeManifestHead(out.Plan.Manifest.Data); err == nil {
		artifacts.StampOutputs(opts.Root, &m, out.Stat)
	}
	paths := slices.Sorted(maps.Keys(out.Stat))
	if err := artifacts.WriteStatCache(opts.Root, out.Stat, paths); err != nil {
		res.Notices = append(res.Notices, fmt.Sprintf("cannot save the stat cache (%v); the next build will hash every input again", err))
	}
	// A configuration that built without mistakes is cached for queries,
	// under the hash the stat cache vouches for (none when it was racy).
	if e, ok := out.Stat[load.ConfigFile]; ok {
		cc := artifacts.ConfigCache{XXHash: e.XXHash, Data: load.EncodeConfigCache(out.Config)}
		if err := artifacts.WriteConfigCache(opts.Root, cc); err != nil {
			res.Notices = append(res.Notices, fmt.Sprintf("cannot save the config cache (%v); queries will decode cairn.yaml", err))
		}
	}
	return res, nil
}

// trustedStats is the stat cache a build may trust: this machine's, or,
// for a check, none. The check is the CI gate and proves bytes: with no
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
