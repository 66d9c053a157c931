// Package stages chains the build pipeline: load → project → index → graph
// → usage → rules → emit. Each stage is a
// package with one Run taking a plain value and returning one; Build calls
// them in order, skips the stages whose input key is unchanged and whose
// outputs are intact, and returns the files Sync should make current. It
// writes nothing itself but the temporary files of the spool it may be
// given (Input.Spool), which Sync commits.
package stages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/emit"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
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
	// Progress, when set, is called as a long stage advances: "load" with
	// the files parsed out of the files to parse, "project" with the
	// record documents projected out of all of them. It is called once per
	// file or document, never from two goroutines at once, and throttles
	// nothing: that is the caller's to do.
	Progress func(stage string, done, total int)

	// Unlocked says the caller holds no build lock (a --check): a build
	// may write the artifacts while this one reads them, so a splice checks
	// what it read of them against the previous manifest.
	Unlocked bool

	// RulesOnly refreshes the rules files and what they are made from
	// (governance, usage), and keeps the index and graph as the previous
	// build made them, stale or not: kapi's files-only sync, for a rules
	// change that must not wait for the corpus. The manifest then records
	// the corpus inputs that build read (load.Scanned.KeepCorpus), so
	// that queries and the next build see what changed since. Without a
	// previous build whose index is intact and made with this
	// configuration, the build fails with a *load.KeptCorpusError.
	RulesOnly bool

	// Spool, when set, is where the corpus stage writes its large tables
	// as it encodes them (artifacts.Spool): the only writing a build
	// does, into temporary files that artifacts.Sync commits. Nil keeps
	// every output in memory.
	Spool *artifacts.Spool

	// whole makes the corpus stage index the whole corpus, never splice.
	whole bool
}

// Output is a finished build, ready for artifacts.Sync or Diff.
type Output struct {
	Plan artifacts.Plan
	// Stat is the refreshed stat cache, to save after Sync.
	Stat artifacts.StatCache
	// Ran and Skipped name the stages by what happened to them. Stale
	// names those of Skipped that a RulesOnly build kept although their
	// inputs changed.
	Ran, Skipped, Stale []string
	// Warnings are non-fatal diagnostics, sorted.
	Warnings []diag.Diagnostic
	// Items and Edges count what the index and graph hold (zero
	// when those stages were skipped).
	Items, Edges int
	// Spliced counts the record documents and pages the corpus stage
	// spliced into the previous index and graph; 0 when it indexed the
	// whole corpus or did not run.
	Spliced int
	// Config is the configuration the build decoded, for the config cache
	// queries read (load.EncodeConfigCache).
	Config model.Config
}

// A stage is one step of the pipeline as Build runs it.
type stage struct {
	// name is what errors and Mark call it.
	name string
	// records names the manifest stages it writes, all with one key; it
	// is current only when every one of them is.
	records []string
	// group is the load group whose key is its key; "" for the rules
	// stage, whose key also spans the days its answer holds (rulesKeyHolds).
	group string
	// reads lists the groups it needs parsed when it runs.
	reads []string
	run   func(b *build, ctx context.Context) ([]emit.Stage, error)
}

// pipeline is the stages in the order they run. The governance stage
// only records that governance was validated, which load does; usage and
// the rules read content and the terms.
var pipeline = []stage{
	{name: "corpus", records: []string{StageIndex, StageGraph}, group: load.GroupCorpus, reads: []string{load.GroupCorpus}, run: (*build).corpus},
	{name: StageGovernance, records: []string{StageGovernance}, group: load.GroupGovernance, reads: []string{load.GroupGovernance}, run: (*build).governance},
	{name: StageUsage, records: []string{StageUsage}, group: load.GroupContent, reads: []string{load.GroupContent}, run: (*build).usage},
	{name: StageRules, records: []string{StageRules}, reads: []string{load.GroupGovernance, load.GroupContent}, run: (*build).rules},
}

