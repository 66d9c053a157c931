package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// contextBudget is the token budget of every measured query.
const contextBudget = 4096

// contextQuery is one measured `cairn context` query.
type contextQuery struct {
	kind  string   // what it exercises, for the log
	words []string // the query as an agent would type it
}

// contextQueries are the measured queries, drawn from what the generator
// writes: vocabulary words of middling frequency (their ranks are fixed
// whatever the seed, see vocabularySeed), a hot ticket key that every
// source references, an identity's alias address, a repository URI, the
// "last" operator and the two window forms, resolved at lastDay; and one
// question in the hottest words (CI workflow names are deploy-*), whose
// tens of thousands of candidates are the worst case of scoring.
func contextQueries(p genParams) []contextQuery {
	last := lastDay(p)
	w := newWorld(p)
	person := w.people[6] // a mid-rank person with an identity (< identityCount)
	return []contextQuery{
		{"question", strings.Fields("what changed in certificate renewal")},
		{"ticket id", []string{ticketKey(2)}},
		{"alias email", []string{strings.TrimPrefix(person.AliasURI, "person:email/")}},
		{"repo URI", []string{w.repos[3].URI}},
		{"last", strings.Fields("last incident")},
		// The weekday two days before the last day: a day inside the base.
		{"weekday window", []string{"schema", "migration", strings.ToLower(last.AddDate(0, 0, -2).Weekday().String())}},
		{"month window", []string{"rollback", "timeout", last.Format("2006-01")}},
		{"common words", strings.Fields("deploy pipeline failure")},
	}
}

// lastDay is the base's last event day, the as-of day of every query.
func lastDay(p genParams) time.Time { return firstDay.AddDate(0, 0, p.Days-1) }

// contextArgs is the command line of one query.
func contextArgs(q contextQuery, asOf string, extra ...string) []string {
	args := append([]string{"context"}, q.words...)
	args = append(args, "--as-of", asOf, "--budget", fmt.Sprint(contextBudget))
	return append(args, extra...)
}

// measureContextIndexed times the queries against current artifacts. It
// builds first (untimed; a no-op after the previous measurements) and
// checks, once per query with --format json, that the pack was read from
// the artifacts: a query that fell back to the scan would be timed under
// the wrong name.
func measureContextIndexed(b *bench) error {
	if _, err := b.cairn("build", "--quiet"); err != nil {
		return err
	}
	asOf := lastDay(b.base.params).Format(time.DateOnly)
	for _, q := range contextQueries(b.base.params) {
		r, err := b.cairn(contextArgs(q, asOf, "--format", "json")...)
		if err != nil {
			return err
		}
		var pack struct {
			Items   []json.RawMessage `json:"items"`
			Receipt struct {
				Candidates int `json:"candidates"`
				Index      struct {
					State  string `json:"state"`
					Reason string `json:"reason"`
				} `json:"index"`
				Warning string `json:"warning"`
			} `json:"receipt"`
		}
		if err := json.Unmarshal(r.stdout, &pack); err != nil {
			return fmt.Errorf("cairn context %s --format json: not a JSON pack: %w", strings.Join(q.words, " "), err)
		}
		if st := pack.Receipt.Index; st.State != "used" {
			return fmt.Errorf("cairn context %s did not use the artifacts after a build: index %s (%s)", strings.Join(q.words, " "), st.State, st.Reason)
		}
		fmt.Fprintf(b.log, "%s:   %-14s %-40s candidates=%d items=%d%s\n", b.label, q.kind, strings.Join(q.words, " "),
			pack.Receipt.Candidates, len(pack.Items), orNone(" warning=", pack.Receipt.Warning))
	}
	runs, err := b.contextRuns(asOf)
	if err != nil {
		return err
	}
	ms := durations(runs, time.Millisecond)
	b.record(metric{Name: "context_indexed_ms", Label: "context indexed (median)", Unit: "ms", Value: median(ms), Samples: ms, Target: "<= 30"})
	b.record(metric{Name: "context_indexed_p90_ms", Label: "context indexed (p90)", Unit: "ms", Value: percentile(ms, 90)})
	b.record(metric{Name: "context_indexed_peak_rss_mib", Label: "context indexed peak RSS", Unit: "MiB", Value: peakMiB(runs), Target: "<= 50"})
	return nil
}

// measureContextScan times the same queries with the artifacts moved
// aside, so every query scans the base. .cairn is renamed to .cairn.off
// and always renamed back; while it is away the base has no stamp, so a
// benchmark killed in between regenerates the base next time.
func measureContextScan(b *bench) (err error) {
	dir := filepath.Join(b.base.dir, ".cairn")
	off := dir + ".off"
	if err := os.RemoveAll(off); err != nil { // left by an earlier crash
		return err
	}
	if err := os.Remove(b.base.stamp); err != nil && !os.IsNotExist(err) {
		return err
	}
	switch err := os.Rename(dir, off); {
	case err == nil:
		defer func() {
			if rerr := os.Rename(off, dir); rerr != nil {
				err = errors.Join(err, rerr)
				return
			}
			err = errors.Join(err, b.base.writeStamp())
		}()
	case os.IsNotExist(err):
		defer func() { err = errors.Join(err, b.base.writeStamp()) }()
	default:
		return err
	}
	runs, err := b.contextRuns(lastDay(b.base.params).Format(time.DateOnly))
	if err != nil {
		return err
	}
	ms := durations(runs, time.Millisecond)
	b.record(metric{Name: "context_scan_ms", Label: "context scan (median)", Unit: "ms", Value: median(ms), Samples: ms, Target: "<= 1500"})
	b.record(metric{Name: "context_scan_peak_rss_mib", Label: "context scan peak RSS", Unit: "MiB", Value: peakMiB(runs)})
	return nil
}

// contextRuns runs every query b.runs times, query by query, and returns
// all the runs in that order. A query must exit 0 and print a pack.
func (b *bench) contextRuns(asOf string) ([]childRun, error) {
	var all []childRun
	for _, q := range contextQueries(b.base.params) {
		args := contextArgs(q, asOf)
		var ms []float64
		for range b.runs {
			r, err := b.cairn(args...)
			if err != nil {
				return nil, err
			}
			if len(strings.TrimSpace(string(r.stdout))) == 0 {
				return nil, fmt.Errorf("%s --base %s %s exited 0 but printed no pack", b.bin, b.base.dir, strings.Join(args, " "))
			}
			all = append(all, r)
			ms = append(ms, float64(r.wall)/float64(time.Millisecond))
		}
		fmt.Fprintf(b.log, "%s:   %-14s %-40s median %s ms\n", b.label, q.kind, strings.Join(q.words, " "), formatValue("ms", median(ms)))
	}
	return all, nil
}

// percentile is the nearest-rank p-th percentile of xs.
func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func orNone(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
