package collect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// MaxParallel is how many sources run at once: enough to overlap slow
// network commands, few enough not to flood the APIs they call.
const MaxParallel = 4

// DefaultDays is how many past days `cairn collect` fills by default.
const DefaultDays = 30

// DefaultTimeout bounds one run of a source's command when the source
// names no timeout.
const DefaultTimeout = 5 * time.Minute

// Input is what a collection run is given.
type Input struct {
	// Dir is the base's folder on disk: commands run there, documents are
	// written inside it.
	Dir    string
	Config model.Config
	// Sources names the sources to collect; empty is every source the
	// configuration says how to collect.
	Sources []string
	// Today is the as-of day, midnight UTC: the first day not collected.
	Today time.Time
	// Days is how many days before Today are filled.
	Days int
	// Refresh rewrites days that are present.
	Refresh bool
	// Now is recorded as each document's collected_at.
	Now time.Time
	// Repo, when set, is the repository the git collector reads, instead
	// of the configured path or the base's own repository.
	Repo string
	// Environ is the environment a command runs in (CAIRN_SINCE and
	// CAIRN_UNTIL are added to it).
	Environ []string
}

// Output is what each source did, in the order of Input.Sources (sorted
// by name when every source was collected).
type Output struct {
	Results []Result
}

// Result is one source's collection.
type Result struct {
	Source string
	// Written lists the documents written, oldest day first.
	Written []Written
	// Present counts the days (or the snapshot) already collected and left
	// as they are.
	Present int
	// Empty counts the days the git collector found no commit on; it
	// writes no document for them.
	Empty int
	// Quiet, set by the git collector when it read its whole window and
	// found no commit in it, says where the repository's commits are.
	Quiet *Quiet
	// Skipped lists, by path, the notes the markdown collector left out of
	// its snapshot: too large, or unreadable. Files that are not notes are
	// not listed.
	Skipped []Skipped
	// BadCommits lists the commits the git collector could not read and
	// left out, in the order it met them; the others are collected.
	BadCommits []BadCommit
	// Err is what stopped the source, naming it; nil when it finished.
	Err error
}

// Quiet is where a git source's commits are when its window holds none:
// data for the command line to word as a hint.
type Quiet struct {
	// NoCommit reports a repository with no commit at all.
	NoCommit bool
	// Newest is the author day (UTC) of the newest commit before Today;
	// zero when every commit is of Today or later (or there is none).
	Newest time.Time
}

// Written is one document written.
type Written struct {
	Path  string
	Count int
}

// Failed reports whether any source failed.
func (o Output) Failed() bool {
	return slices.ContainsFunc(o.Results, func(r Result) bool { return r.Err != nil })
}

// source is one source to collect: its name, policy and what gathers it.
type source struct {
	name      string
	policy    model.SourcePolicy
	collector string // "" for a command
}

// Plan resolves the sources a run collects, refusing a name the
// configuration cannot collect. It is exported for the command line,
// which reports a wrong name as a usage error before anything runs.
func Plan(cfg model.Config, names []string) ([]string, error) {
	if len(names) == 0 {
		for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
			if collectable(name, cfg.Sources[name]) {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return nil, errors.New("no source to collect: name a built-in collector (`cairn collect git`) or give a source in cairn.yaml a run command")
		}
		return names, nil
	}
	var out []string
	for _, name := range names {
		s, declared := cfg.Sources[name]
		switch {
		case slices.Contains(out, name):
			continue
		case declared && collectable(name, s), !declared && slices.Contains(load.Collectors, name):
			out = append(out, name)
		case declared && s.Disabled:
			return nil, fmt.Errorf("source %q is not enabled in fkf.yaml, so its command is not run; set enabled: true under sources.%s to collect it", name, name)
		case declared:
			return nil, fmt.Errorf("source %q has no run command and no built-in collector, so there is nothing to run; add run: [argv…] to sources.%s in cairn.yaml", name, name)
		default:
			return nil, fmt.Errorf("no source %q: the collectable sources are %s", name, strings.Join(known(cfg), ", "))
		}
	}
	return out, nil
}

func collectable(name string, s model.SourcePolicy) bool {
	return !s.Disabled && (len(s.Run) > 0 || load.CollectorOf(name, s) != "")
}

