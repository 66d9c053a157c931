// Package tables reads a built base's artifacts (docs.tsv and docs.key,
// terms.tsv and postings.tsv, edges.tsv and edges.dst.tsv, fields.tsv)
// with positioned reads: a row by ordinal, a term's postings, a node's
// links, each found by a binary search over the sorted lines, never by
// loading a whole large file. It knows the artifacts' formats only
// through package artifacts, and nothing of queries: package query
// decides when the tables are current and what to ask of them.
//
// A damaged or unreadable file is an *artifacts.CorruptError, so that
// the caller can answer from the base instead.
package tables
