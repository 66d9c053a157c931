// Package usage is the build stage that counts how often the content files
// use each term of the terms store, and renders usage.tsv.
//
// In: the terms store, the content files read this build, and the counts
// the previous build made for content files that were not read again
// (their bytes are unchanged). Out: one artifacts.TermUsage per term, sorted
// by id, and usage.tsv. It must not read or write files: loading decides
// which files are read, and artifacts.Sync writes.
//
// Every term is counted, whatever its status, kind, paths or window: usage
// is a fact about the content, not a rule. A file's whole text is searched,
// frontmatter and code blocks included. The counting rules:
//
//   - Case does not matter: runes are compared under Unicode simple case
//     folding (K, k and the Kelvin sign K are one letter; ß and ss are
//     not, since that fold takes two runes). Text is not normalised, so a
//     precomposed é and e followed by a combining accent differ.
//   - Whole words only: the rune before a match and the rune after it must
//     not be word runes. Word runes are letters, decimal digits, marks
//     (so that a combining accent continues its word) and _.
//   - Any run of white space in a term (a space in "pull request") matches
//     any run of white space in the text, line breaks included.
//   - Matches of one term never overlap: the text is searched from the
//     start, and after each match the search goes on where it ended.
//     Different terms are counted independently, so "push token" in a
//     text counts for the term "push token" and for the term "token".
//   - A term with a pattern is counted by its pattern instead of its
//     wording, under the same rules. A pattern that matches the term
//     itself names every form of the word (glossar(y|ies),
//     whitelist(s|ed|ing)?); one that does not is a pattern over the
//     term's endings and follows it (term quosock, pattern
//     (s|es|ed|ing)? counts quosock, quosocks, quosocked...). Where the
//     pattern offers several forms, the first that ends at a word boundary
//     is taken, as Go's regexp package prefers.
package usage
