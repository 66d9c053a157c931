// Package query is cairn's read side, and this package is its facade: the
// calls the CLI and cairn eval make (Context, Search, Read, At, List,
// Candidates, Open, Identify) and the long-lived Session that serves
// every answer kind from one opened corpus while it watches the base.
// The answers themselves live one package per kind, on shared layers:
//
//	query            the facade and the session
//	query/pack       context packs      query/search  by-content answers
//	query/read       reads of one URI   query/at      by-location answers
//	query/list       listings of a layer
//	query/provenance what stands behind a governance answer (usage counts, coverage)
//	query/render     what every answer renders alike (formats, items, notices)
//	query/rank       the ranking shared by packs and search
//	query/words      the candidate window and the query terms' statistics
//	query/corpus     the corpus (index or scan) and the freshness verdict
//	query/tables, query/question, query/receipts: the leaves
//
// A package imports only packages below it, and no answer package imports
// another; deps_test.go states the ranks and enforces them.
//
// The read side reads artifacts only through package artifacts and reuses
// the pure code of the stages (load, lex, project, index, graph, govern),
// so that a scan ranks exactly what a build would index; it never imports
// the parts that build or write (stages, stages/emit, stages/rules,
// stages/usage): a reader must not be able to write. A test enforces it.
// The one thing a query may write is machine-local state outside the
// base, and only when asked: the receipt snapshots of delta packs, through
// package query/receipts (Request.SaveReceipt, Request.SinceReceipt).
package query
