package read

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/load"
)

// DefaultReadLimit is how many neighbours of an entity one page of a read
// shows when no --limit is given.
const DefaultReadLimit = 20

// maxReadLimit bounds --limit: a page is for a reader, and a hub's whole
// neighbourhood is paged through, never printed at once.
const maxReadLimit = 1000

// Request is one cairn read: a URI and how to show it.
type Request struct {
	URI    string
	Format string // text or json
	// Limit is the neighbours of an entity one page shows (0: the
	// default); Cursor continues from where the previous page ended.
	Limit  int
	Cursor string
}

// Read kinds, as an answer names what it read.
const (
	kindSection    = "section"
	kindTerm       = "term"
	kindNote       = "note"
	kindSuggestion = "suggestion"
	kindOperation  = "operation" // a keep, drop or other decision of the log
	kindEntity     = "entity"
	kindVoice      = "voice"
)

// Schemes of URIs that name governance rather than the corpus.
const (
	termScheme  = "term:"
	voiceScheme = "voice:"
)

// Read answers one URI of the base at root in full: a record with its
// projected fields and its stored JSON, a page or one section of it, a
// term with its usage, an operation of the notes log, an entity with its
// neighbours, or a voice profile. Records, pages and entities are read
// from the artifacts when they are current (binary searches in the sorted
// tables) and from a scan of the base otherwise, with the same bytes but
// the index state; governance is small and always read from the base, as
// the by-location answer reads it. An unknown URI is a *UsageError naming
// the nearest URIs that exist.
func Read(ctx context.Context, root string, req Request) ([]byte, error) {
	return With(ctx, root, req, corpus.Pick, nil)
}

// With is Read with the corpus opened by open and the governance read
// through memo.
func With(ctx context.Context, root string, req Request, open corpus.Opener, memo *load.GovernanceMemo) ([]byte, error) {
	switch req.Format {
	case render.FormatText, render.FormatJSON:
	default:
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--format %q: a read is text or json", req.Format)}
	}
	switch {
	case req.Limit == 0:
		req.Limit = DefaultReadLimit
	case req.Limit < 0 || req.Limit > maxReadLimit:
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--limit %d: give a number of neighbours from 1 to %d", req.Limit, maxReadLimit)}
	}
	uri := strings.TrimSpace(req.URI)
	if uri == "" {
		return nil, &corpus.UsageError{Msg: "give a URI to read, as cairn context or cairn search prints it: cairn read wiki/release-process.md"}
	}
	r := &reader{ctx: ctx, root: root, req: req, uri: uri, open: open, memo: memo}
	defer r.close()
	a, err := r.answer()
	if verdict, again := corpus.Fallback(err, r.state); again {
		// The artifacts looked current but a read failed, or an item
		// changed since: answer from the scan, and say why, as a context
		// pack does.
		r.close()
		r.c, r.forceScan = nil, true
		r.state = verdict
		a, err = r.answer()
	}
	if err != nil {
		return nil, err
	}
	if req.Cursor != "" && a.Graph == nil {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--cursor pages the neighbours of an entity or a page, and %s is a %s; leave the cursor out", a.URI, a.Kind)}
	}
	a.Notice = render.Notice
	if req.Format == render.FormatJSON {
		return renderReadJSON(a), nil
	}
	return renderReadText(a), nil
}

// reader is one read in flight. The corpus is opened only when the URI
// needs it: a term or a voice profile is answered from governance alone.
type reader struct {
	ctx       context.Context
	root      string
	open      corpus.Opener
	memo      *load.GovernanceMemo
	req       Request
	uri       string
	c         corpus.Bodies
	state     corpus.Index
	closeFn   func()
	forceScan bool
	gov       *load.Governance
}

func (r *reader) close() {
	if r.closeFn != nil {
		r.closeFn()
		r.closeFn = nil
	}
}

// corpus opens the index or the scan, as a context pack would.
func (r *reader) corpus() (corpus.Bodies, error) {
	if r.c != nil {
		return r.c, nil
	}
	if r.forceScan {
		osRoot, err := load.OpenDir(r.root)
		if err != nil {
			return nil, err
		}
		sc, err := corpus.Scan(r.ctx, osRoot, nil)
		if err != nil {
			osRoot.Close()
			return nil, err
		}
		r.c, r.closeFn = sc, func() { osRoot.Close() }
		return r.c, nil
	}
	c, state, closeFn, err := r.open(r.ctx, r.root, nil)
	if err != nil {
		return nil, err
	}
	r.c, r.state, r.closeFn = c.(corpus.Bodies), state, closeFn
	return r.c, nil
}

// indexState is how the corpus was read, as the answer reports it.
func (r *reader) indexState() *render.IndexState {
	return &render.IndexState{Path: r.state.Path, State: string(r.state.State), Reason: r.state.Reason}
}

// governance is the base's governance, read once.
func (r *reader) governance() (*load.Governance, error) {
	if r.gov != nil {
		return r.gov, nil
	}
	osRoot, err := load.OpenDir(r.root)
	if err != nil {
		return nil, err
	}
	defer osRoot.Close()
	g := r.memo.Read(osRoot)
	if !g.ConfigOK {
		return nil, &corpus.UsageError{Msg: "cairn.yaml cannot be read: " + diag.Join(g.Diagnostics)}
	}
	r.gov = &g
	return r.gov, nil
}

// answer decides what the URI names and reads it.
func (r *reader) answer() (*Answer, error) {
	switch {
	case strings.HasPrefix(r.uri, termScheme):
		if a, ok, err := r.term(strings.TrimPrefix(r.uri, termScheme)); ok || err != nil {
			return a, err
		}
	case strings.HasPrefix(r.uri, noteScheme):
		if a, ok, err := r.target(r.uri); ok || err != nil {
			return a, err
		}
	case strings.HasPrefix(r.uri, voiceScheme):
		if a, ok, err := r.voice(strings.TrimPrefix(r.uri, voiceScheme)); ok || err != nil {
			return a, err
		}
	default:
		// An op id holds no / or : (every item URI holds a /, every
		// entity but a bare alias a :): only such a URI reads the log.
		if !strings.ContainsAny(r.uri, "/:") {
			if a, ok, err := r.operation(r.uri); ok || err != nil {
				return a, err
			}
		}
		if a, ok, err := r.item(r.uri); ok || err != nil {
			return a, err
		}
		if a, ok, err := r.entity(r.uri); ok || err != nil {
			return a, err
		}
	}
	return nil, r.unknown()
}

// canonicalURI writes a record URI's id percent-encoded, as the base's
// URIs are: a user may paste an id as the source wrote it.
func canonicalURI(uri string) string {
	path, id, ok := strings.Cut(uri, "#")
	if !ok || id == "" {
		return uri
	}
	return path + "#" + lex.EncodeID(lex.DecodeID(id))
}
