package corpus

import (
	"context"
	"errors"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/load"
)

// Pick picks the index or the scan, as Open decides. The artifacts
// an indexed query reads first are read on a second core while Open
// decides: if Open finds them current and they are still the files it
// checked, they are used; otherwise they are let go and the base is
// scanned.
func Pick(ctx context.Context, root string, terms []string) (Corpus, Index, func(), error) {
	type early struct {
		f   *IndexFiles
		err error
	}
	ahead := make(chan early, 1)
	go func() {
		f, err := ReadIndexFiles(root)
		ahead <- early{f, err}
	}()
	ix, err := Open(ctx, root)
	got := <-ahead
	if got.err == nil && (err != nil || ix.State != StateUsed || !got.f.Current(root)) {
		got.f.Tables.Close()
		got.f, got.err = nil, errors.New("not used")
	}
	if err != nil {
		return nil, Index{}, nil, err
	}
	if ix.State == StateStale {
		if c, spliced, done, ok := openSpliced(ctx, root, *ix); ok {
			return c, spliced, done, nil
		}
	}
	if ix.State != StateUsed {
		return ScanAs(ctx, root, *ix, terms)
	}
	f, err := got.f, got.err
	if err != nil { // read again, now that Open has checked the files
		f, err = ReadIndexFiles(root)
	}
	var ce *artifacts.CorruptError
	switch {
	case errors.As(err, &ce):
		ix.State, ix.Reason = StateCorrupt, err.Error()
		return ScanAs(ctx, root, *ix, terms)
	case err != nil:
		return nil, *ix, nil, err
	}
	osRoot, err := load.OpenDir(root)
	if err != nil {
		f.Tables.Close()
		return nil, *ix, nil, err
	}
	ic := NewIndexCorpus(f, osRoot, ix.Config, ix.Manifest)
	return ic, *ix, func() { ic.Close(); osRoot.Close() }, nil
}

// Opener opens the corpus a request answers from, and the verdict it
// reports, with what lets it go: Pick for a process per question,
// Session.corpus for a long-lived one.
type Opener func(ctx context.Context, root string, terms []string) (Corpus, Index, func(), error)

// ScanAs opens the scan of the base at root, answering under verdict ix
// (stale, missing or corrupt).
func ScanAs(ctx context.Context, root string, ix Index, terms []string) (Corpus, Index, func(), error) {
	osRoot, err := load.OpenDir(root)
	if err != nil {
		return nil, ix, nil, err
	}
	sc, err := Scan(ctx, osRoot, terms)
	if err != nil {
		osRoot.Close()
		return nil, ix, nil, err
	}
	return sc, ix, func() { osRoot.Close() }, nil
}
