// Package eval runs retrieval evaluation suites (`cairn eval SUITE.yaml`,
// SPEC §8): natural questions, each with the URIs its context pack must
// deliver within k, the URIs it must not deliver, and the fragments the
// delivered excerpts must hold.
//
// In: a suite's bytes (ParseSuite), a base root, and for --baseline an
// earlier JSON report (DecodeReport). Out: a Report with each question's
// pass or fail and its exact reasons, its first relevant rank, and the
// totals (recall@k, in-pack recall, MRR, excerpt pass rate, passes) for
// the whole suite and for its odd and even halves; its text and JSON
// renderings; a Diff against the baseline; and, on request, the candidate
// windows as JSON lines for peer rankers (cmd/cairn-bench/peers.py).
//
// Every question is asked in one process through query.Context, exactly
// as `cairn context --format json` asks it, so a suite measures the pack
// a user gets. It must not rank anything itself, write the base, or put a
// clock reading, a duration or an absolute path into a report: reports
// are goldens and baselines, compared byte for byte.
package eval
