// Package list answers listings: the items of one layer of the base,
// newest first, filtered by day, status, type, tag or source, paged by a
// cursor bound to what the listing holds (List, Request, Answer, Item).
// A listing ranks nothing: it reads keys and rows in URI order.
//
// It may import the lower layers of query (corpus, words, render) and the
// pure code of the stages; never another answer kind.
package list
