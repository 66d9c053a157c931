package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeContext is the part of a stand-in cairn that answers `context`
// ($3, after --base DIR): it appends the index state it sees to
// $XDG_CACHE_HOME/context.log and prints a pack, as JSON when asked.
const fakeContext = `if [ "$3" = context ]; then
  state=missing; [ -d "$2/.cairn" ] && state=used
  mkdir -p "$XDG_CACHE_HOME" && echo "$state" >> "$XDG_CACHE_HOME/context.log"
  case " $* " in
  *" --format json "*) printf '{"items":[{"uri":"events/2026-11-02/tickets.json#ABC-100"}],"receipt":{"candidates":1,"index":{"state":"%s"}}}\n' "$state" ;;
  *) echo "pack; receipt: index=$state" ;;
  esac
  exit 0
fi
`

func TestContextQueries(t *testing.T) {
	p := genParams{Records: 100000, Days: 10, Seed: 1}
	if got := lastDay(p).Format(time.DateOnly); got != "2026-11-04" {
		t.Fatalf("lastDay = %s, want 2026-11-04", got)
	}
	qs := contextQueries(p)
	w := newWorld(p)
	rank := map[string]int{}
	for i, word := range w.voc.words {
		rank[word] = i
	}
	byKind := map[string][]string{}
	for _, q := range qs {
		byKind[q.kind] = q.words
		if q.kind == "question" || q.kind == "last" || strings.HasSuffix(q.kind, "window") {
			// The content words come from the vocabulary at middling
			// ranks: neither the most common nor the long tail.
			n := 0
			for _, word := range q.words {
				if r, ok := rank[word]; ok && r >= len(functionWords) {
					n++
					if r < len(functionWords)+20 || r > 600 {
						t.Errorf("%s: %q has rank %d, not a mid-frequency word", q.kind, word, r)
					}
				}
			}
			if n == 0 {
				t.Errorf("%s %q has no vocabulary word", q.kind, q.words)
			}
		}
	}
	if got := byKind["weekday window"]; !slices.Contains(got, "monday") {
		t.Errorf("weekday window %q: want monday, two days before Wednesday 2026-11-04", got)
	}
	if got := byKind["month window"]; !slices.Contains(got, "2026-11") {
		t.Errorf("month window %q: want 2026-11", got)
	}
	if got := byKind["last"]; len(got) != 2 || got[0] != "last" {
		t.Errorf("last query %q", got)
	}
	// The entities exist in the base: a hot ticket of the pool, the alias
	// of a person with an identity, a repository.
	hot := false
	for i := range ticketPrefixLen {
		hot = hot || byKind["ticket id"][0] == ticketKey(i)
	}
	if !hot {
		t.Errorf("ticket %q is not one of the hottest tickets", byKind["ticket id"])
	}
	alias := slices.IndexFunc(w.people, func(pp person) bool { return pp.AliasURI == "person:email/"+byKind["alias email"][0] })
	if alias < 0 || alias >= identityCount || !strings.Contains(byKind["alias email"][0], "@") {
		t.Errorf("alias %q is not an identity's alias (person %d)", byKind["alias email"], alias)
	}
	if !slices.ContainsFunc(w.repos, func(r repo) bool { return r.URI == byKind["repo URI"][0] }) {
		t.Errorf("%q is not a repository of the base", byKind["repo URI"])
	}
	if len(qs) < 6 {
		t.Errorf("%d queries", len(qs))
	}
	args := contextArgs(qs[0], "2026-11-04")
	if want := []string{"context", "what", "changed", "in", "certificate", "renewal", "--as-of", "2026-11-04", "--budget", "4096"}; !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if p := percentile(xs, 90); p != 9 {
		t.Errorf("p90 = %v, want 9", p)
	}
	if p := percentile(xs, 50); p != 5 {
		t.Errorf("p50 = %v, want 5", p)
	}
	if p := percentile([]float64{3}, 90); p != 3 {
		t.Errorf("p90 of one = %v", p)
	}
}

