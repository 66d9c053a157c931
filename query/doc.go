// Package query is cairn's read side: it opens the build artifacts when
// they are current, or tells the caller to scan the base when they are
// missing, stale or corrupt, and answers context, search, by-location and
// read requests from either.
//
// It reads artifacts only through package artifacts and may reuse the pure
// loading and projection code of stages/load and stages/project, but never
// the build pipeline itself (stages, stages/index, stages/graph,
// stages/emit): a reader must not be able to write. A test enforces it.
package query
