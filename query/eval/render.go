package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// RenderJSON is the report as indented JSON, the form --baseline reads.
func RenderJSON(r Report) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		panic(err) // plain values: cannot fail
	}
	return b.Bytes()
}

// RenderText is the report for a person: one line per question with its
// first relevant rank, the exact reason under each failure, the totals,
// the two halves, and what moved since the baseline.
func RenderText(r Report) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "eval %s · as_of=%s k=%d budget=%d · %d questions · ranking=%d\n\n",
		r.Suite, r.AsOf, r.K, r.Budget, len(r.Queries), r.RankingVersion)
	for _, q := range r.Queries {
		verdict := "PASS"
		if !q.Pass {
			verdict = "FAIL"
		}
		window := ""
		if q.Since != "" || q.Until != "" {
			window = fmt.Sprintf(" [%s..%s]", q.Since, q.Until)
		}
		fmt.Fprintf(&b, "%3d %s rank %-2s %s%s\n", q.N, verdict, rankText(q.FirstRelevantRank), oneLine(q.Question), window)
		for _, reason := range q.Reasons {
			fmt.Fprintf(&b, "           %s\n", oneLine(reason))
		}
	}
	b.WriteByte('\n')
	t := r.Totals
	fmt.Fprintf(&b, "passed %d/%d\n", t.Passed, t.Queries)
	fmt.Fprintf(&b, "%s · in-pack recall %s · excerpts %s\n", figures(t, r.K), ratioText(t.InPackRecall), ratioText(t.Excerpts))
	fmt.Fprintf(&b, "odd questions:  %s\n", figures(r.Odd, r.K))
	fmt.Fprintf(&b, "even questions: %s\n", figures(r.Even, r.K))
	renderGroups(&b, "by kind of expected item", r.ByKind, r.K)
	renderGroups(&b, "by source of expected item", r.BySource, r.K)
	if d := r.Baseline; d != nil {
		renderDiff(&b, d, r)
	}
	return b.Bytes()
}

func renderDiff(b *bytes.Buffer, d *Diff, r Report) {
	fmt.Fprintf(b, "\nagainst %s (ranking=%d): passed %d → %d · recall@%d %.3f → %.3f · MRR %.3f → %.3f\n",
		d.Baseline, d.RankingVersion, d.Before.Passed, r.Totals.Passed, r.K,
		d.Before.RecallAtK.Rate, r.Totals.RecallAtK.Rate, d.Before.MRR, r.Totals.MRR)
	if len(d.Moves)+len(d.NewlyFailing)+len(d.NewlyPassing)+len(d.Added)+len(d.Removed) == 0 {
		b.WriteString("  nothing moved\n")
		return
	}
	for _, m := range d.Moves {
		dir := "down"
		if m.Up {
			dir = "up  "
		}
		fmt.Fprintf(b, "  %s %3d %s %s → %s  %s\n", dir, m.N, m.URI, rankText(m.From), rankText(m.To), oneLine(m.Question))
	}
	for _, f := range d.NewlyFailing {
		fmt.Fprintf(b, "  newly failing %d: %s\n", f.N, oneLine(f.Question))
		for _, reason := range f.Reasons {
			fmt.Fprintf(b, "           %s\n", oneLine(reason))
		}
	}
	for _, f := range d.NewlyPassing {
		fmt.Fprintf(b, "  newly passing %d: %s\n", f.N, oneLine(f.Question))
	}
	if len(d.Added) > 0 {
		fmt.Fprintf(b, "  new questions: %s\n", numbers(d.Added))
	}
	if len(d.Removed) > 0 {
		fmt.Fprintf(b, "  removed questions (numbered as in the baseline): %s\n", numbers(d.Removed))
	}
}

// renderGroups writes a heading and a line per group, names aligned.
func renderGroups(b *bytes.Buffer, heading string, groups []Group, k int) {
	if len(groups) == 0 {
		return
	}
	width := 0
	for _, g := range groups {
		width = max(width, len(g.Name))
	}
	fmt.Fprintf(b, "%s:\n", heading)
	for _, g := range groups {
		fmt.Fprintf(b, "  %-*s  %s\n", width, g.Name, figures(g.Totals, k))
	}
}

func figures(t Totals, k int) string {
	return fmt.Sprintf("recall@%d %s · MRR %.3f", k, ratioText(t.RecallAtK), t.MRR)
}

func ratioText(r Ratio) string {
	if r.Of == 0 {
		return "none checked"
	}
	return fmt.Sprintf("%d/%d = %.3f", r.Hits, r.Of, r.Rate)
}

func numbers(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// oneLine keeps a value on its line: control characters become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
