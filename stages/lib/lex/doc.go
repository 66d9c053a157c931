// Package lex holds the lexical rules that the build and a query must
// apply alike, so that a query term meets the dictionary term the index
// made from the same text: how text splits into words and identifier
// tokens (Tokens), how a query splits into terms (QueryWords, KeepAsTerm)
// and how a title is keyed by them (TitleKey), the exact form and
// dictionary term of an identifier (Exact, ExactTerm) and its case-folded
// key (FoldKey), the percent-encoding of record ids (EncodeID, DecodeID),
// and the names an identity gives a value (Identities).
//
// In: strings, and the configuration's identities. Out: words, terms,
// forms and keys. It must not read or write anything, and it must not
// import the build stages or the query package: both import it.
package lex
