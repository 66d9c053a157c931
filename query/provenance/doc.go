// Package provenance says what stands behind a governance answer, for
// the by-location, search and read answers alike: the term usage counts
// and whether the build that counted them is current (Usage, Freshness),
// the notes log's revision and the artifacts' state (Of, Provenance),
// how an answer is graded (Coverage), a suggestion's evidence (Standing),
// and the line that invites an observation (RecordLine).
//
// It may import query/corpus (the verdict's states and the stat-first
// check of a stage's outputs), query/render and the pure code of the
// stages; no answer kind of query.
package provenance
