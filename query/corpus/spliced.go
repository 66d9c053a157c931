package corpus

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/tables"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/splice"
)

// openSpliced answers a base whose artifacts are stale because record
// documents or pages changed since the build: it reads those files alone
// and splices them into the artifacts on disk, in memory, as the next
// build would (package splice), so the answer is the one a scan gives at
// a fraction of its cost. ok is false when the change is not one a
// splice takes (the caller scans); the artifacts on disk are left as
// they are.
func openSpliced(ctx context.Context, root string, ix Index) (Corpus, Index, func(), bool) {
	ic, dir, ix, ok := Spliced(ctx, root, ix)
	if !ok {
		return nil, ix, nil, false
	}
	return ic, ix, func() { ic.Close(); dir.Close() }, true
}

// Spliced is openSpliced's corpus and the base folder it reads, for
// a caller that keeps them (a Session); the caller closes both.
func Spliced(ctx context.Context, root string, ix Index) (_ *IndexCorpus, _ *load.Dir, _ Index, ok bool) {
	prev, err := artifacts.ReadPrevious(root)
	if err != nil || prev == nil {
		return nil, nil, ix, false
	}
	stats := artifacts.ReadStatCache(root)
	if brokenStages(root, prev, stats) != "" {
		return nil, nil, ix, false // the scan says what is broken
	}
	dir, err := load.OpenDir(root)
	if err != nil {
		return nil, nil, ix, false
	}
	defer func() {
		if !ok {
			dir.Close()
		}
	}()
	// Only the changed documents and pages are read: neither an overlay
	// nor a splice needs another page (what the others supersede, the
	// index tells).
	changes, loaded, ok := changedUnits(ctx, dir, stats, prev)
	if !ok {
		return nil, nil, ix, false
	}
	n := len(changes.Documents) + len(changes.Pages)
	reason := fmt.Sprintf("; answered from the index with the %s read anew", plural(n, "changed file", "changed files"))
	if c, ok := overlaid(ctx, root, dir, ix, prev, stats, loaded, changes); ok {
		ix.spliced, ix.Reason = true, ix.Reason+reason
		return c, dir, ix, true
	}
	if !splice.Worth(changes, prev, splice.Share) {
		return nil, nil, ix, false
	}
	out, err := splice.Run(ctx, splice.Input{FS: dir, Base: loaded.Base, Changes: changes, Written: prev})
	if err != nil || hasErrors(out.Diagnostics) {
		return nil, nil, ix, false
	}
	files := map[string][]byte{}
	for _, f := range append(out.Index, out.Graph...) {
		files[f.Path] = f.Data
	}
	r, err := tables.OpenBytes(files)
	if err != nil {
		return nil, nil, ix, false
	}
	f := &IndexFiles{Tables: r, docs: r.Documents()}
	if f.bodies, err = artifacts.DecodeBodies(files[artifacts.BodiesPath]); err != nil {
		r.Close()
		return nil, nil, ix, false
	}
	ix.spliced, ix.Reason = true, ix.Reason+reason
	return NewIndexCorpus(f, dir, ix.Config, prev), dir, ix, true
}

// overlaid is the corpus of the artifacts on disk with the changed units
// laid over them (overlay), when the change is one an overlay answers;
// the files it reads are checked to be the ones manifest prev names.
func overlaid(ctx context.Context, root string, dir fs.FS, ix Index, prev *artifacts.Manifest, stats artifacts.StatCache,
	loaded load.Output, changes load.CorpusChanges) (*IndexCorpus, bool) {
	f, err := ReadIndexFiles(root)
	if err != nil {
		return nil, false
	}
	o, docs, ok := overlayChanges(ctx, f.Tables, loaded, changes)
	// The files read are the ones at their paths, and those are the
	// manifest's: no build replaced them meanwhile.
	if !ok || !f.Current(root) || brokenStages(root, prev, stats) != "" {
		f.Tables.Close()
		return nil, false
	}
	c := NewIndexCorpus(f, dir, ix.Config, prev)
	c.Tables = o
	for p, d := range docs {
		c.documents[p] = d
	}
	return c, true
}

// changedUnits scans the base for what changed since the build of
// manifest prev, and parses the changed record documents and pages. ok
// is false when anything else of the corpus changed, or the base has
// mistakes (the scan reports them).
func changedUnits(ctx context.Context, dir fs.FS, stats artifacts.StatCache, prev *artifacts.Manifest) (load.CorpusChanges, load.Output, bool) {
	scanned, err := load.Scan(ctx, load.Input{FS: dir, Stat: stats, Previous: prev})
	if err != nil {
		return load.CorpusChanges{}, load.Output{}, false
	}
	changes, ok := scanned.CorpusChanges(prev)
	if !ok {
		return changes, load.Output{}, false
	}
	scanned.Narrow(changes.Documents)
	scanned.NarrowPages(changes.Pages)
	loaded, err := scanned.Parse(ctx, []string{load.GroupCorpus})
	return changes, loaded, err == nil && !hasErrors(loaded.Diagnostics)
}

// hasErrors reports whether any diagnostic is an error.
func hasErrors(ds []diag.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == diag.Error {
			return true
		}
	}
	return false
}

// plural is n and the noun that fits it.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
