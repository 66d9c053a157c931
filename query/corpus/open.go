package corpus

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// State says whether a query can use the artifacts, and if not, why not.
type State string

// Index states, as reported in receipt.index.
const (
	StateUsed    State = "used"    // the artifacts are current and intact
	StateMissing State = "missing" // no manifest: the base was never built here
	StateStale   State = "stale"   // an input or the ranking semantics changed since the build
	StateCorrupt State = "corrupt" // an artifact is unreadable, truncated or edited, or .cairn is a link
)

// Index is the verdict on a base's artifacts.
type Index struct {
	// Path is the manifest's path, relative to the base root.
	Path  string
	State State
	// Reason says, for any state but used, what was found.
	Reason string
	// Manifest is the decoded manifest when the state is used.
	Manifest *artifacts.Manifest
	// cfg is the base's configuration, read while checking freshness.
	Config model.Config
	// spliced marks a stale verdict answered from the artifacts with the
	// changed files spliced in (openSpliced), which falls back to the
	// scan as a used one does when the base changes under it.
	spliced bool
}

// indexStage is the build stage whose key covers everything the lexical
// index and the graph are built from.
const indexStage = "index"

// graphStage is the build stage that writes edges.tsv and edges.dst.tsv.
const graphStage = "graph"

// queriedStages are the build stages whose outputs an indexed query reads:
// the lexical index and the graph (edges.tsv, edges.dst.tsv, which every
// expanded pack and entity read follows). Both are built from the corpus
// group, under one key. Usage counts, read only by term answers, are
// checked where they are read (provenance.Usage).
var queriedStages = []string{indexStage, graphStage}

// LinkedDirReason is why the artifacts of a base whose .cairn is a link
// are not used. It names the base-relative path, as every receipt does.
const LinkedDirReason = artifacts.Dir + " is a symbolic link, which cairn never reads through; remove the link and run cairn build"

// Open decides whether the artifacts under root can answer queries. It
// never writes the base: it reads the manifest, takes the base's
// inventory stat-first (hashing only inputs whose size or mtime changed
// since this machine last saw them), and checks that every output of the
// stages a query reads (queriedStages) is on disk with its recorded size
// and hash, stat-first as well: an output whose size and modification
// time are those the stat cache recorded when the build wrote it is
// trusted unread (an edit that keeps both is found by cairn build
// --check, which hashes every output). When it had to hash inputs, it
// puts their stats in this machine's stat cache, so that the next query
// does not hash them again. A .cairn that is a
// symbolic link is not read through: the index is then corrupt, and the
// query answers from the scan.
func Open(ctx context.Context, root string) (*Index, error) { return OpenWith(ctx, root, nil) }

// OpenWith is Open, with memo remembering the configuration's decoding for a
// long-lived caller's next check (nil for none).
func OpenWith(ctx context.Context, root string, memo *load.ConfigMemo) (*Index, error) {
	ix := &Index{Path: artifacts.ManifestPath}
	start := time.Now()
	// The manifest is read on another core while the base's inventory is
	// taken: neither needs the other.
	type head struct {
		m   *artifacts.Manifest
		err error
	}
	manifest := make(chan head, 1)
	go func() {
		m, err := artifacts.ReadPreviousHead(root)
		manifest <- head{m, err}
	}()
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		<-manifest
		return nil, err
	}
	defer osRoot.Close()
	cache := artifacts.ReadStatFile(root)
	inv, err := load.Take(ctx, root, osRoot.FS(), cache, artifacts.ReadConfigCache(root), memo)
	h := <-manifest
	if err != nil {
		return nil, err
	}
	if inv.Stat != nil {
		// Best effort: a cache that cannot be written costs the next
		// query the same hashing or walk, nothing else.
		_ = cache.Refresh(root, inv.Stat, start)
	}
	m := h.m
	var linked *artifacts.LinkError
	switch err := h.err; {
	case errors.As(err, &linked):
		// Nothing was read through the link; the artifacts are as good as
		// unreadable. The reason names the base-relative path, as every
		// receipt does, not the machine's.
		ix.State, ix.Reason = StateCorrupt, LinkedDirReason
		return ix, nil
	case err != nil:
		ix.State, ix.Reason = StateCorrupt, err.Error()
		return ix, nil
	case m == nil:
		ix.State, ix.Reason = StateMissing, "no manifest; run cairn build"
		return ix, nil
	}
	ix.Config = inv.Config
	if inv.SemanticsDigest != m.SemanticsDigest {
		ix.State, ix.Reason = StateStale, "the ranking semantics changed since the build (schema weights, source policies, identities or ranking version)"
		return ix, nil
	}
	for _, name := range queriedStages {
		st, ok := m.Stage(name)
		if !ok || st.Key != inv.Keys[load.GroupCorpus] {
			ix.State, ix.Reason = StateStale, staleReason(root, inv)
			return ix, nil
		}
	}
	if reason := brokenStages(root, m, cache); reason != "" {
		ix.State, ix.Reason = StateCorrupt, reason
		return ix, nil
	}
	ix.State, ix.Manifest = StateUsed, m
	return ix, nil
}