// Build runs the pipeline. Mistakes in the base come back as *diag.Errors
// carrying every diagnostic; nothing is planned for writing then.
func Build(ctx context.Context, in Input) (Output, error) {
	b := &build{in: in}
	scanned, err := load.Scan(ctx, load.Input{FS: in.FS, Stat: in.Stat, Previous: in.Previous, Progress: b.progress("load")})
	if err != nil {
		return b.out, fmt.Errorf("load: %w", err)
	}
	// What is current is decided on the keys alone, before parsing: a
	// group is parsed only for the stages that must run.
	b.keys, b.rulesKey = scanned.Keys, scanned.RulesKey
	current := make([]bool, len(pipeline))
	var groups []string
	for i, s := range pipeline {
		current[i] = b.current(s)
		if !current[i] && i == 0 && in.RulesOnly {
			if err := b.keepStale(s); err != nil {
				return b.out, err
			}
			current[i] = true
		}
		if !current[i] {
			groups = append(groups, s.reads...)
		}
	}
	if in.RulesOnly {
		if b.asBuilt, err = scanned.KeepCorpus(in.Previous); err != nil {
			return b.out, err
		}
	} else if !current[0] {
		if b.changes = b.splicing(scanned); b.changes != nil {
			scanned.Narrow(b.changes.Documents)
			scanned.NarrowPages(b.changes.Pages)
		} else {
			// The corpus is indexed whole: each record document is read
			// as it is projected (projectCorpus), not all first.
			scanned.DeferDocuments()
			b.deferred = scanned
		}
	}
	if b.loaded, err = scanned.Parse(ctx, groups); err != nil {
		return b.out, fmt.Errorf("load: %w", err)
	}
	if b.loaded.Keys != nil {
		b.keys = b.loaded.Keys // with the keys of groups whose parse hashed them
	}
	b.mark("load")
	b.ds.Merge(b.loaded.Diagnostics)
	b.out.Stat, b.out.Config = b.loaded.Stat, b.loaded.Base.Config
	if len(b.loaded.Base.Documents)+len(b.loaded.Base.Pages) == 0 && b.ds.HasErrors() {
		return b.out, &diag.Errors{Diagnostics: b.ds.Sorted()}
	}
	var stages []emit.Stage
	for i, s := range pipeline {
		if current[i] {
			stages = append(stages, b.keep(s)...)
			b.out.Skipped = append(b.out.Skipped, s.records...)
		} else {
			done, err := s.run(b, ctx)
			if errors.Is(err, errWhole) {
				in.whole = true
				return Build(ctx, in)
			}
			if err != nil {
				return b.out, fmt.Errorf("%s: %w", s.name, err)
			}
			stages = append(stages, done...)
			b.out.Ran = append(b.out.Ran, s.records...)
			b.mark(s.name)
		}
		// Mistakes stop the build before the next stage: loading's, once
		// the corpus stage has added the records' own.
		if b.ds.HasErrors() {
			return b.out, &diag.Errors{Diagnostics: b.ds.Sorted()}
		}
	}
	inputs := b.loaded.Inputs
	if b.asBuilt != nil {
		inputs = b.asBuilt
	}
	em, err := emit.Run(ctx, emit.Input{ToolVersion: in.ToolVersion, SemanticsDigest: b.loaded.SemanticsDigest,
		Inputs: inputs, Stages: stages})
	if err != nil {
		return b.out, fmt.Errorf("emit: %w", err)
	}
	b.mark("emit")
	b.out.Plan = artifacts.Plan{Files: em.Files, Keep: em.Keep, Release: em.Release, Delete: em.Delete, Manifest: em.Manifest,
		Swept: []string{load.LogFile(b.loaded.Base.Config.WithDefaults())}}
	if in.Previous != nil {
		b.out.Plan.Was = make(map[string]string, len(in.Previous.Outputs))
		for _, o := range in.Previous.Outputs {
			b.out.Plan.Previous = append(b.out.Plan.Previous, o.Path)
			b.out.Plan.Was[o.Path] = o.XXHash
		}
	}
	b.out.Warnings = b.ds.Sorted()
	return b.out, nil
}

// build is one run of Build: what its stages share.
type build struct {
	in       Input
	keys     map[string]string // each load group's key
	rulesKey string
	loaded   load.Output
	ds       diag.List
	out      Output
	content  []model.ContentFile   // every content file, read or kept; see allContent
	changes  *load.CorpusChanges   // the units the corpus stage splices, nil to index it whole
	asBuilt  []artifacts.FileStamp // a RulesOnly build's inputs (load.Scanned.KeepCorpus)
	deferred *load.Scanned         // set when the corpus stage reads the record documents itself
}

func (b *build) mark(stage string) {
	if b.in.Mark != nil {
		b.in.Mark(stage)
	}
}

// progress is Input.Progress for one stage, nil when there is none.
func (b *build) progress(stage string) func(done, total int) {
	if b.in.Progress == nil {
		return nil
	}
	return func(done, total int) { b.in.Progress(stage, done, total) }
}

// current reports whether the previous build recorded every manifest
// stage of s with the key s has now and its outputs are intact.
func (b *build) current(s stage) bool {
	prev := b.in.Previous
	if prev == nil || b.in.Intact == nil {
		return false
	}
	for _, name := range s.records {
		st, ok := prev.Stage(name)
		if !ok || (s.group != "" && st.Key != b.keys[s.group]) || !b.intact(st) {
			return false
		}
	}
	return s.group != "" || rulesKeyHolds(prev, b.rulesKey, b.in.AsOf)
}

// intact reports whether every output the previous build recorded for a
// stage is on disk as it wrote it.
func (b *build) intact(st artifacts.StageStamp) bool {
	for _, p := range st.Outputs {
		if !b.in.Intact(p) {
			return false
		}
	}
	return true
}

