package query

import (
	"context"

	"github.com/cairn-kb/cairn/query/at"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/list"
	"github.com/cairn-kb/cairn/query/pack"
	"github.com/cairn-kb/cairn/query/provenance"
	"github.com/cairn-kb/cairn/query/read"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/search"
)

// State says whether a query can use the artifacts, and if not, why not.
type State = corpus.State

// Index states, as reported in receipt.index.
const (
	StateUsed    = corpus.StateUsed
	StateMissing = corpus.StateMissing
	StateStale   = corpus.StateStale
	StateCorrupt = corpus.StateCorrupt
)

// Index is the verdict on a base's artifacts.
type Index = corpus.Index

// UsageError is a request that cannot be answered as asked; exit 2.
type UsageError = corpus.UsageError

// Open decides whether the artifacts under root can answer queries; see
// corpus.Open.
func Open(ctx context.Context, root string) (*Index, error) { return corpus.Open(ctx, root) }

// Formats an answer can be delivered in.
const (
	FormatText  = render.FormatText
	FormatJSON  = render.FormatJSON
	FormatJSONL = render.FormatJSONL
)

// Notice is the trust framing every pack repeats; see render.Notice.
const Notice = render.Notice

// IndexState is how an answer was read, as its receipt reports it: the
// artifacts (used) or a scan because they were missing, stale or corrupt.
type IndexState = render.IndexState

// PackItem is one selected record or page, as packs and search show it.
type PackItem = render.Item

// FormatMarkdown is the by-location answers' text format.
const FormatMarkdown = at.FormatMarkdown

// AtRequest is one by-location question; see at.Request.
type AtRequest = at.Request

// Seen is what a long-lived process read of the governance before; see
// provenance.Seen.
type Seen = provenance.Seen

// At answers a by-location question about the base at root; see at.At.
func At(ctx context.Context, root string, req AtRequest) ([]byte, error) {
	return at.At(ctx, root, req)
}

// DefaultSearchLimit is how many items of each group a search shows when
// no --limit is given.
const DefaultSearchLimit = render.DefaultLimit

// SearchRequest is one by-content question; see search.Request.
type SearchRequest = search.Request

// Search answers a by-content question about the base at root; see
// search.Search.
func Search(ctx context.Context, root string, req SearchRequest) ([]byte, error) {
	return search.Search(ctx, root, req)
}

// ListRequest is one listing of a layer; see list.Request.
type ListRequest = list.Request

// List lists a layer of the base at root; see list.List.
func List(ctx context.Context, root string, req ListRequest) ([]byte, error) {
	return list.List(ctx, root, req)
}

// ReadRequest is one read of a URI; see read.Request.
type ReadRequest = read.Request

// Read answers a read of one URI of the base at root; see read.Read.
func Read(ctx context.Context, root string, req ReadRequest) ([]byte, error) {
	return read.Read(ctx, root, req)
}

// Request is one context question; see pack.Request.
type Request = pack.Request

// DefaultBudget is the token budget of a pack when none is given.
const DefaultBudget = pack.DefaultBudget

// Pack is a delivered context pack; see pack.Answer.
type Pack = pack.Answer

// BudgetError says the budget cannot hold even the smallest honest pack;
// see pack.BudgetError.
type BudgetError = pack.BudgetError

// SnapshotError is a --since-receipt that cannot be answered; see
// pack.SnapshotError.
type SnapshotError = pack.SnapshotError

// Context answers a context question about the base at root with a pack
// fitted to its budget; see pack.Context.
func Context(ctx context.Context, root string, req Request) ([]byte, error) {
	return pack.Context(ctx, root, req)
}

// ShellWord writes s as one word of a POSIX shell, quoted only when it
// needs to be; see pack.ShellWord.
func ShellWord(s string) string { return pack.ShellWord(s) }

// Candidate is one item of a request's candidate window, for cairn eval;
// see pack.Candidate.
type Candidate = pack.Candidate

// Candidates lists the items of the window a request resolves to, the
// set the ranking chooses from, for cairn eval; see pack.Candidates.
func Candidates(ctx context.Context, root string, req Request, withText func(uri string) bool) ([]Candidate, error) {
	return pack.Candidates(ctx, root, req, withText)
}
