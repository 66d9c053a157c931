package eval

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseSuite(t *testing.T) {
	s, err := ParseSuite("s.yaml", []byte(`as_of: 2026-11-10
queries:
  - question: arm64 nightly
    expected: [wiki/arm64-builds.md]
    forbidden_uris: [wiki/index.md]
    expected_excerpts:
      wiki/arm64-builds.md: [native, runners]
  - {question: "yes", since: 2026-11-01, until: 2026-11-09, expected_uris: [a, b], expected_reads: {b: [x]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.K != DefaultK || s.Budget != DefaultBudget || s.AsOf.Format("2006-01-02") != "2026-11-10" || len(s.Queries) != 2 {
		t.Fatalf("suite = %+v", s)
	}
	q := s.Queries[0]
	if q.N != 1 || q.Line != 3 || !slices.Equal(q.ExpectedURIs, []string{"wiki/arm64-builds.md"}) || !slices.Equal(q.ForbiddenURIs, []string{"wiki/index.md"}) ||
		len(q.ExpectedExcerpts) != 1 || !slices.Equal(q.ExpectedExcerpts[0].Fragments, []string{"native", "runners"}) {
		t.Errorf("query 1 = %+v", q)
	}
	q = s.Queries[1]
	if q.Question != "yes" || q.Since != "2026-11-01" || q.Until != "2026-11-09" || len(q.ExpectedReads) != 1 || q.ExpectedReads[0].URI != "b" {
		t.Errorf("query 2 = %+v", q)
	}
	if len(s.Queries[0].uris) != 2 || s.Queries[0].uris[1] != (uriAt{"wiki/index.md", 5, 22}) {
		t.Errorf("URI positions = %+v", s.Queries[0].uris)
	}
}

// TestParseSuiteErrors checks that each kind of mistake is reported at its
// file, line and column, and that the error exits 2.
func TestParseSuiteErrors(t *testing.T) {
	const head = "as_of: 2026-11-10\nqueries:\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown suite key", "as_of: 2026-11-10\nbudgets: 10\nqueries: [{question: q, expected_uris: [a]}]\n", `s.yaml:2:1: unknown suite key "budgets"`},
		{"unknown query key", head + "  - question: q\n    expected_uri: [a]\n", `s.yaml:4:5: unknown query key "expected_uri"`},
		{"missing question", head + "  - expected_uris: [a]\n", "s.yaml:3:5: query 1 has no question"},
		{"empty question", head + "  - question: \"  \"\n    expected_uris: [a]\n", "s.yaml:3:15: query 1: the question is empty"},
		{"empty fragment", head + "  - question: q\n    expected_uris: [a]\n    expected_excerpts: {a: [x, \"\"]}\n", "s.yaml:5:32: expected_excerpts of a holds an empty fragment"},
		{"empty fragment list", head + "  - question: q\n    expected_uris: [a]\n    expected_excerpts: {a: []}\n", "s.yaml:5:28: expected_excerpts of a is an empty list"},
		{"excerpt of an unexpected URI", head + "  - question: q\n    expected_uris: [a]\n    expected_excerpts: {b: [x]}\n", "s.yaml:5:25: query 1: expected_excerpts checks b, which is not in its expected_uris"},
		{"wrong type k", "as_of: 2026-11-10\nk: five\nqueries: [{question: q, expected_uris: [a]}]\n", `s.yaml:2:4: k must be a positive whole number, not "five"`},
		{"wrong type question", head + "  - question: [a, b]\n    expected_uris: [a]\n", "s.yaml:3:15: question must be text, not a list"},
		{"wrong type uris", head + "  - question: q\n    expected_uris: a\n", "s.yaml:4:20: expected_uris must be a list of URIs"},
		{"null question", head + "  - question: ~\n    expected_uris: [a]\n", "s.yaml:3:15: question must be text, not nothing (null)"},
		{"bad day", head + "  - question: q\n    since: last week\n    expected_uris: [a]\n", `s.yaml:4:12: since must be a day, YYYY-MM-DD, not "last week"`},
		{"missing as_of", "queries: [{question: q, expected_uris: [a]}]\n", "s.yaml:1:1: the suite has no as_of"},
		{"both names", head + "  - question: q\n    expected_uris: [a]\n    expected: [a]\n", "s.yaml:5:15: query 1 gives both expected_uris and expected"},
		{"expected and forbidden", head + "  - question: q\n    expected_uris: [a]\n    forbidden_uris: [a]\n", "s.yaml:5:22: query 1: a is both expected and forbidden"},
		{"repeated key", head + "  - question: q\n    question: r\n    expected_uris: [a]\n", `s.yaml:4:5: query key "question" is given twice`},
		{"checks nothing", head + "  - question: q\n", "s.yaml:3:5: query 1 checks nothing"},
		{"no queries", "as_of: 2026-11-10\nqueries: []\n", "s.yaml:2:10: queries is empty"},
		{"syntax", "as_of: 2026-11-10\nqueries: [\n", "s.yaml:2:1: the suite is not valid YAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSuite("s.yaml", []byte(c.yaml))
			var se *SuiteError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SuiteError", err)
			}
			if se.ExitCode() != 2 {
				t.Errorf("exit code %d, want 2", se.ExitCode())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n%s\nwant it to hold:\n%s", err, c.want)
			}
		})
	}
}