// contextBench is a bench over a small generated base, measured with the
// stand-in binary of script.
func contextBench(t *testing.T, script string) *bench {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cairn")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := genParams{Records: 300, Days: 3, Seed: 1}
	c := cachedBase{dir: filepath.Join(dir, "base"), stamp: filepath.Join(dir, "base.json"), params: p}
	st, err := generate(c.dir, p)
	if err != nil {
		t.Fatal(err)
	}
	c.stats = st
	if err := c.writeStamp(); err != nil {
		t.Fatal(err)
	}
	return &bench{bin: bin, base: c, runs: 2, log: &bytes.Buffer{}, label: "300", cache: filepath.Join(dir, "cache")}
}

const fakeBuild = "mkdir -p \"$2/.cairn\" && echo '{}' > \"$2/.cairn/manifest.json\"\n"

// assertRestored checks that the artifacts are back in place and the base
// has its stamp again.
func assertRestored(t *testing.T, b *bench) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(b.base.dir, ".cairn", "manifest.json")); err != nil {
		t.Errorf(".cairn was not restored: %v", err)
	}
	if _, err := os.Stat(filepath.Join(b.base.dir, ".cairn.off")); !os.IsNotExist(err) {
		t.Errorf(".cairn.off is still there (%v)", err)
	}
	if _, err := os.Stat(b.base.stamp); err != nil {
		t.Errorf("the stamp was not rewritten: %v", err)
	}
}

func TestContextMeasurements(t *testing.T) {
	b := contextBench(t, fakeContext+fakeBuild)
	if err := measureContextIndexed(b); err != nil {
		t.Fatal(err)
	}
	if err := measureContextScan(b); err != nil {
		t.Fatal(err)
	}
	assertRestored(t, b)
	n := len(contextQueries(b.base.params))
	got := map[string]metric{}
	for _, m := range b.metrics {
		got[m.Name] = m
	}
	for _, name := range []string{"context_indexed_ms", "context_scan_ms"} {
		if len(got[name].Samples) != n*b.runs {
			t.Errorf("%s has %d samples, want %d", name, len(got[name].Samples), n*b.runs)
		}
	}
	for _, name := range []string{"context_indexed_p90_ms", "context_indexed_peak_rss_mib", "context_scan_peak_rss_mib"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no metric %s", name)
		}
	}
	if got["context_indexed_ms"].Target != "<= 30" || got["context_indexed_peak_rss_mib"].Target != "<= 50" || got["context_scan_ms"].Target != "<= 1500" {
		t.Errorf("targets: %+v", got)
	}
	// One JSON check per query, then the timed runs with the artifacts,
	// then the timed runs without them.
	log, err := os.ReadFile(filepath.Join(b.cache, "context.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("used\n", n+n*b.runs) + strings.Repeat("missing\n", n*b.runs)
	if string(log) != want {
		t.Errorf("states seen by the queries:\n%s\nwant\n%s", log, want)
	}
}

func TestContextScanRestoresOnFailure(t *testing.T) {
	b := contextBench(t, `if [ "$3" = context ]; then echo 'query: broken [y]' >&2; exit 3; fi
`+fakeBuild)
	if _, err := b.cairn("build"); err != nil {
		t.Fatal(err)
	}
	err := measureContextScan(b)
	if err == nil || !strings.Contains(err.Error(), "broken [y]") || !strings.Contains(err.Error(), "status 3") {
		t.Errorf("a failing query gave %v, want its stderr and status", err)
	}
	assertRestored(t, b)
}

func TestContextFailures(t *testing.T) {
	silent := contextBench(t, `if [ "$3" = context ]; then exit 0; fi
`+fakeBuild)
	if _, err := silent.cairn("build"); err != nil {
		t.Fatal(err)
	}
	if err := measureContextScan(silent); err == nil || !strings.Contains(err.Error(), "printed no pack") {
		t.Errorf("an empty pack gave %v", err)
	}
	assertRestored(t, silent)

	stale := contextBench(t, `if [ "$3" = context ]; then echo '{"items":[],"receipt":{"index":{"state":"stale","reason":"inputs changed"}}}'; exit 0; fi
`+fakeBuild)
	if err := measureContextIndexed(stale); err == nil || !strings.Contains(err.Error(), "did not use the artifacts") || !strings.Contains(err.Error(), "inputs changed") {
		t.Errorf("a query that scanned after a build gave %v", err)
	}
}
