// Package read answers the read of one URI: a record or page in full, a
// section of a page by its anchor, an entity with its neighbours paged by
// a cursor, or a piece of governance (a term, a voice, a note, an
// operation, a suggestion), and names the nearest URIs when the URI is
// unknown (Read, Request, Answer). It finds a row by binary search and
// reads only the byte ranges it shows.
//
// It may import the lower layers of query (corpus, render, provenance)
// and the pure code of the stages; never another answer kind.
package read
