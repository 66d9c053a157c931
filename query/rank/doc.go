// Package rank scores the items a query's terms match in its window, the
// one ranking that packs and search share: a Ranking looks up its terms
// (LookupTerms), scores every matched item with reasons that add up by
// hand (Score, Reason, the points constants), orders them by Standing,
// keeps received and private records out unless named (Excluded), and
// picks each shown item's excerpt (Excerpt).
//
// It may import query/corpus, query/words, query/question and the pure
// code of the stages; no answer kind or rendering of query: a pack's
// selection and budget, and search's groups, are built on it above.
package rank
