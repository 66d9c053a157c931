package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Report is what a suite's run found: each question's result and the
// totals. Its bytes (RenderText, RenderJSON) hold no clock, duration or
// path outside the suite's name, so a report can be a golden file and a
// baseline.
type Report struct {
	Suite          string        `json:"suite"`
	AsOf           string        `json:"as_of"`
	K              int           `json:"k"`
	Budget         int           `json:"budget"`
	RankingVersion int           `json:"ranking_version"`
	Queries        []QueryResult `json:"queries"`
	Totals         Totals        `json:"totals"`
	// Odd and Even are the totals of the odd- and even-numbered
	// questions (1-based): ranking constants are chosen on one half and
	// checked on the other.
	Odd  Totals `json:"odd"`
	Even Totals `json:"even"`
	// ByKind and BySource are the totals of the questions grouped by what
	// they expect: by kind ("pages" or "records") and by source (a
	// record's source, a page's layer). A question expecting items of two
	// kinds or sources counts in a group "mixed"; one expecting nothing
	// counts in none. Groups are sorted by name, mixed last.
	ByKind   []Group `json:"by_kind"`
	BySource []Group `json:"by_source"`
	// Baseline, when the run was compared with an earlier report, says
	// what moved.
	Baseline *Diff `json:"baseline,omitempty"`
}

// QueryResult is one question's outcome.
type QueryResult struct {
	N        int    `json:"n"`
	Line     int    `json:"line"`
	Question string `json:"question"`
	Since    string `json:"since,omitempty"`
	Until    string `json:"until,omitempty"`
	Pass     bool   `json:"pass"`
	// Reasons say exactly why a question failed, one line each; empty
	// when it passed.
	Reasons []string `json:"reasons"`
	// FirstRelevantRank is the best 1-based rank of an expected URI in
	// the pack, 0 when the pack holds none.
	FirstRelevantRank int             `json:"first_relevant_rank"`
	Expected          []Ranked        `json:"expected"`
	Forbidden         []Ranked        `json:"forbidden"`
	Excerpts          []ExcerptResult `json:"excerpts"`
	// Reads are the expected_reads checks, against what cairn read
	// prints for each URI.
	Reads []ExcerptResult `json:"reads"`
	// Delivered is how many items the pack holds; Top are the URIs of the
	// first k of them, to review a change by.
	Delivered int      `json:"delivered"`
	Top       []string `json:"top"`
	// Warning is the pack's own warning: why it is empty, or that its
	// window holds no dated evidence.
	Warning string `json:"warning,omitempty"`
}

