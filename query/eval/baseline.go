package eval

import (
	"fmt"
	"slices"
)

// Diff is what changed between an earlier report and this one, so that a
// ranking change is reviewed like a code diff: which expected URIs moved
// up or down, which questions newly fail or pass, and the totals before.
type Diff struct {
	// Baseline names the earlier report (the --baseline file).
	Baseline string `json:"baseline"`
	// Before are the earlier report's totals and ranking version.
	Before         Totals `json:"before"`
	RankingVersion int    `json:"ranking_version"`
	Moves          []Move `json:"moves"`
	NewlyFailing   []Flip `json:"newly_failing"`
	NewlyPassing   []Flip `json:"newly_passing"`
	// Added and Removed are questions in only one of the two reports.
	Added   []int `json:"added"`
	Removed []int `json:"removed"`
}

// Move is an expected URI whose rank changed; a rank of 0 means not
// delivered. Up is true when it got better.
type Move struct {
	N        int    `json:"n"`
	Question string `json:"question"`
	URI      string `json:"uri"`
	From     int    `json:"from"`
	To       int    `json:"to"`
	Up       bool   `json:"up"`
}

// Flip is a question whose pass or fail changed, with its reasons now
// (for a newly failing one) or then (for a newly passing one).
type Flip struct {
	N        int      `json:"n"`
	Question string   `json:"question"`
	Reasons  []string `json:"reasons"`
}

// queryKey identifies a question across two reports: suites are edited,
// so questions are matched by what they ask, not by number. The same
// question asked twice is told apart by its occurrence.
type queryKey struct {
	question, since, until string
	occurrence             int
}

func keysOf(qs []QueryResult) []queryKey {
	seen := map[queryKey]int{}
	out := make([]queryKey, len(qs))
	for i, q := range qs {
		k := queryKey{question: q.Question, since: q.Since, until: q.Until}
		k.occurrence = seen[k]
		seen[k]++
		out[i] = k
	}
	return out
}

// Compare says what changed from prev to cur, in cur's question order
// (removed questions by their number in prev).
func Compare(name string, prev, cur Report) Diff {
	d := Diff{Baseline: name, Before: prev.Totals, RankingVersion: prev.RankingVersion,
		Moves: []Move{}, NewlyFailing: []Flip{}, NewlyPassing: []Flip{}, Added: []int{}, Removed: []int{}}
	prevKeys := keysOf(prev.Queries)
	byKey := map[queryKey]QueryResult{}
	for i, q := range prev.Queries {
		byKey[prevKeys[i]] = q
	}
	curKeys := keysOf(cur.Queries)
	for i, q := range cur.Queries {
		p, ok := byKey[curKeys[i]]
		if !ok {
			d.Added = append(d.Added, q.N)
			continue
		}
		for _, e := range q.Expected {
			j := slices.IndexFunc(p.Expected, func(r Ranked) bool { return r.URI == e.URI })
			if j < 0 || p.Expected[j].Rank == e.Rank {
				continue
			}
			from := p.Expected[j].Rank
			d.Moves = append(d.Moves, Move{N: q.N, Question: q.Question, URI: e.URI, From: from, To: e.Rank, Up: better(e.Rank, from)})
		}
		switch {
		case p.Pass && !q.Pass:
			d.NewlyFailing = append(d.NewlyFailing, Flip{N: q.N, Question: q.Question, Reasons: q.Reasons})
		case !p.Pass && q.Pass:
			d.NewlyPassing = append(d.NewlyPassing, Flip{N: q.N, Question: q.Question, Reasons: p.Reasons})
		}
	}
	have := map[queryKey]bool{}
	for _, k := range curKeys {
		have[k] = true
	}
	for i, q := range prev.Queries {
		if !have[prevKeys[i]] {
			d.Removed = append(d.Removed, q.N)
		}
	}
	return d
}

// better reports whether rank a beats rank b (0 is not delivered).
func better(a, b int) bool { return a > 0 && (b == 0 || a < b) }

// rankText prints a rank, "-" for not delivered.
func rankText(r int) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprint(r)
}
