package pack

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/receipts"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/load"
)

// DefaultBudget is the token budget of a pack when none is given.
const DefaultBudget = 4096

// Request is one context query.
type Request struct {
	Words   []string // the query, as words
	Budget  int
	Since   string // YYYY-MM-DD or ""
	Until   string // YYYY-MM-DD or ""
	AsOf    time.Time
	Pins    []string
	Expand  bool
	Explain bool
	Format  string
	// ToolVersion goes into the receipt.
	ToolVersion string
	// StateDir is cairn's machine-local state folder
	// ($XDG_STATE_HOME/cairn): receipt snapshots live in it, under
	// receipts/. Only SaveReceipt and SinceReceipt need it; the caller
	// resolves it, so that nothing here reads the environment.
	StateDir string
	// SaveReceipt saves the pack's snapshot, keyed by its input_digest,
	// for a later delta pack.
	SaveReceipt bool
	// SinceReceipt, an input_digest saved before, makes a delta pack: only
	// the items new or changed since that snapshot.
	SinceReceipt string
}

// Context answers a request against the base at root: from its artifacts
// when they are current, else from a scan of the base. It returns the
// delivered bytes. Only a request that saves a receipt (SaveReceipt), or
// makes a delta pack (SinceReceipt), touches cairn's state folder; a
// plain request writes nothing anywhere.
func Context(ctx context.Context, root string, req Request) ([]byte, error) {
	parsed, err := ParseRequest(req)
	if err != nil {
		return nil, err
	}
	if req.SinceReceipt != "" && !receipts.ValidDigest(req.SinceReceipt) {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--since-receipt %q: give the 16 hex digits of a receipt's input_digest", req.SinceReceipt)}
	}
	var store receipts.Store
	var since *receipts.Snapshot
	if req.SaveReceipt || req.SinceReceipt != "" {
		if store, err = receiptStore(req, root); err != nil {
			return nil, err
		}
	}
	if req.SinceReceipt != "" {
		if since, err = loadSince(store, req, parsed); err != nil {
			return nil, err
		}
	}
	c, state, closeFn, err := corpus.Pick(ctx, root, words.LookupWords(parsed.Terms))
	if err != nil {
		return nil, err
	}
	out, snapshot, err := AnswerOn(ctx, root, req, parsed, since, c, state, closeFn)
	if err != nil {
		return nil, err
	}
	// The pack is delivered only once its snapshot is saved: its receipt
	// says it was.
	if snapshot != nil {
		if err := store.Save(*snapshot, "cairn context --save-receipt"); err != nil {
			return nil, err
		}
	}
	if since != nil {
		// A snapshot used is kept longer; failing to say so loses nothing.
		_ = store.Use(since.Digest)
	}
	return out, nil
}

// ParseRequest checks a request's budget and format and parses its query.
func ParseRequest(req Request) (question.Parsed, error) {
	if req.Budget <= 0 {
		return question.Parsed{}, &corpus.UsageError{Msg: fmt.Sprintf("--budget %d: give a positive number of tokens", req.Budget)}
	}
	switch req.Format {
	case render.FormatText, render.FormatJSON, render.FormatJSONL:
	default:
		return question.Parsed{}, &corpus.UsageError{Msg: fmt.Sprintf("--format %q: use text, json or jsonl", req.Format)}
	}
	return question.Parse(req.Words, req.AsOf, req.Since, req.Until)
}

// AnswerOn runs a parsed request on corpus c, then lets it go with closeFn;
// since, when given, makes it a delta pack. When the artifacts looked
// current but a read of them fails, it answers from the scan instead and
// says why. It returns the snapshot to save when the request saves one.
func AnswerOn(ctx context.Context, root string, req Request, parsed question.Parsed, since *receipts.Snapshot, c corpus.Corpus, state corpus.Index, closeFn func()) ([]byte, *receipts.Snapshot, error) {
	e := newEngine(c, req, parsed, state, since)
	out, err := e.run()
	closeFn()
	if verdict, again := corpus.Fallback(err, state); again {
		osRoot, rerr := load.OpenDir(root)
		if rerr != nil {
			return nil, nil, rerr
		}
		defer osRoot.Close()
		sc, serr := corpus.Scan(ctx, osRoot, words.LookupWords(parsed.Terms))
		if serr != nil {
			return nil, nil, serr
		}
		e = newEngine(sc, req, parsed, verdict, since)
		out, err = e.run()
	}
	if err != nil {
		return nil, nil, err
	}
	return out, e.snapshot, nil
}

// engine is one pack request in flight: the ranking of its words, and
// what a pack adds to it (pins, expansion, the floor, the budget, the
// delta against a receipt).
type engine struct {
	rank.Ranking
	req   Request
	state corpus.Index

	floorOut    int                     // matched items left below the floor
	policyOut   int                     // received or private items kept out
	truncated   []string                // hub entities whose inbound edges were cut at hubInbound
	closedSeeds []string                // seeds whose neighbourhood was too large to expand
	built       map[*rank.Scored]*entry // rendered candidates, whatever the budget
	digest      string                  // the input digest, once the pool is ranked
	undated     string                  // the warning of a window without dated items (see undatedWarning)

	since    *receipts.Snapshot // the snapshot of --since-receipt; nil for a whole pack
	delta    *delta             // the pool against since (see prepareDelta)
	snapshot *receipts.Snapshot // what --save-receipt saves (see makeSnapshot)
}

// newEngine makes the engine of a pack request on corpus c under verdict
// state; since, when given, makes it a delta pack.
func newEngine(c corpus.Corpus, req Request, parsed question.Parsed, state corpus.Index, since *receipts.Snapshot) *engine {
	return &engine{Ranking: rank.Ranking{Corpus: c, Words: req.Words, AsOf: req.AsOf, Parsed: parsed}, req: req, state: state, since: since}
}

func (e *engine) run() ([]byte, error) {
	prep, err := e.prepare()
	if err != nil {
		return nil, err
	}
	return e.deliver(prep.pins, prep.ranked, prep.rejected)
}

// prepared is a ranked request, ready to be fitted to any budget.
type prepared struct {
	pins     []*rank.Scored
	ranked   []*rank.Scored
	rejected []RejectedPin
}

// prepare does everything but delivery: window, terms, scores,
// expansion, pins, order and collapse.
func (e *engine) prepare() (prepared, error) {
	var err error
	e.Window, e.Win, err = words.ResolveWindow(e.Corpus, e.Parsed.Window, e.req.AsOf)
	if err != nil {
		return prepared{}, err
	}
	if e.undated, err = e.undatedWarning(); err != nil {
		return prepared{}, err
	}
	if err := e.LookupTerms(); err != nil {
		return prepared{}, err
	}
	if err := e.Score(); err != nil {
		return prepared{}, err
	}
	event, err := eventQuestion(e.Parsed.Text, e.sourceNames)
	if err != nil {
		return prepared{}, err
	}
	e.Event = event
	if err := e.corroborate(); err != nil {
		return prepared{}, err
	}
	if e.req.Expand {
		if err := e.expand(); err != nil {
			return prepared{}, err
		}
	}
	pins, rejected, err := e.pins()
	if err != nil {
		return prepared{}, err
	}
	// The digest covers the pool as a set, in ordinal order, which the
	// pool is still in before it is ranked.
	e.digest = e.inputDigest()
	e.order()
	if pins, err = e.prepareDelta(pins); err != nil {
		return prepared{}, err
	}
	return prepared{pins: pins, ranked: e.collapse(e.admissible()), rejected: rejected}, nil
}
