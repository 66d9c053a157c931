// Package corpus is the bottom of cairn's read side: the freshness verdict
// on a base's artifacts (Open, Index, State) and the two ways of reading a
// base that a query ranks over, its current artifacts (IndexCorpus) or a
// scan of the base itself, behind one interface (Corpus) that speaks in
// item ordinals, rows, postings and edges, so that an indexed and a
// scanned answer are identical. It also holds the request error every
// answer shares (UsageError).
//
// It may import the artifacts, the tables reader and the pure code of the
// stages (load, lex, project, index, graph, diag, model); it imports no
// other package of query: every answer kind and layer of the read side
// stands on it.
package corpus
