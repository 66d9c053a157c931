// Package query is cairn's read side: it opens the build artifacts when
// they are current, or tells the caller to scan the base when they are
// missing, stale or corrupt, and answers context, search, by-location and
// read requests from either.
//
// It reads artifacts only through package artifacts and reuses the pure
// code of the stages (load, lex, project, index, graph, govern), so that a
// scan ranks exactly what a build would index; it never imports the parts
// that build or write (stages, stages/emit, stages/rules, stages/usage): a
// reader must not be able to write. A test enforces it. The one thing a
// query may write is machine-local state outside the base, and only when
// asked: the receipt snapshots of delta packs, through package
// query/receipts (Request.SaveReceipt, Request.SinceReceipt).
package query
