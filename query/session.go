package query

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/at"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/list"
	"github.com/cairn-kb/cairn/query/pack"
	"github.com/cairn-kb/cairn/query/read"
	"github.com/cairn-kb/cairn/query/receipts"
	"github.com/cairn-kb/cairn/query/search"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/load"
)

// Session answers the requests of one long-lived process (cairn mcp)
// over the base at its root: packs, searches, reads, listings and
// by-location answers, the bytes Context, Search, Read, List and At give
// for the same request. It keeps the artifacts it read open between
// requests, holding in memory what every request reads much of (see
// Reader.Hold) and what its corpus read of items (rows, projected items,
// open documents, plans, bodies), and it reads the governance once per
// change (load.GovernanceMemo). Freshness is Open's verdict, stat-first,
// as for a process per question; where the base is watched (see
// baseWatch) the last verdict stands until something Open reads changes.
// The held artifacts answer only while that verdict finds the build
// current and every file read is still the file at its path, unchanged;
// a new build makes the session read them again, and a stale base is
// scanned. A Session is safe for concurrent use.
type Session struct {
	root string
	memo load.ConfigMemo     // the configuration, decoded once per change
	gov  load.GovernanceMemo // the governance, read once per change
	mu   sync.Mutex
	held *heldIndex
	// spliced is the stale base's changed files spliced into its artifacts
	// (openSpliced), kept for splicedFor, the verdict it answers: while the
	// watch finds nothing changed, the verdict and the splice stand.
	spliced    *heldIndex
	splicedFor *corpus.Index
	splices    atomic.Int64 // splices made, for tests

	// watch, when the platform has one, says whether the base may have
	// changed since verdict, Open's answer at watch generation
	// verdictGen: a request in a base that did not change reuses it.
	watch      *baseWatch
	watchTried bool
	verdict    *corpus.Index
	verdictGen uint64
	walks      atomic.Int64 // Open's walks of the base, for tests
}

// heldIndex is one read of the artifacts, shared by the requests that use
// it; it is closed when a newer read has replaced it and the last of them
// is done.
type heldIndex struct {
	files   *corpus.IndexFiles
	corpus  *corpus.IndexCorpus
	osRoot  *load.Dir
	ix      corpus.Index
	refs    int
	retired bool
}

// NewSession starts a session over the base at root. It reads nothing
// until the first request.
func NewSession(root string) *Session { return &Session{root: root} }

// Close lets go of the held artifacts once no request uses them, and
// stops watching the base.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.held; h != nil {
		s.held = nil
		s.retire(h)
	}
	if h := s.spliced; h != nil {
		s.spliced, s.splicedFor = nil, nil
		s.retire(h)
	}
	if s.watch != nil {
		s.watch.close()
	}
}

// fresh is Open's verdict on the base for one request. Where the base is
// watched and nothing changed since the last verdict, it is that verdict;
// otherwise Open walks the base, stat-first, as for a process per question,
// and the folders that walk reads are watched from then on.
func (s *Session) fresh(ctx context.Context) (*corpus.Index, error) {
	s.mu.Lock()
	if !s.watchTried {
		s.watch, s.watchTried = startWatch(s.root), true
	}
	w := s.watch
	s.mu.Unlock()
	walk := func() (*corpus.Index, error) {
		s.walks.Add(1)
		return corpus.OpenWith(ctx, s.root, &s.memo)
	}
	if w == nil {
		return walk()
	}
	gen, ok := w.generation()
	if !ok {
		return walk()
	}
	s.mu.Lock()
	if v := s.verdict; v != nil && s.verdictGen == gen {
		s.mu.Unlock()
		return v, nil
	}
	s.mu.Unlock()
	ix, err := walk()
	if err != nil {
		return nil, err
	}
	var tops []string
	if ix.Config.Layers.Events != "" {
		tops = load.TakenFolders(ix.Config)
	}
	added, err := w.cover(tops)
	if err != nil {
		return ix, nil // the watch broke: from now on, every request walks
	}
	if added {
		// A folder watched only now may have changed after the walk read
		// it and before its watch was there: walk again, every watch in
		// place, so that the verdict kept is one no change escaped.
		if ix, err = walk(); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	if s.verdict == nil || gen >= s.verdictGen {
		s.verdict, s.verdictGen = ix, gen
	}
	s.mu.Unlock()
	return ix, nil
}

// splice returns the spliced corpus for verdict ix, made once for it;
// nil when the change is not one a splice takes.
func (s *Session) splice(ctx context.Context, ix *corpus.Index) *heldIndex {
	s.mu.Lock()
	if h := s.spliced; h != nil && s.splicedFor == ix {
		h.refs++
		s.mu.Unlock()
		return h
	}
	s.mu.Unlock()
	c, dir, spliced, ok := corpus.Spliced(ctx, s.root, *ix)
	if !ok {
		return nil
	}
	s.splices.Add(1)
	h := &heldIndex{corpus: c, osRoot: dir, ix: spliced, refs: 1} // this request; no files on disk to recheck
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.spliced; old != nil {
		s.retire(old)
	}
	s.spliced, s.splicedFor = h, ix
	return h
}

// retire closes h now or, while requests use it, after the last one.
// s.mu is held.
func (s *Session) retire(h *heldIndex) {
	h.retired = true
	if h.refs == 0 {
		h.corpus.Close()
		h.osRoot.Close()
	}
}

// release is a request done with h.
func (s *Session) release(h *heldIndex) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.refs--
	if h.retired && h.refs == 0 {
		h.corpus.Close()
		h.osRoot.Close()
	}
}