// brokenStages is BrokenOutput over the stages a query reads, the first
// output found broken; a stage the manifest lacks is broken too.
func brokenStages(root string, m *artifacts.Manifest, cache artifacts.StatLookup) string {
	for _, name := range queriedStages {
		st, ok := m.Stage(name)
		if !ok {
			return "the manifest has no " + name + " stage"
		}
		if reason := BrokenOutput(root, m, st, cache); reason != "" {
			return reason
		}
	}
	return ""
}

// BrokenOutput says which output of stage st is not on disk with the size
// and hash m records, or "" when all are.
func BrokenOutput(root string, m *artifacts.Manifest, st artifacts.StageStamp, cache artifacts.StatLookup) string {
	intact := artifacts.Intact(root, m, cache)
	for _, p := range st.Outputs {
		if !intact(p) {
			return p + " does not match the size and hash the manifest records"
		}
	}
	return ""
}

// staleReason names the first input of the index that differs from the
// manifest: an index input, or the configuration. It reads the manifest
// again, whole: Open decoded only its head.
func staleReason(root string, inv load.Inventory) string {
	m, err := artifacts.ReadPrevious(root)
	if err != nil || m == nil {
		return "the build's input key differs and the manifest cannot be read again; run cairn build"
	}
	seen := make(map[string]bool, len(inv.Inputs))
	for i, in := range inv.Inputs {
		seen[in.Path] = true
		if g := inv.Groups[i]; g != load.GroupCorpus && !load.IsConfigFile(in.Path) {
			continue
		}
		old, ok := m.Input(in.Path)
		switch {
		case !ok:
			return in.Path + " was added since the build"
		case old.XXHash != in.XXHash:
			return in.Path + " changed since the build"
		}
	}
	for _, in := range m.Inputs {
		if !seen[in.Path] && !isNonIndexInput(in.Path, inv) {
			return in.Path + " was removed since the build"
		}
	}
	return "the build's input key differs; run cairn build"
}

// isNonIndexInput reports whether a path that vanished was outside the
// index's inputs; a removed content file does not make the index stale.
func isNonIndexInput(path string, inv load.Inventory) bool {
	l := inv.Config.Layers
	for _, dir := range []string{l.Events, l.Index, l.Wiki, l.Projects, l.Tasks, l.Bodies} {
		if len(path) > len(dir) && path[:len(dir)+1] == dir+"/" {
			return false
		}
	}
	return !load.IsConfigFile(path)
}

// changedError says that an item read to answer from the artifacts is no
// longer what the build indexed: the base changed after Open checked it.
type changedError struct{ uri string }

func (e *changedError) Error() string {
	return e.uri + " changed since the build"
}

// Fallback decides, when an answer from artifacts Open found current (or
// spliced) failed with err, whether to answer again from the scan, and under which
// verdict: stale when an item changed since the build, corrupt when an
// artifact does not read.
func Fallback(err error, state Index) (Index, bool) {
	if state.State != StateUsed && !state.spliced {
		return state, false
	}
	var ce *artifacts.CorruptError
	var changed *changedError
	switch {
	case errors.As(err, &changed):
		return Index{Path: state.Path, State: StateStale, Reason: changed.Error()}, true
	case errors.As(err, &ce):
		return Index{Path: state.Path, State: StateCorrupt, Reason: ce.Error()}, true
	}
	return state, false
}
