// Package question reads what a person or an agent asked: it splits the
// words of a query into the terms the index can match and the
// scaffolding it drops ("why", "the"), finds one time expression at its
// start or end ("last friday", "since 2026-11-01", a bare "last") and
// combines it with --since and --until into the window of dated
// evidence. It knows nothing of the artifacts or of ranking; every
// answer kind of package query starts from its Parse.
package question