// Context answers req as Context does, from the held artifacts when they
// are still the current build's. A session's answers write nothing, so
// delta packs, which read and save receipt snapshots, are the CLI's.
func (s *Session) Context(ctx context.Context, req pack.Request) ([]byte, error) {
	if req.SaveReceipt || req.SinceReceipt != "" {
		return nil, &corpus.UsageError{Msg: "a session answers plain packs only; save and compare receipts with cairn context --save-receipt / --since-receipt"}
	}
	parsed, err := pack.ParseRequest(req)
	if err != nil {
		return nil, err
	}
	c, state, closeFn, err := s.corpus(ctx, s.root, words.LookupWords(parsed.Terms))
	if err != nil {
		return nil, err
	}
	return plain(pack.AnswerOn(ctx, s.root, req, parsed, nil, c, state, closeFn))
}

// Read answers req as Read does, from the held artifacts when they are
// still the current build's.
func (s *Session) Read(ctx context.Context, req read.Request) ([]byte, error) {
	return read.With(ctx, s.root, req, s.corpus, &s.gov)
}

// Search answers req as Search does, from the held artifacts when they
// are still the current build's.
func (s *Session) Search(ctx context.Context, req search.Request) ([]byte, error) {
	return search.With(ctx, s.root, req, s.corpus, &s.gov)
}

// At answers req as At does, with the governance read once per change.
func (s *Session) At(ctx context.Context, req at.Request) ([]byte, error) {
	req.Governance = &s.gov
	return at.At(ctx, s.root, req)
}

// List answers req as List does, from the held artifacts when they are
// still the current build's.
func (s *Session) List(ctx context.Context, req list.Request) ([]byte, error) {
	return list.With(ctx, s.root, req, s.corpus)
}

// corpus is corpus.Pick for the session: the held artifacts while the
// build is current, read again when a new build replaced them, and the
// scan, as corpus.Pick chooses it, otherwise.
func (s *Session) corpus(ctx context.Context, root string, terms []string) (corpus.Corpus, corpus.Index, func(), error) {
	ix, err := s.fresh(ctx)
	if err != nil {
		return nil, corpus.Index{}, nil, err
	}
	if ix.State == corpus.StateStale {
		// A process per question splices the changed files in; so does
		// the session, once per verdict, until a build makes the index
		// current.
		if h := s.splice(ctx, ix); h != nil {
			return h.corpus, h.ix, func() { s.release(h) }, nil
		}
	}
	if ix.State != corpus.StateUsed {
		// Stale, missing or corrupt: the scan, under this verdict.
		return corpus.ScanAs(ctx, root, *ix, terms)
	}
	h, err := s.acquire(ix)
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) {
		// Open found the build current but its files do not read: what a
		// process per question does then, the session does too.
		return corpus.Pick(ctx, root, terms)
	}
	if err != nil {
		return nil, corpus.Index{}, nil, err
	}
	return h.corpus, h.ix, func() { s.release(h) }, nil
}

// acquire returns the held artifacts, read again when the build Open
// just checked is not the one they were read from.
func (s *Session) acquire(ix *corpus.Index) (*heldIndex, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.held; h != nil {
		if h.files.Current(s.root) && reflect.DeepEqual(h.ix.Config, ix.Config) && h.ix.Manifest.SemanticsDigest == ix.Manifest.SemanticsDigest {
			h.refs++
			return h, nil
		}
		s.held = nil
		s.retire(h)
	}
	f, err := corpus.ReadIndexFiles(s.root)
	if err != nil {
		return nil, err
	}
	// The files were read after Open checked them: they must still be the
	// files it checked, or a build replaced them in between.
	checked, err := corpus.OpenWith(context.Background(), s.root, &s.memo)
	if err != nil || checked.State != corpus.StateUsed || !f.Current(s.root) {
		f.Tables.Close()
		return nil, &artifacts.CorruptError{Path: artifacts.ManifestPath, Msg: "the artifacts changed while they were read; run the request again"}
	}
	osRoot, err := load.OpenDir(s.root)
	if err != nil {
		f.Tables.Close()
		return nil, err
	}
	// Held for many requests, the keys are decoded once and the items
	// projected are kept (both go with this read of the artifacts).
	f.Tables.Hold()
	c := corpus.NewIndexCorpus(f, osRoot, checked.Config, checked.Manifest)
	c.ItemCache = corpus.NewReadCache(corpus.ItemCacheBytes, corpus.ItemBytes)
	c.RowCache = corpus.NewReadCache(corpus.RowCacheBytes, corpus.DocBytes)
	h := &heldIndex{files: f, corpus: c, osRoot: osRoot, ix: *checked, refs: 1}
	s.held = h
	return h, nil
}

// plain is a pack without the snapshot a session never saves.
func plain(out []byte, _ *receipts.Snapshot, err error) ([]byte, error) { return out, err }