// known lists the built-in collectors and the sources with a command.
func known(cfg model.Config) []string {
	names := slices.Clone(load.Collectors)
	for name, s := range cfg.Sources {
		if collectable(name, s) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Run collects the sources, at most MaxParallel at once. Each source's
// result goes to its own slot, so the output is in source order whatever
// the scheduling.
func Run(ctx context.Context, in Input) (Output, error) {
	names, err := Plan(in.Config, in.Sources)
	if err != nil {
		return Output{}, err
	}
	if in.Days <= 0 {
		in.Days = DefaultDays
	}
	results := make([]Result, len(names))
	slots := make(chan struct{}, MaxParallel)
	var wg sync.WaitGroup
	for i, name := range names {
		s := source{name: name, policy: in.Config.Sources[name]}
		s.collector = load.CollectorOf(name, s.policy)
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			results[i] = collectSource(ctx, in, s)
		})
	}
	wg.Wait()
	return Output{Results: results}, ctx.Err()
}

// collectSource runs one source and names it in its error.
func collectSource(ctx context.Context, in Input, s source) Result {
	var res Result
	var err error
	switch s.collector {
	case "git":
		res, err = collectGit(ctx, in, s)
	case "markdown":
		res, err = collectMarkdown(in, s)
	default:
		res, err = collectCommand(ctx, in, s)
	}
	res.Source = s.name
	if err != nil {
		res.Err = fmt.Errorf("source %s: %w", s.name, err)
	}
	return res
}

// layerOf is the layer a source's documents go to.
func layerOf(s source) string {
	if s.policy.Layer == model.LayerIndex || s.collector == "markdown" {
		return model.LayerIndex
	}
	return model.LayerEvents
}

// docPath is where a source's document for day goes (day is ignored for
// a snapshot).
func docPath(cfg model.Config, s source, day time.Time) string {
	if layerOf(s) == model.LayerIndex {
		return path.Join(cfg.Layers.Index, s.name+".json")
	}
	return path.Join(cfg.Layers.Events, day.Format(time.DateOnly), s.name+".json")
}

// missingDays lists the days of the window that need collecting, oldest
// first: every day from Days before Today up to yesterday whose document
// is absent, or every one of them with Refresh. A document fkf wrote is
// never rewritten (see fkfDocument).
func missingDays(in Input, s source) (days []time.Time, present int, err error) {
	for n := in.Days; n >= 1; n-- {
		day := in.Today.AddDate(0, 0, -n)
		p := docPath(in.Config, s, day)
		exists, fkf, err := existing(in.Dir, p)
		switch {
		case err != nil:
			return nil, 0, err
		case fkf:
			present++ // fkf's own file: read by the build, never written by cairn
		case exists && !in.Refresh:
			present++
		default:
			days = append(days, day)
		}
	}
	return days, present, nil
}

// existing reports whether the document at p is there, and whether fkf
// wrote it (its marker is "fkf": 1), reading inside the base only.
//
// It is read the way write would write it, through real folders and as a
// regular file: a link there is an error naming it, never a document
// counted present by what it points to.
func existing(dir, p string) (exists, fkf bool, err error) {
	f, err := artifacts.OpenBaseFile(dir, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	var le *artifacts.LinkError
	if errors.As(err, &le) {
		return false, false, err
	}
	if err != nil {
		return false, false, fmt.Errorf("%w; fix its permissions or move it aside", err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	return true, fkfDocument(head[:n]), nil
}

// fkfDocument reports whether a document's first bytes carry fkf's
// marker: fkf's files are its own, and cairn only reads them.
func fkfDocument(head []byte) bool {
	s := strings.Join(strings.Fields(string(head)), "")
	return strings.Contains(s, `"fkf":1`) && !strings.Contains(s, `"cairn":1`)
}

// write validates nothing more: the caller checked the records. It
// writes the document atomically, inside the base.
func write(in Input, p string, d document) (Written, error) {
	if err := artifacts.WriteBaseFile(in.Dir, p, d.encode()); err != nil {
		return Written{}, err
	}
	return Written{Path: p, Count: len(d.Records)}, nil
}
