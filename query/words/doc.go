// Package words holds what a query's words and days become before any
// ranking: the candidate window of a question's days (Window, ResolveWindow)
// and each query term's postings and statistics in it (Lookup, Stats, Hit,
// IDF, Meaningful), shared by packs, search and listing.
//
// It may import query/corpus, query/question and the pure code of the
// stages; no answer kind, ranking or rendering of query.
package words
