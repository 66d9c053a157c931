package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// searchQuery is one measured `cairn search`.
type searchQuery struct {
	kind  string // rare or common, for the log and the metric names
	words []string
	extra []string // flags after the words
}

// searchQueries are a rare term, the coldest ticket key of the pool (the
// Zipf draw almost never picks it, so a handful of records name it), and
// a common word counted only: "success", the conclusion of most CI runs,
// is in about a fifth of all records (over 15,000 at 100k; the log shows
// the count), so its --count must stream rather than hold every match.
func searchQueries(p genParams) []searchQuery {
	w := newWorld(p)
	return []searchQuery{
		{"rare", []string{ticketKey(w.tickets - 1)}, nil},
		{"common", []string{"success"}, []string{"--count"}},
	}
}

// measureSearch times both searches against current artifacts, after
// checking once, with --format json, that each read the artifacts and
// logging its record count.
func measureSearch(b *bench) error {
	if _, err := b.cairn("build", "--quiet"); err != nil {
		return err
	}
	asOf := lastDay(b.base.params).Format(time.DateOnly)
	for _, q := range searchQueries(b.base.params) {
		args := append(append([]string{"search"}, q.words...), append([]string{"--as-of", asOf}, q.extra...)...)
		r, err := b.cairn(append(args, "--format", "json")...)
		if err != nil {
			return err
		}
		var doc struct {
			Groups []struct {
				Name  string `json:"name"`
				Count int    `json:"count"`
			} `json:"groups"`
			Index struct {
				State  string `json:"state"`
				Reason string `json:"reason"`
			} `json:"index"`
		}
		if err := json.Unmarshal(r.stdout, &doc); err != nil {
			return fmt.Errorf("cairn %s --format json: not a JSON answer: %w", strings.Join(args, " "), err)
		}
		if doc.Index.State != "used" {
			return fmt.Errorf("cairn %s did not use the artifacts after a build: index %s (%s)", strings.Join(args, " "), doc.Index.State, doc.Index.Reason)
		}
		var counts []string
		for _, g := range doc.Groups {
			counts = append(counts, fmt.Sprintf("%s=%d", strings.ReplaceAll(g.Name, " ", "_"), g.Count))
		}
		fmt.Fprintf(b.log, "%s:   search %-7s %-24s %s\n", b.label, q.kind, strings.Join(append(slices.Clone(q.words), q.extra...), " "), strings.Join(counts, " "))
		runs, err := b.repeat(nil, args...)
		if err != nil {
			return err
		}
		ms := durations(runs, time.Millisecond)
		target := "<= 50"
		if q.kind == "common" {
			target = "<= 150"
		}
		b.record(metric{Name: "search_" + q.kind + "_ms", Label: "search " + q.kind + " term (median)", Unit: "ms", Value: median(ms), Samples: ms, Target: target})
		b.record(metric{Name: "search_" + q.kind + "_peak_rss_mib", Label: "search " + q.kind + " term peak RSS", Unit: "MiB", Value: peakMiB(runs), Target: "<= 50"})
	}
	return nil
}
