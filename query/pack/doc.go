// Package pack answers context questions with a pack: the items the
// ranking (query/rank) puts first, with pins, --expand's neighbours, the
// relevance floor and the per-source caps, fitted exactly to a token
// budget, with a receipt that says how it was made and, on request, a
// delta against a saved receipt (Context, Request, Answer, Receipt). It
// also lists a request's candidate window for cairn eval (Candidates).
//
// It may import the lower layers of query (corpus, words, rank, render)
// and query/receipts, and the pure code of the stages; never another
// answer kind.
package pack
