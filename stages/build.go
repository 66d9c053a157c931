// Package stages chains the build pipeline: load → project → index → graph
// → usage → rules → emit. Each stage is a
// package with one Run taking a plain value and returning one; Build calls
// them in order, skips the stages whose input key is unchanged and whose
// outputs are intact, and returns the files Sync should make current. It
// writes nothing itself.
package stages

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/emit"
	"github.com/cairn-kb/cairn/stages/govern"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/memory"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/rules"
	"github.com/cairn-kb/cairn/stages/usage"
)

// Stage names, as recorded in the manifest.
const (
	StageIndex      = "index"
	StageGraph      = "graph"
	StageGovernance = "governance" // validation only; its outputs come with the rules stage
	StageUsage      = "usage"      // term usage counts, after content validation
	StageRules      = "rules"      // the rules files and rules.json
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
	// AsOf is the day governance windows are evaluated at, for the rules
	// files. The zero value is a day before every window opens.
	AsOf time.Time
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
		memory.Advise() // the heap has grown since the last stage
		if in.Mark != nil {
			in.Mark(stage)
		}
	}
	// current reports whether a stage's outputs are intact and, unless
	// key is empty, its recorded key is key.
	current := func(stage, key string) bool {
		if in.Previous == nil || in.Intact == nil {
			return false
		}
		st, ok := in.Previous.Stage(stage)
		if !ok || (key != "" && st.Key != key) {
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

	// rulesCurrent is asked by load, which reads the rules files first;
	// its answer decides below whether the rules stage runs.
	var rulesUpToDate bool
	rulesCurrent := func(key string) bool {
		rulesUpToDate = current(StageRules, "") && rulesKeyHolds(in.Previous, key, in.AsOf)
		return rulesUpToDate
	}
	loaded, err := load.Run(ctx, load.Input{FS: in.FS, Stat: in.Stat, Current: groupCurrent, Previous: in.Previous, RulesCurrent: rulesCurrent})
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
	// Every content file, read or kept: the rules stage needs each one's
	// point, not its text.
	allContent := slices.SortedFunc(slices.Values(append(slices.Clone(loaded.Base.Content), loaded.KeptContent...)),
		func(a, b model.ContentFile) int { return strings.Compare(a.Path, b.Path) })
	if key := loaded.Keys[load.GroupContent]; current(StageUsage, key) {
		stagesOut = append(stagesOut, keep(StageUsage, key))
	} else {
		// Files that load did not read again are counted from the
		// previous usage.tsv (loaded.KeptUsage).
		var files []artifacts.ContentFile
		for _, f := range allContent {
			files = append(files, artifacts.ContentFile{Path: f.Path, Point: f.Point})
		}
		us, err := usage.Run(ctx, usage.Input{Terms: loaded.Base.Terms, Content: loaded.Base.Content, Kept: loaded.KeptUsage, Files: files})
		if err != nil {
			return out, fmt.Errorf("usage: %w", err)
		}
		mark(StageUsage)
		out.Ran = append(out.Ran, StageUsage)
		stagesOut = append(stagesOut, emit.Stage{Name: StageUsage, Key: key, Files: us.Files})
	}

	if rulesUpToDate {
		st, _ := in.Previous.Stage(StageRules)
		stagesOut = append(stagesOut, keep(StageRules, st.Key))
	} else {
		ru, err := rules.Run(ctx, rules.Input{Config: loaded.Base.Config, Voices: loaded.Base.Voices,
			Terms: loaded.Base.Terms, Log: loaded.Base.Log, Content: allContent,
			RulesFiles: loaded.Base.RulesFiles, AsOf: in.AsOf})
		if err != nil {
			return out, fmt.Errorf("rules: %w", err)
		}
		mark("rules")
		ds.Merge(ru.Warnings)
		out.Ran = append(out.Ran, StageRules)
		stagesOut = append(stagesOut, emit.Stage{Name: StageRules, Files: ru.Files, Release: ru.Release, Delete: ru.Delete,
			Key: load.RulesKey(loaded.Keys[load.GroupGovernance], loaded.Keys[load.GroupContent], ru.After) + "@" + ru.From + ".." + ru.Until})
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
	out.Plan = artifacts.Plan{Files: em.Files, Keep: em.Keep, Release: em.Release, Delete: em.Delete, Manifest: em.Manifest}
	if in.Previous != nil {
		for _, o := range in.Previous.Outputs {
			out.Plan.Previous = append(out.Plan.Previous, o.Path)
		}
	}
	out.Warnings = ds.Sorted()
	return out, nil
}

// rulesKeyHolds reports whether the rules stage's recorded key holds for
// the rules key on the day asOf. The rules stage records its key as
// <rules key>@<from>..<until>: its output depends on the day only through
// the governance windows, so it stays current over the days between two
// window changes, and a build on another day of that span skips it.
func rulesKeyHolds(prev *artifacts.Manifest, key string, asOf time.Time) bool {
	if prev == nil {
		return false
	}
	st, ok := prev.Stage(StageRules)
	if !ok {
		return false
	}
	hash, span, ok := strings.Cut(st.Key, "@")
	from, until, ok2 := strings.Cut(span, "..")
	day := govern.Day(asOf)
	return ok && ok2 && hash == key && (from == "" || from <= day) && (until == "" || day <= until)
}
