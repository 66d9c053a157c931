// Package at answers by-location questions: what governance applies at a
// path of the base (voice, points, terms, notes, suggestions and their
// standing), or what one voice profile holds, as Markdown for an agent or
// as JSON (At, Request, Answer); and, for a long-lived process, what of
// the governance moved since its previous answer (provenance.Seen).
//
// It may import the lower layers of query (corpus, render, provenance)
// and the pure code of the stages; never another answer kind.
package at