// keepStale lets a RulesOnly build keep stage s although its key changed,
// when the previous build recorded its outputs and they are intact.
func (b *build) keepStale(s stage) error {
	if b.in.Previous == nil || b.in.Intact == nil {
		return &load.KeptCorpusError{Reason: "there is no previous build whose index it could keep"}
	}
	for _, name := range s.records {
		st, ok := b.in.Previous.Stage(name)
		if !ok {
			return &load.KeptCorpusError{Reason: "the last build recorded no " + name + " stage"}
		}
		for _, p := range st.Outputs {
			if !b.in.Intact(p) {
				return &load.KeptCorpusError{Reason: p + " is not as the last build wrote it"}
			}
		}
	}
	b.out.Stale = append(b.out.Stale, s.records...)
	return nil
}

// keep records a current stage as the previous build left it.
func (b *build) keep(s stage) []emit.Stage {
	var out []emit.Stage
	for _, name := range s.records {
		st, _ := b.in.Previous.Stage(name)
		k := emit.Stage{Name: name, Key: st.Key}
		for _, p := range st.Outputs {
			stamp, _ := b.in.Previous.Output(p)
			k.Kept = append(k.Kept, stamp)
		}
		out = append(out, k)
	}
	return out
}

// allContent is every content file, read or kept, sorted: usage and the
// rules need each one's point, not its text.
func (b *build) allContent() []model.ContentFile {
	if b.content == nil {
		b.content = slices.SortedFunc(slices.Values(append(slices.Clone(b.loaded.Base.Content), b.loaded.KeptContent...)),
			func(x, y model.ContentFile) int { return strings.Compare(x.Path, y.Path) })
	}
	return b.content
}

// corpus projects the records and pages, then indexes and graphs them.
// Projection runs even when loading found mistakes, on the documents that
// did load, so that record-level mistakes are reported in the same run;
// nothing is indexed then.
func (b *build) corpus(ctx context.Context) ([]emit.Stage, error) {
	if b.changes != nil {
		return b.spliceCorpus(ctx)
	}
	base := b.loaded.Base
	scratch := b.in.Spool.Scratch(artifacts.DocsPath)
	defer scratch.Remove()
	var read func(model.Document, *diag.List) (model.Document, bool)
	if b.deferred != nil {
		read = b.deferred.ReadDocument
	}
	segs, runs, docs, diags, err := projectCorpus(ctx, base, read, scratch, b.progress("project"))
	if err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	if b.deferred != nil {
		// The documents' reads stamped the ones the stat cache did not
		// vouch for: the inputs and keys are complete now.
		b.loaded.Stat, b.loaded.Inputs, b.loaded.Keys = b.deferred.Settle()
		b.keys, b.out.Stat = b.loaded.Keys, b.loaded.Stat
	}
	b.mark("project")
	if b.ds.Merge(diags); b.ds.HasErrors() {
		return nil, nil
	}
	// index and graph share nothing, so they run side by side.
	var idx index.Output
	var idxErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		idx, idxErr = index.Run(ctx, index.Input{Config: base.Config, Segments: segs, Documents: docs, Bodies: base.Bodies, Spool: b.in.Spool})
	}()
	gr, err := graph.Run(ctx, graph.Input{Config: base.Config, Runs: runs, Spool: b.in.Spool})
	<-done
	if idxErr != nil {
		return nil, fmt.Errorf("index: %w", idxErr)
	}
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	b.out.Items, b.out.Edges = idx.Items, gr.Edges
	key := b.keys[load.GroupCorpus]
	return []emit.Stage{{Name: StageIndex, Key: key, Files: idx.Files}, {Name: StageGraph, Key: key, Files: gr.Files}}, nil
}

func (b *build) governance(context.Context) ([]emit.Stage, error) {
	return []emit.Stage{{Name: StageGovernance, Key: b.keys[load.GroupGovernance]}}, nil
}

// usage counts the terms in the content files; those load did not read
// again are counted from the previous usage.tsv (loaded.KeptUsage).
func (b *build) usage(ctx context.Context) ([]emit.Stage, error) {
	var files []artifacts.ContentFile
	for _, f := range b.allContent() {
		files = append(files, artifacts.ContentFile{Path: f.Path, Point: f.Point})
	}
	base := b.loaded.Base
	us, err := usage.Run(ctx, usage.Input{Terms: base.Terms, Content: base.Content, Kept: b.loaded.KeptUsage, Files: files})
	if err != nil {
		return nil, err
	}
	return []emit.Stage{{Name: StageUsage, Key: b.keys[load.GroupContent], Files: us.Files}}, nil
}

func (b *build) rules(ctx context.Context) ([]emit.Stage, error) {
	base := b.loaded.Base
	ru, err := rules.Run(ctx, rules.Input{Config: base.Config, Voices: base.Voices, Terms: base.Terms, Log: base.Log,
		Content: b.allContent(), RulesFiles: base.RulesFiles, AsOf: b.in.AsOf})
	if err != nil {
		return nil, err
	}
	b.ds.Merge(ru.Warnings)
	key := load.RulesKey(b.keys[load.GroupGovernance], b.keys[load.GroupContent], ru.After) + "@" + ru.From + ".." + ru.Until
	return []emit.Stage{{Name: StageRules, Files: ru.Files, Release: ru.Release, Delete: ru.Delete, Key: key}}, nil
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
