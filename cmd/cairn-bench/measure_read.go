package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// readTarget is one measured `cairn read`.
type readTarget struct {
	kind string // what it exercises, for the log and the metric's name
	uri  string
}

// readTargets are a record and the hub entity: the hottest repository
// (rank 0 of the repository draw), on most records, so that its inbound
// line in edges.dst.tsv is the longest of the base and a first page must
// read only its head. The record is the first event record the indexed
// `cairn context` of the hottest ticket delivers: whatever its document,
// a read finds it by binary search in docs.tsv and reads its span.
func (b *bench) readTargets() ([]readTarget, error) {
	w := newWorld(b.base.params)
	asOf := lastDay(b.base.params).Format(time.DateOnly)
	r, err := b.cairn(contextArgs(contextQuery{words: []string{ticketKey(0)}}, asOf, "--format", "json")...)
	if err != nil {
		return nil, err
	}
	var pack struct {
		Items []struct {
			URI string `json:"uri"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.stdout, &pack); err != nil {
		return nil, fmt.Errorf("cairn context %s --format json: not a JSON pack: %w", ticketKey(0), err)
	}
	record := ""
	for _, it := range pack.Items {
		if strings.HasPrefix(it.URI, "events/") && strings.Contains(it.URI, "#") {
			record = it.URI
			break
		}
	}
	if record == "" {
		return nil, fmt.Errorf("cairn context %s delivered no event record to read", ticketKey(0))
	}
	return []readTarget{{"record", record}, {"hub", w.repos[0].URI}}, nil
}

// measureRead times `cairn read` of a record and of the hub entity
// against current artifacts, one process per run. Each is read once with
// --format json first, to check that it was answered from the artifacts
// and is what it should be.
func measureRead(b *bench) error {
	if _, err := b.cairn("build", "--quiet"); err != nil {
		return err
	}
	targets, err := b.readTargets()
	if err != nil {
		return err
	}
	var all []childRun
	for _, t := range targets {
		r, err := b.cairn("read", t.uri, "--format", "json")
		if err != nil {
			return err
		}
		var a struct {
			Kind  string `json:"kind"`
			Index struct {
				State  string `json:"state"`
				Reason string `json:"reason"`
			} `json:"index"`
		}
		if err := json.Unmarshal(r.stdout, &a); err != nil {
			return fmt.Errorf("cairn read %s --format json: not a JSON answer: %w", t.uri, err)
		}
		if a.Index.State != "used" {
			return fmt.Errorf("cairn read %s did not use the artifacts after a build: index %s (%s)", t.uri, a.Index.State, a.Index.Reason)
		}
		want := map[string]string{"record": "record", "hub": "entity"}[t.kind]
		if a.Kind != want {
			return fmt.Errorf("cairn read %s answered a %q, want a %s", t.uri, a.Kind, want)
		}
		runs, err := b.repeat(nil, "read", t.uri)
		if err != nil {
			return err
		}
		all = append(all, runs...)
		ms := durations(runs, time.Millisecond)
		fmt.Fprintf(b.log, "%s:   read %-7s %-60s median %s ms\n", b.label, t.kind, t.uri, formatValue("ms", median(ms)))
		b.record(metric{Name: "read_" + t.kind + "_ms", Label: "read " + t.kind + " (median)", Unit: "ms", Value: median(ms), Samples: ms, Target: "<= 30"})
	}
	b.record(metric{Name: "read_peak_rss_mib", Label: "read peak RSS", Unit: "MiB", Value: peakMiB(all), Target: "<= 50"})
	return nil
}
