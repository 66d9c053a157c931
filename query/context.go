package query

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// Formats a pack can be delivered in.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatJSONL = "jsonl"
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
}

// UsageError is a request that cannot be answered as asked; exit 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode makes a bad request exit 2.
func (e *UsageError) ExitCode() int { return 2 }

// Context answers a request against the base at root: from its artifacts
// when they are current, else from a scan of the base. It returns the
// delivered bytes.
func Context(ctx context.Context, root string, req Request) ([]byte, error) {
	parsed, err := parseRequest(req)
	if err != nil {
		return nil, err
	}
	c, state, closeFn, err := openCorpus(ctx, root, lookupWords(parsed.Terms))
	if err != nil {
		return nil, err
	}
	return answerOn(ctx, root, req, parsed, c, state, closeFn)
}

// parseRequest checks a request's budget and format and parses its query.
func parseRequest(req Request) (Parsed, error) {
	if req.Budget <= 0 {
		return Parsed{}, &UsageError{Msg: fmt.Sprintf("--budget %d: give a positive number of tokens", req.Budget)}
	}
	switch req.Format {
	case FormatText, FormatJSON, FormatJSONL:
	default:
		return Parsed{}, &UsageError{Msg: fmt.Sprintf("--format %q: use text, json or jsonl", req.Format)}
	}
	return Parse(req.Words, req.AsOf, req.Since, req.Until)
}

// answerOn runs a parsed request on corpus c, then lets it go with closeFn.
// When the artifacts looked current but a read of them fails, it answers
// from the scan instead and says why.
func answerOn(ctx context.Context, root string, req Request, parsed Parsed, c corpus, state Index, closeFn func()) ([]byte, error) {
	e := &engine{c: c, req: req, parsed: parsed, state: state}
	out, err := e.run()
	closeFn()
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) && state.State == StateUsed {
		osRoot, rerr := os.OpenRoot(root)
		if rerr != nil {
			return nil, rerr
		}
		defer osRoot.Close()
		sc, serr := openScan(ctx, osRoot.FS(), lookupWords(parsed.Terms))
		if serr != nil {
			return nil, serr
		}
		e = &engine{c: sc, req: req, parsed: parsed, state: Index{Path: state.Path, State: StateCorrupt, Reason: ce.Error()}}
		return e.run()
	}
	return out, err
}

// openCorpus picks the index or the scan, as Open decides. The artifacts
// an indexed query reads first are read on a second core while Open
// decides: if Open finds them current and they are still the files it
// checked, they are used; otherwise they are let go and the base is
// scanned.
func openCorpus(ctx context.Context, root string, terms []string) (corpus, Index, func(), error) {
	type early struct {
		f   *indexFiles
		err error
	}
	ahead := make(chan early, 1)
	go func() {
		f, err := readIndexFiles(root)
		ahead <- early{f, err}
	}()
	ix, err := Open(ctx, root)
	got := <-ahead
	if got.err == nil && (err != nil || ix.State != StateUsed || !got.f.current(root)) {
		got.f.r.Close()
		got.f, got.err = nil, errors.New("not used")
	}
	if err != nil {
		return nil, Index{}, nil, err
	}
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, *ix, nil, err
	}
	closeRoot := func() { osRoot.Close() }
	if ix.State == StateUsed {
		f, err := got.f, got.err
		if err != nil { // read again, now that Open has checked the files
			f, err = readIndexFiles(root)
		}
		if err == nil {
			ic := newIndexCorpus(f, osRoot.FS(), ix.cfg, ix.Manifest)
			return ic, *ix, func() { ic.Close(); closeRoot() }, nil
		}
		var ce *artifacts.CorruptError
		if !errors.As(err, &ce) {
			closeRoot()
			return nil, *ix, nil, err
		}
		ix.State, ix.Reason = StateCorrupt, err.Error()
	}
	sc, err := openScan(ctx, osRoot.FS(), terms)
	if err != nil {
		closeRoot()
		return nil, *ix, nil, err
	}
	return sc, *ix, closeRoot, nil
}

// engine is one request in flight.
type engine struct {
	c      corpus
	req    Request
	parsed Parsed
	state  Index

	window      Window
	win         *candidates
	terms       []*termStats
	roles       []string // role flags the query names (private, received)
	pool        []*scored
	avgLen      []int              // each field's average length over the hits (see averageLengths)
	facts       map[int]textFacts  // what items' text says of the query, by ordinal (see textFactsOf)
	folds       []string           // the terms' stems, by term, "" for an identifier (see textFactsOf)
	idents      []bool             // by parsed term: identifier-shaped (see coverage)
	lowerBuf    []byte             // a passage lower-cased (see lowered)
	fieldIndex  map[string]int     // field names to their index (see fieldAt)
	floorOut    int                // matched items left below the floor
	policyOut   int                // received or private items kept out
	truncated   []string           // hub entities whose inbound edges were cut at hubInbound
	closedSeeds []string           // seeds whose neighbourhood was too large to expand
	built       map[*scored]*entry // rendered candidates, whatever the budget
	weight      map[string]int     // field weights by name, for excerpts
}

// roleTerms are query terms that name a policy role: they identify the
// items holding it and recover them from exclusion.
var roleTerms = map[string]string{
	"visibility:private": project.FlagPrivate,
	"category:received":  project.FlagReceived,
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
	pins     []*scored
	ranked   []*scored
	rejected []RejectedPin
}

// prepare does everything but delivery: window, terms, scores,
// expansion, pins, order and collapse.
func (e *engine) prepare() (prepared, error) {
	var err error
	e.window, e.win, err = resolveWindow(e.c, e.parsed.Window, e.req.AsOf)
	if err != nil {
		return prepared{}, err
	}
	ids := e.c.Identities()
	for _, t := range e.parsed.Terms {
		if role, ok := roleTerms[t]; ok {
			e.roles = append(e.roles, role)
		}
		st, err := lookupTerm(e.c, ids, t, e.parsed.Terms, e.win)
		if err != nil {
			return prepared{}, err
		}
		st.idf, st.meaningful = idf(e.win.n, max(1, st.own)), meaningful(e.win.n, st.own)
		e.terms = append(e.terms, st)
	}
	if err := e.score(); err != nil {
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
	e.order()
	return prepared{pins: pins, ranked: e.collapse(e.admissible()), rejected: rejected}, nil
}
