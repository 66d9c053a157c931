// Package govern resolves a base's governance at a place and an instant:
// which point a content path sits at and why, the voice in force and its
// writing brief, the terms bound there, the rules held elsewhere that an
// agent must keep as they are here, the notes a person kept, the
// suggestions nobody has decided on, and a coverage grade.
//
// In: the governance of a base (cairn.yaml's points, axes and default
// voice; the voices; the terms store; the operation log) once, through New;
// then a place (a content path and its frontmatter point:) and a day,
// through Resolver.At. Out: an Answer, plain data, every list sorted and
// every sort ending on a unique key.
//
// It is shared by the build (the rules stage writes the answers into
// AGENTS.md and CLAUDE.md) and the query stage (cairn context --at), so
// that what a file says and what a question answers are one resolution.
// It must not read files, the clock or the environment: the instant is an
// input, and the same governance, place and day give the same Answer.
//
// How the operation log folds, per target, in op-id order:
//
//   - suggest: a position nobody has decided on. A later suggest by the same
//     actor in the same session replaces that actor's earlier one.
//   - keep by a person: establishes the target (a note, or a term rule),
//     with the keep's text, scope and window where it sets them and the
//     referenced operation's otherwise. It settles the positions before it.
//   - drop by a person: removes the target (a term dropped this way is not
//     in force even when the store lists it). It settles the positions too.
//   - keep by an agent: a position in favour of the referenced text; it
//     decides nothing. drop by an agent withdraws the agent's own referenced
//     suggestion, or else is a position against.
//   - a person's decision that refers to an operation older than the
//     decision in force and decides the other way conflicts with it: the
//     target is contested, contested_by naming both decisions. Undecided
//     positions with different texts from different sessions are contested
//     among themselves the same way.
//   - widen by a person: replaces the target's scope (paths and axes; empty
//     means everywhere) and, where it sets one, its window.
//   - reset by a person: back to undecided; the suggestion the reset
//     traces back to is a live position again.
//   - correct and merge: counted in a term suggestion's standing; a person's
//     correct with a text rewords an established target.
//
// An agent's widen and reset decide nothing, like its suggest.
package govern
