// Package search answers by-content questions: every record, page, term,
// note, suggestion and voice example that holds the query's words, in
// groups that are never merged into one ranking (Search, Request,
// Answer), paged by cursors bound to what each group matched. Records and
// pages are scored by the ranking packs use (query/rank); the governance
// groups are scored with the same arithmetic over their entries.
//
// It may import the lower layers of query (corpus, words, rank, render,
// provenance) and the pure code of the stages; never another answer kind.
package search
