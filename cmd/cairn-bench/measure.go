package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// measurement is one step of a size's benchmark. Steps run in this order
// against the same base and may rely on earlier ones: the no-op rebuild
// needs a build, the artifact sizes need the artifacts. A new measurement
// (query latency, say) is a function appended here that records metrics.
type measurement struct {
	name string
	run  func(b *bench) error
}

var measurements = []measurement{
	{"cold build", measureColdBuild},
	{"cold build beside fts5", measureColdBuildPaired},
	{"no-op rebuild", measureNoopBuild},
	{"artifact bytes", measureArtifacts},
	{"one-record edit", measureOneEdit},
	{"new day", measureNewDay},
	{"page edit", measurePageEdit},
	{"context after an unbuilt edit", measureQueryAfterEdit},
	{"context indexed", measureContextIndexed},
	{"context scan", measureContextScan},
	{"search", measureSearch},
	{"read", measureRead},
	{"context in a running server", measureContextServer},
}

// selectMeasurements picks the measurements named in only (comma
// separated), in the benchmark's order; all of them when only is empty.
// Each measurement builds what it needs, so any one runs alone.
func selectMeasurements(only string) ([]measurement, error) {
	if only == "" {
		return measurements, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(only, ",") {
		want[strings.TrimSpace(name)] = true
	}
	var out []measurement
	for _, m := range measurements {
		if want[m.name] {
			out = append(out, m)
			delete(want, m.name)
		}
	}
	if len(want) > 0 {
		var names []string
		for _, m := range measurements {
			names = append(names, m.name)
		}
		return nil, fmt.Errorf("--only %q: unknown measurement %q; use one of: %s", only, slices.Sorted(maps.Keys(want))[0], strings.Join(names, ", "))
	}
	return out, nil
}

// measureColdBuild builds from nothing: the artifacts, any rules files a
// previous build wrote and the machine-local stat cache are removed before
// each run, so every input is read and hashed.
func measureColdBuild(b *bench) error {
	runs, err := b.repeat(func(int) error {
		if err := os.RemoveAll(b.cache); err != nil {
			return err
		}
		return removeBuildOutputs(b.base.dir)
	}, "build", "--quiet")
	if err != nil {
		return err
	}
	secs := durations(runs, time.Second)
	med := median(secs)
	b.record(metric{Name: "cold_build_s", Label: "cold build", Unit: "s", Value: med, Samples: secs, Target: "<= 3"})
	recs := float64(b.base.stats.Records + b.base.stats.IndexRecords)
	b.record(metric{Name: "cold_build_records_per_s", Label: "cold build throughput", Unit: "rec/s", Value: recs / med})
	b.record(metric{Name: "cold_build_mb_per_s", Label: "cold build throughput", Unit: "MB/s", Value: float64(b.input) / 1e6 / med})
	b.record(metric{Name: "cold_build_peak_rss_mib", Label: "cold build peak RSS", Unit: "MiB", Value: peakMiB(runs), Target: "<= 250"})
	cpu := cpuSeconds(runs)
	b.record(metric{Name: "cold_build_cpu_s", Label: "cold build CPU (user+sys)", Unit: "s", Value: median(cpu), Samples: cpu})
	return nil
}

// measureNoopBuild rebuilds with nothing changed.
func measureNoopBuild(b *bench) error {
	runs, err := b.repeat(nil, "build", "--quiet")
	if err != nil {
		return err
	}
	ms := durations(runs, time.Millisecond)
	b.record(metric{Name: "noop_build_ms", Label: "no-op rebuild", Unit: "ms", Value: median(ms), Samples: ms, Target: "<= 100"})
	b.record(metric{Name: "noop_build_peak_rss_mib", Label: "no-op rebuild peak RSS", Unit: "MiB", Value: peakMiB(runs)})
	return nil
}

// measureArtifacts compares the bytes under .cairn/ with the base's.
func measureArtifacts(b *bench) error {
	_, n, err := treeSize(filepath.Join(b.base.dir, ".cairn"), nil)
	if err != nil {
		return err
	}
	b.record(metric{Name: "artifact_bytes", Label: "artifact bytes", Unit: "MB", Value: float64(n) / 1e6})
	b.record(metric{Name: "artifact_ratio", Label: "artifacts / base", Unit: "ratio", Value: float64(n) / float64(b.input), Target: "<= 1"})
	return nil
}

// measureOneEdit rewrites one events document with one record's title
// changed (a different text each run) and times the rebuild. Afterwards
// the document is restored and rebuilt, untimed, so later measurements
// see fresh artifacts of the unedited base.
func measureOneEdit(b *bench) error {
	rel, path, orig, err := editDocument(b.base)
	if err != nil {
		return err
	}
	return b.alterAndBuild("one_edit", "one-record edit", func(i int) error {
		edited, err := editOneRecord(orig, "summary", fmt.Sprintf("Edited by cairn-bench run %d: benchedit%d retry ledger", i+1, i+1))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if i == 0 && !json.Valid(edited) {
			return fmt.Errorf("%s: the edit broke the JSON", rel)
		}
		return os.WriteFile(path, edited, 0o644)
	}, func() error { return os.WriteFile(path, orig, 0o644) })
}

// editTarget picks the tickets document of the middle day that has one.
func editTarget(c cachedBase) (string, error) {
	days := c.params.Days
	for k := range days {
		d := (days/2 + k) % days
		rel := "events/" + firstDay.AddDate(0, 0, d).Format("2006-01-02") + "/tickets.json"
		if _, err := os.Stat(filepath.Join(c.dir, filepath.FromSlash(rel))); err == nil {
			return rel, nil
		}
	}
	return "", fmt.Errorf("no tickets document to edit in %s", c.dir)
}

// editOneRecord returns doc with the string value of key in its middle
// record (one record a line, as the generator writes them) replaced by
// text.
func editOneRecord(doc []byte, key, text string) ([]byte, error) {
	lines := bytes.SplitAfter(doc, []byte("\n"))
	var recs []int
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("    {")) {
			recs = append(recs, i)
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no record lines")
	}
	i := recs[len(recs)/2]
	line := lines[i]
	needle := appendKey(nil, key)
	at := bytes.Index(line, append(needle, '"'))
	if at < 0 {
		return nil, fmt.Errorf("the middle record has no string %q", key)
	}
	start := at + len(needle)
	end := start + 1
	for end < len(line) && line[end] != '"' {
		if line[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(line) {
		return nil, fmt.Errorf("unterminated string %q", key)
	}
	var nl []byte
	nl = append(nl, line[:start]...)
	nl = appendJSON(nl, text)
	nl = append(nl, line[end+1:]...)
	lines[i] = nl
	return bytes.Join(lines, nil), nil
}

// removeBuildOutputs deletes .cairn/ and every rules file of the base.
func removeBuildOutputs(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, ".cairn")); err != nil {
		return err
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (d.Name() == "AGENTS.md" || d.Name() == "CLAUDE.md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return nil
}

func durations(runs []childRun, unit time.Duration) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = float64(r.wall) / float64(unit)
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func peakMiB(runs []childRun) float64 {
	var peak int64
	for _, r := range runs {
		peak = max(peak, r.rssKiB)
	}
	return float64(peak) / 1024
}
