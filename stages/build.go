// Package stages chains the build pipeline: load → project → index → graph
// → usage → emit (rules joins between usage and emit). Each stage is a
// package with one Run taking a plain value and returning one; Build calls
// them in order, skips the stages whose input key is unchanged and whose
// outputs are intact, and returns the files Sync should make current. It
// writes nothing itself.
package stages

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/emit"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/usage"
)

// Stage names, as recorded in the manifest.
const (
	StageIndex      = "index"
	StageGraph      = "graph"
	StageGovernance = "governance" // validation only; its outputs come with the rules stage
	StageUsage      = "usage"      // term usage counts, after content validation
)

// groupStages says which stages each load group feeds: a group is parsed
// again only when one of its stages must run.
var groupStages = map[string][]string{
	load.GroupCorpus:     {StageIndex, StageGraph},
	load.GroupGovernance: {StageGovernance},
	load.GroupContent:    {StageUsage},
}

// Input is what a build reads.
type Input struct {
	// FS is the base root.
	FS fs.FS
	// Stat is this machine's stat cache (may be nil).
	Stat artifacts.StatCache
	// Previous is the last build's manifest, nil when there is none or it
	// cannot be read.
	Previous *artifacts.Manifest
	// Intact reports whether an output the previous manifest names is on
	// disk with the size and hash it records. Nil means none is.
	Intact func(path string) bool
	// ToolVersion is recorded in the manifest.
	ToolVersion string
	// Mark, when set, is called as each stage ends, with the stage's name.
	// The caller may read its clock there; the build itself never does.
	Mark func(stage string)
}

// Output is a finished build, ready for artifacts.Sync or Diff.
type Output struct {
	Plan artifacts.Plan
	// Stat is the refreshed stat cache, to save after Sync.
	Stat artifacts.StatCache
	// Ran and Skipped name the stages by what happened to them.
	Ran, Skipped []string
	// Warnings are non-fatal diagnostics, sorted.
	Warnings []diag.Diagnostic
	// Items and Edges count what the index and graph hold (zero
	// when those stages were skipped).
	Items, Edges int
	// Config is the configuration the build decoded, for the config cache
	// queries read (load.EncodeConfigCache).
	Config model.Config
}

// Build runs the pipeline. Mistakes in the base come back as *diag.Errors
// carrying every diagnostic; nothing is planned for writing then.
func Build(ctx context.Context, in Input) (Output, error) {
	var out Output
	mark := func(stage string) {
		if in.Mark != nil {
			in.Mark(stage)
		}
	}
	current := func(stage, key string) bool {
		if in.Previous == nil || in.Intact == nil {
			return false
		}
		st, ok := in.Previous.Stage(stage)
		if !ok || st.Key != key {
			return false
		}
		for _, p := range st.Outputs {
			if !in.Intact(p) {
				return false
			}
		}
		return true
	}
	groupCurrent := func(group, key string) bool {
		for _, s := range groupStages[group] {
			if !current(s, key) {
				return false
			}
		}
		return true
	}

	loaded, err := load.Run(ctx, load.Input{FS: in.FS, Stat: in.Stat, Current: groupCurrent, Previous: in.Previous})
	if err != nil {
		return out, fmt.Errorf("load: %w", err)
	}
	mark("load")
	var ds diag.List
	ds.Merge(loaded.Diagnostics)
	out.Stat = loaded.Stat
	out.Config = loaded.Base.Config
	if len(loaded.Base.Documents)+len(loaded.Base.Pages) == 0 && ds.HasErrors() {
		return out, &diag.Errors{Diagnostics: ds.Sorted()}
	}

	corpusKey := loaded.Keys[load.GroupCorpus]
	var stagesOut []emit.Stage
	keep := func(name, key string) emit.Stage {
		st, _ := in.Previous.Stage(name)
		s := emit.Stage{Name: name, Key: key}
		for _, p := range st.Outputs {
			stamp, _ := in.Previous.Output(p)
			s.Kept = append(s.Kept, stamp)
		}
		out.Skipped = append(out.Skipped, name)
		return s
	}
	if groupCurrent(load.GroupCorpus, corpusKey) {
		if ds.HasErrors() {
			return out, &diag.Errors{Diagnostics: ds.Sorted()}
		}
		stagesOut = append(stagesOut, keep(StageIndex, corpusKey), keep(StageGraph, corpusKey))
	} else {
		// Projection runs even when loading found mistakes, on the
		// documents that did load, so that record-level mistakes are
		// reported in the same run; nothing is indexed then.
		segs, nodes, diags, err := projectCorpus(ctx, loaded.Base)
		if err != nil {
			return out, fmt.Errorf("project: %w", err)
		}
		mark("project")
		ds.Merge(diags)
		if ds.HasErrors() {
			return out, &diag.Errors{Diagnostics: ds.Sorted()}
		}
		// index and graph share nothing, so they run side by side.
		var idx index.Output
		var idxErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			idx, idxErr = index.Run(ctx, index.Input{Config: loaded.Base.Config, Segments: segs,
				Documents: loaded.Base.Documents, Bodies: loaded.Base.Bodies})
		}()
		gr, err := graph.Run(ctx, graph.Input{Config: loaded.Base.Config, Nodes: nodes})
		mark("graph")
		<-done
		mark("index")
		if idxErr != nil {
			return out, fmt.Errorf("index: %w", idxErr)
		}
		if err != nil {
			return out, fmt.Errorf("graph: %w", err)
		}
		out.Items, out.Edges = idx.Items, gr.Edges
		out.Ran = append(out.Ran, StageIndex, StageGraph)
		stagesOut = append(stagesOut,
			emit.Stage{Name: StageIndex, Key: corpusKey, Files: idx.Files},
			emit.Stage{Name: StageGraph, Key: corpusKey, Files: gr.Files})
	}
	if key := loaded.Keys[load.GroupGovernance]; current(StageGovernance, key) {
		stagesOut = append(stagesOut, keep(StageGovernance, key))
	} else {
		out.Ran = append(out.Ran, StageGovernance)
		stagesOut = append(stagesOut, emit.Stage{Name: StageGovernance, Key: key})
	}
	if key := loaded.Keys[load.GroupContent]; current(StageUsage, key) {
		stagesOut = append(stagesOut, keep(StageUsage, key))
	} else {
		// Files that load did not read again are counted from the
		// previous usage.tsv (loaded.KeptUsage).
		us, err := usage.Run(ctx, usage.Input{Terms: loaded.Base.Terms, Content: loaded.Base.Content, Kept: loaded.KeptUsage})
		if err != nil {
			return out, fmt.Errorf("usage: %w", err)
		}
		mark(StageUsage)
		out.Ran = append(out.Ran, StageUsage)
		stagesOut = append(stagesOut, emit.Stage{Name: StageUsage, Key: key, Files: us.Files})
	}

	em, err := emit.Run(ctx, emit.Input{
		ToolVersion:     in.ToolVersion,
		SemanticsDigest: loaded.SemanticsDigest,
		Inputs:          loaded.Inputs,
		Stages:          stagesOut,
	})
	if err != nil {
		return out, fmt.Errorf("emit: %w", err)
	}
	mark("emit")
	out.Plan = artifacts.Plan{Files: em.Files, Keep: em.Keep, Manifest: em.Manifest}
	if in.Previous != nil {
		for _, o := range in.Previous.Outputs {
			out.Plan.Previous = append(out.Plan.Previous, o.Path)
		}
	}
	out.Warnings = ds.Sorted()
	return out, nil
}