// Ranked is a URI and its 1-based rank in the pack, 0 when not delivered,
// with the kind of item it is (record, wiki, project, task) and its source.
type Ranked struct {
	URI    string `json:"uri"`
	Rank   int    `json:"rank"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
}

// Group is the totals of the questions that expect one kind or source of
// item.
type Group struct {
	Name   string `json:"name"`
	Totals Totals `json:"totals"`
}

// mixed names the group of a question whose expected items differ.
const mixed = "mixed"

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kindGroup is the kind group of a pack kind: records, or pages.
func kindGroup(kind string) string {
	if kind == "record" {
		return "records"
	}
	return "pages"
}

// groupBy puts each question that expects an item into the group name
// gives all its expected items, or into mixed, and totals each group.
func groupBy(results []QueryResult, k int, name func(Ranked) string) []Group {
	by := map[string][]QueryResult{}
	for _, q := range results {
		if len(q.Expected) == 0 {
			continue
		}
		g := name(q.Expected[0])
		for _, e := range q.Expected[1:] {
			if name(e) != g {
				g = mixed
			}
		}
		by[g] = append(by[g], q)
	}
	out := []Group{}
	for _, g := range slices.Sorted(maps.Keys(by)) {
		out = append(out, Group{Name: g, Totals: summarize(by[g], k)})
	}
	// mixed goes last: it is what the others leave.
	slices.SortStableFunc(out, func(a, b Group) int { return cmp.Compare(boolRank(a.Name == mixed), boolRank(b.Name == mixed)) })
	return out
}

// ExcerptResult is one expected_excerpts check (the fragments the
// delivered excerpt of URI must hold, and those it lacks) or one
// expected_reads check (the same of what cairn read prints for URI).
type ExcerptResult struct {
	URI       string   `json:"uri"`
	Fragments []string `json:"fragments"`
	Missing   []string `json:"missing"`
	Pass      bool     `json:"pass"`
}

// Totals are a set of questions' figures. Recall and MRR count the
// questions that expect a URI; a question with only forbidden URIs counts
// in Queries and Passed alone.
type Totals struct {
	Queries int `json:"queries"`
	Passed  int `json:"passed"`
	// RecallAtK counts the questions whose expected URIs are all within
	// the first k items. For a question expecting one URI that is "the
	// first relevant rank is at most k", as run-eval.py counts.
	RecallAtK Ratio `json:"recall_at_k"`
	// InPackRecall counts expected URIs delivered anywhere in their pack,
	// over all expected URIs.
	InPackRecall Ratio `json:"in_pack_recall"`
	// MRR is the mean of 1/FirstRelevantRank (0 for none). Rates are
	// kept unrounded (the same sums in the same order give the same
	// bytes), so that a rounded figure is rounded once, where it is shown.
	MRR float64 `json:"mrr"`
	// Excerpts counts expected_excerpts entries whose delivered excerpt
	// holds all their fragments.
	Excerpts Ratio `json:"excerpt_pass_rate"`
}

// Ratio is hits out of a count, with its rate (0 when the count is 0).
type Ratio struct {
	Hits int     `json:"hits"`
	Of   int     `json:"of"`
	Rate float64 `json:"rate"`
}

func ratio(hits, of int) Ratio {
	r := Ratio{Hits: hits, Of: of}
	if of > 0 {
		r.Rate = float64(hits) / float64(of)
	}
	return r
}

// Failed is how many questions failed.
func (r Report) Failed() int { return len(r.Queries) - r.Totals.Passed }

// Err is a *FailedError when a question failed, else nil: the command
// prints the report and then exits 1.
func (r Report) Err() error {
	if n := r.Failed(); n > 0 {
		return &FailedError{Failed: n, Of: len(r.Queries)}
	}
	return nil
}

// FailedError is an eval that ran and found failures; exit 1.
type FailedError struct{ Failed, Of int }

// Error says how many questions failed.
func (e *FailedError) Error() string {
	return fmt.Sprintf("%d of %d questions failed; the report says why", e.Failed, e.Of)
}

// ExitCode is 1: the eval found a failure, as a check finds a difference.
func (e *FailedError) ExitCode() int { return 1 }

// summarize adds up the totals of results.
func summarize(results []QueryResult, k int) Totals {
	var t Totals
	var hits, withExpected, delivered, expected, excerptHits, excerpts int
	var rr float64
	for _, q := range results {
		t.Queries++
		if q.Pass {
			t.Passed++
		}
		for _, e := range q.Excerpts {
			excerpts++
			if e.Pass {
				excerptHits++
			}
		}
		if len(q.Expected) == 0 {
			continue
		}
		withExpected++
		all := true
		for _, e := range q.Expected {
			expected++
			if e.Rank > 0 {
				delivered++
			}
			if e.Rank == 0 || e.Rank > k {
				all = false
			}
		}
		if all {
			hits++
		}
		if q.FirstRelevantRank > 0 {
			rr += 1 / float64(q.FirstRelevantRank)
		}
	}
	t.RecallAtK = ratio(hits, withExpected)
	t.InPackRecall = ratio(delivered, expected)
	t.Excerpts = ratio(excerptHits, excerpts)
	if withExpected > 0 {
		t.MRR = rr / float64(withExpected)
	}
	return t
}

// total fills a report's totals and halves from its results.
func (r *Report) total() {
	r.Totals = summarize(r.Queries, r.K)
	var odd, even []QueryResult
	for _, q := range r.Queries {
		if q.N%2 == 1 {
			odd = append(odd, q)
		} else {
			even = append(even, q)
		}
	}
	r.Odd, r.Even = summarize(odd, r.K), summarize(even, r.K)
	r.ByKind = groupBy(r.Queries, r.K, func(e Ranked) string { return kindGroup(e.Kind) })
	r.BySource = groupBy(r.Queries, r.K, func(e Ranked) string { return e.Source })
}

// DecodeReport reads a report RenderJSON wrote, for --baseline.
func DecodeReport(name string, data []byte) (Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return r, &BaselineError{Msg: fmt.Sprintf("%s is not a cairn eval report (write one with cairn eval --format json): %v", name, err)}
	}
	if r.Queries == nil || r.K == 0 {
		return r, &BaselineError{Msg: fmt.Sprintf("%s is not a cairn eval report: it has no k or no queries; write one with cairn eval --format json", name)}
	}
	return r, nil
}

// BaselineError is a --baseline file that is not a report; exit 2.
type BaselineError struct{ Msg string }

// Error says what is wrong with the baseline and how to make one.
func (e *BaselineError) Error() string { return e.Msg }

// ExitCode is 2: the baseline is invalid input.
func (e *BaselineError) ExitCode() int { return 2 }
