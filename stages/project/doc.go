// Package project is the build stage that turns loaded records and pages
// into searchable items: each record through its document's fields map,
// each page through its frontmatter, into named fields with their values,
// lengths and indexed terms (tokenised by package lex), plus the item's
// flags, relations, tags, links, supersedes and semantic digest. It also
// makes what the index and the query's scan both take from an item: its
// docs.tsv row (Item.Row), its outgoing edges (Item.Edges) and the
// docs.key lines of a run of rows (Keys, KeyTable).
//
// In: the loaded base (model.Base). Out: the items, sorted by URI, and the
// diagnostics of records that do not project. The build and the scan
// stream the same work document by document through a Projector and
// ProjectRuns, so that a large base's items never all live at once; Run
// is the all-at-once form. It must not read or write anything, look at
// the clock, or stop at a bad record: a mistake is a diagnostic and
// projection goes on.
package project
