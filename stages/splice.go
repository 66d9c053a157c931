package stages

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-kb/cairn/stages/emit"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/splice"
)

// spliceShare is splice.Worth's share for the build (a variable so that
// tests can splice small bases, where one document is a large share).
var spliceShare int64 = splice.Share

// splicing decides, before anything is parsed, whether the corpus stage
// can replace the changed units in the previous build's index and graph:
// only record documents and pages changed, and the previous index and
// graph are on disk as that build wrote them. Then only the changed
// documents are parsed.
func (b *build) splicing(scanned *load.Scanned) *load.CorpusChanges {
	prev := b.in.Previous
	if b.in.whole || prev == nil || b.in.Intact == nil {
		return nil
	}
	for _, name := range []string{StageIndex, StageGraph} {
		if st, ok := prev.Stage(name); !ok || !b.intact(st) {
			return nil
		}
	}
	c, ok := scanned.CorpusChanges(prev)
	if !ok {
		return nil
	}
	if !splice.Worth(c, prev, spliceShare) {
		return nil
	}
	return &c
}

// spliceCorpus is the corpus stage when only some units changed: the
// changed documents and pages are projected and spliced into the previous
// index and graph (package splice). errWhole when the splice cannot give
// what a whole build would.
func (b *build) spliceCorpus(ctx context.Context) ([]emit.Stage, error) {
	in := splice.Input{FS: b.in.FS, Base: b.loaded.Base, Changes: *b.changes, Projected: func() { b.mark("project") }, Spool: b.in.Spool}
	if b.in.Unlocked {
		in.Written = b.in.Previous
	}
	out, err := splice.Run(ctx, in)
	if errors.Is(err, splice.ErrWhole) {
		return nil, errWhole
	}
	if err != nil {
		return nil, err
	}
	if b.ds.Merge(out.Diagnostics); b.ds.HasErrors() {
		return nil, nil
	}
	b.out.Items, b.out.Edges, b.out.Spliced = out.Items, out.Edges, len(b.changes.Documents)+len(b.changes.Pages)
	key := b.keys[load.GroupCorpus]
	gr := emit.Stage{Name: StageGraph, Key: key, Files: out.Graph}
	if out.GraphSame {
		// The edge tables on disk are the new ones already: they are kept
		// under the new key, neither compared nor written again.
		gr.Files = nil
		st, _ := b.in.Previous.Stage(StageGraph)
		for _, p := range st.Outputs {
			stamp, _ := b.in.Previous.Output(p)
			gr.Kept = append(gr.Kept, stamp)
		}
	}
	idx := emit.Stage{Name: StageIndex, Key: key, Files: out.Index}
	for _, p := range out.IndexKept {
		// On disk already, as the new index holds it: kept, not written.
		stamp, ok := b.in.Previous.Output(p)
		if !ok {
			return nil, fmt.Errorf("the splice kept %s, which the previous build did not write", p)
		}
		idx.Kept = append(idx.Kept, stamp)
	}
	return []emit.Stage{idx, gr}, nil
}

// errWhole is the splice giving way to a whole build of the corpus.
var errWhole = errors.New("the corpus must be built whole")
