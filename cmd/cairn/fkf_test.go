package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fkfConfig is an fkf.yaml as fkf documents it: a schema, layers switched
// on and off, and sources with their fields, recency and command.
const fkfConfig = `schema:
  title: {weight: 5}
  repository: {relation: true, cardinality: optional}
layers:
  events: true
  index: true
  wiki: true
  projects: false
sources:
  git-commits:
    fields: {id: .sha, title: .subject, time: .date, repository: .repo}
    recency: {half_life_days: 14}
  standups:
    enabled: true
    run: [sh, scripts/standup.sh]
    fields: {id: .id, title: .title, time: .at}
`

// fkfCommits is a document fkf's own collector wrote.
const fkfCommits = `{"fkf": 1, "source": "git-commits", "layer": "events", "date": "2026-11-24",
 "fields": {"id": ".sha", "title": ".subject", "time": ".date", "repository": ".repo"},
 "window_start": "2026-11-24T00:00:00Z", "window_end": "2026-11-25T00:00:00Z",
 "collected_at": "2026-11-25T04:00:00Z", "count": 1,
 "records": [{"sha": "c0ffee1", "subject": "Bound the retrieval window to populated days", "date": "2026-11-24T10:12:00Z", "repo": "repo:example.test/fkf-notes"}]}
`

// fkfStandup is a standups day fkf collected before cairn came.
const fkfStandup = `{"fkf": 1, "source": "standups", "fields": {"id": ".id", "title": ".title", "time": ".at"}, "count": 1,
 "records": [{"id": "s-26", "title": "Standup: the zeppelin migration slips a week", "at": "2026-11-26T09:00:00Z"}]}
`

const standupScript = `#!/bin/sh
printf '[{"id": "s-%s", "title": "Standup of %s", "at": "%sT09:00:00Z"}]\n' "$CAIRN_SINCE" "$CAIRN_SINCE" "$CAIRN_SINCE"
`

// fkfBase writes an fkf-shaped base: fkf.yaml and no cairn.yaml, fkf's
// documents, a wiki page, a page in a layer switched off, and fkf's own
// hidden index files.
func fkfBase(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fkf")
	writeFile(t, filepath.Join(dir, "fkf.yaml"), fkfConfig)
	writeFile(t, filepath.Join(dir, "events", "2026-11-24", "git-commits.json"), fkfCommits)
	writeFile(t, filepath.Join(dir, "events", "2026-11-26", "standups.json"), fkfStandup)
	writeFile(t, filepath.Join(dir, "wiki", "retrieval-window.md"), "---\ntitle: Retrieval window\n---\n\nThe window starts at the oldest populated day.\n")
	writeFile(t, filepath.Join(dir, "projects", "zeppelin.md"), "---\ntitle: Zeppelin\n---\n\nA project page in a layer fkf.yaml switches off.\n")
	writeFile(t, filepath.Join(dir, "index", ".fkf-index.postings.tsv"), "fkf's own cache\n")
	writeFile(t, filepath.Join(dir, "scripts", "standup.sh"), standupScript)
	return dir
}

// TestFkfBase: a folder with fkf.yaml and no cairn.yaml is found as a
// base and built; fkf's documents answer; a layer switched off is not
// read; collect runs fkf's source commands and never rewrites fkf's files.
func TestFkfBase(t *testing.T) {
	isolate(t)
	dir := fkfBase(t)
	before := readTree(t, dir)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return filepath.Join(dir, "wiki"), nil }, Now: func() time.Time { return collectNow }}
	if code := runEnv([]string{"build"}, env); code != 0 {
		t.Fatalf("build in an fkf base exited %d:\n%s", code, errb.String())
	}
	if code, _, stderr := cairn(t, "--base", dir, "build"); code != 0 || !strings.Contains(stderr, "nothing to do") {
		t.Errorf("a second build exited %d: %s", code, stderr)
	}
	code, pack, stderr := cairnAt(t, collectNow, "--base", dir, "context", "retrieval", "window", "--as-of", "2026-11-28")
	if code != 0 || !strings.Contains(pack, "events/2026-11-24/git-commits.json#c0ffee1") || !strings.Contains(pack, "wiki/retrieval-window.md") {
		t.Errorf("the pack misses fkf's record or page (exit %d):\n%s%s", code, pack, stderr)
	}
	code, pack, _ = cairnAt(t, collectNow, "--base", dir, "search", "zeppelin", "--as-of", "2026-11-28")
	if code != 0 || strings.Contains(pack, "projects/zeppelin.md") || !strings.Contains(pack, "events/2026-11-26/standups.json#s-26") {
		t.Errorf("search zeppelin (projects is off):\n%s", pack)
	}

	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "--days", "3", "--refresh", "--as-of", "2026-11-28")
	if code != 0 || stdout != "events/2026-11-25/standups.json\nevents/2026-11-27/standups.json\n" {
		t.Fatalf("collect in an fkf base: exit %d, %q\n%s", code, stdout, stderr)
	}
	after := readTree(t, dir)
	for p, data := range before {
		if !bytes.Equal(after[p], data) {
			t.Errorf("cairn changed fkf's file %s", p)
		}
	}
	mustBuild(t, dir)
}

// TestFkfRefusals: what cairn cannot honour in fkf.yaml is an error that
// names the file, the line and the key.
func TestFkfRefusals(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "fkf")
	writeFile(t, filepath.Join(dir, "fkf.yaml"), "layers:\n  events: true\n  inbox: false\nsources:\n  mail:\n    run: python3 collect_mail.py\n")
	code, _, stderr := cairn(t, "--base", dir, "build")
	for _, want := range []string{
		`fkf.yaml:3:3: error: layer "inbox" is not one cairn knows; known layers: events, index, wiki, projects, tasks, bodies, governance [unknown-layer]`,
		`fkf.yaml:6:10: error: wrong value for sources.mail.run: run is one command line, which needs a shell, and cairn runs commands without one; write it as a list of words, like [python3, scripts/collect.py]; fix the value [yaml-type]`,
	} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d; stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

// fkfDocumentedConfig is an fkf.yaml with every key fkf documents for its
// configuration contract: the marker, the base's name, the schema with
// descriptions, the layers, sources with their readiness, planning, body
// and retry keys, and the sync defaults.
const fkfDocumentedConfig = `fkf: 1
name: ferry-notes
schema:
  id: {description: Stable record identity., cardinality: one}
  time: {description: Event timestamp., cardinality: one}
  title: {description: Human-readable label., cardinality: optional}
  repository: {description: Related repository., cardinality: optional, relation: true, examples: ["repo:example.test/ferry"]}
layers:
  events: true
  index: true
  tasks: true
  projects: true
  wiki: true
sources:
  git-commits:
    enabled: true
    layer: events
    requires: [git-log-json, git]
    window: true
    run: [git-log-json, "{{start}}", "{{end}}", "{{home}}"]
    format: ndjson
    fields: {id: .uid, time: .time, repository: .repository_uri}
    body: [git, show, "{{id}}"]
    install: Put git-log-json under bin/.
    timeout: 2m0s
    retry: {attempts: 3, backoff: 30s, on: ["exit:75"]}
    min_interval: 1s
  standups:
    enabled: true
    layer: events
    run: [standup-json, "{{date}}", "{{next_date}}"]
    records: .data.items
    fields: {id: .id, time: .at, title: .title}
  browser-history:
    layer: events
    run: [browser-history-json, "{{date}}"]
    fields: {id: .url, time: .visited}
sync:
  days: 30
  index_max_age_hours: 168
  timeout: 2m0s
  concurrency: 4
`

// fkfDocumentedCommits is a day as fkf's collector stores it: the
// envelope keys in fkf's order, with its types: the schema subset beside
// the fields paths, "body" saying (as a boolean) whether a body command
// is declared, and the count.
const fkfDocumentedCommits = `{
  "fkf": 1,
  "source": "git-commits",
  "layer": "events",
  "date": "2026-11-24",
  "collected_at": "2026-11-25T04:00:00Z",
  "window_start": "2026-11-24T00:00:00Z",
  "window_end": "2026-11-25T00:00:00Z",
  "schema": {
    "id": {"description": "Stable record identity.", "cardinality": "one"},
    "repository": {"description": "Related repository.", "cardinality": "optional", "relation": true},
    "time": {"description": "Event timestamp.", "cardinality": "one"}
  },
  "fields": {"id": ".uid", "repository": ".repository_uri", "time": ".time"},
  "body": true,
  "count": 1,
  "records": [
    {"uid": "9e1f00d", "subject": "Drop the ferry timetable cache after a schedule change", "time": "2026-11-24T15:30:00Z", "repository_uri": "repo:example.test/ferry", "message": "The timetable cache is dropped after each schedule change."}
  ]
}
`

// fkfDocumentedStandups is a day of a source without a body command.
const fkfDocumentedStandups = `{
  "fkf": 1,
  "source": "standups",
  "layer": "events",
  "date": "2026-11-26",
  "collected_at": "2026-11-27T04:00:00Z",
  "window_start": "2026-11-26T00:00:00Z",
  "window_end": "2026-11-27T00:00:00Z",
  "schema": {"id": {"cardinality": "one"}, "time": {"cardinality": "one"}, "title": {"cardinality": "optional"}},
  "fields": {"id": ".id", "time": ".at", "title": ".title"},
  "body": false,
  "count": 1,
  "records": [{"id": "s-26", "title": "Standup: the timetable cache question is settled", "at": "2026-11-26T09:00:00Z"}]
}
`

// TestFkfDocumentedFormat: a base written to fkf's documented format, its
// configuration and its stored documents, builds with no warning and
// answers, and collect leaves alone a source fkf.yaml does not enable.
func TestFkfDocumentedFormat(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "ferry")
	writeFile(t, filepath.Join(dir, "fkf.yaml"), fkfDocumentedConfig)
	writeFile(t, filepath.Join(dir, "events", "2026-11-24", "git-commits.json"), fkfDocumentedCommits)
	writeFile(t, filepath.Join(dir, "events", "2026-11-26", "standups.json"), fkfDocumentedStandups)
	writeFile(t, filepath.Join(dir, "wiki", "timetable-cache.md"), "---\ntitle: Timetable cache\n---\n\nThe cache is dropped whenever the schedule changes.\n")
	code, _, stderr := cairn(t, "--base", dir, "build")
	if code != 0 || strings.Contains(stderr, "warning") || strings.Contains(stderr, "error") {
		t.Fatalf("build of a documented fkf base exited %d:\n%s", code, stderr)
	}
	code, pack, stderr := cairnAt(t, collectNow, "--base", dir, "context", "timetable", "cache", "--as-of", "2026-11-28")
	for _, want := range []string{"events/2026-11-26/standups.json#s-26", "wiki/timetable-cache.md"} {
		if code != 0 || !strings.Contains(pack, want) {
			t.Errorf("the pack lacks %s (exit %d):\n%s%s", want, code, pack, stderr)
		}
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("context warned:\n%s", stderr)
	}
	// A record is found by the fields its source maps: here its id and
	// repository, and not its subject, which fkf.yaml leaves unmapped.
	code, pack, _ = cairnAt(t, collectNow, "--base", dir, "search", "9e1f00d", "--as-of", "2026-11-28")
	if code != 0 || !strings.Contains(pack, "events/2026-11-24/git-commits.json#9e1f00d") {
		t.Errorf("search by the commit's id (exit %d):\n%s", code, pack)
	}
	// fkf.yaml's name is the project's identity in provenance, not the
	// folder's name.
	if !strings.Contains(pack, "provenance: project=ferry-notes ") {
		t.Errorf("the provenance does not name the project as fkf.yaml does:\n%s", pack)
	}
	if code, pack, _ = cairnAt(t, collectNow, "--base", dir, "search", "schedule", "--as-of", "2026-11-28"); strings.Contains(pack, "9e1f00d") {
		t.Errorf("an unmapped field was searched:\n%s", pack)
	}

	// collect runs the enabled sources as fkf runs them: placeholders
	// filled in, nothing appended, helpers found in the base's bin.
	writeFile(t, filepath.Join(dir, "bin", "git-log-json"), `#!/bin/sh
[ $# -eq 3 ] || { echo "git-log-json: want start, end and home, got: $*" >&2; exit 3; }
printf '{"uid": "c-%s", "time": "%sT12:00:00Z", "subject": "Ferry commit from %s to %s"}\n\n' "$1" "$1" "$1" "$2"
`)
	writeFile(t, filepath.Join(dir, "bin", "standup-json"), `#!/bin/sh
[ $# -eq 2 ] || { echo "standup-json: want the day and the next, got: $*" >&2; exit 3; }
printf '{"data": {"items": [{"id": "s-%s", "title": "Standup of %s", "at": "%sT09:00:00Z"}], "next": null}, "total": 1}\n' "$1" "$1" "$1"
`)
	for _, helper := range []string{"git-log-json", "standup-json"} {
		if err := os.Chmod(filepath.Join(dir, "bin", helper), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "--days", "3", "--as-of", "2026-11-28")
	want := []string{
		"events/2026-11-25/git-commits.json", "events/2026-11-25/standups.json",
		"events/2026-11-26/git-commits.json",
		"events/2026-11-27/git-commits.json", "events/2026-11-27/standups.json",
	}
	got := strings.Fields(stdout)
	slices.Sort(got)
	if code != 0 || !slices.Equal(got, want) {
		t.Fatalf("collect in a documented fkf base: exit %d, wrote %q, want %q\n%s", code, got, want, stderr)
	}
	code, _, stderr = cairnAt(t, collectNow, "--base", dir, "collect", "browser-history", "--as-of", "2026-11-28")
	if code != 2 || !strings.Contains(stderr, `source "browser-history" is not enabled in fkf.yaml`) {
		t.Errorf("collect of a source fkf.yaml does not enable: exit %d\n%s", code, stderr)
	}
	mustBuild(t, dir)
	code, pack, stderr = cairnAt(t, collectNow, "--base", dir, "search", "c-2026-11-26", "--as-of", "2026-11-28")
	if code != 0 || !strings.Contains(pack, "events/2026-11-26/git-commits.json#c-2026-11-26") {
		t.Errorf("search of a collected commit (exit %d):\n%s%s", code, pack, stderr)
	}
	code, rec, stderr := cairnAt(t, collectNow, "--base", dir, "read", "events/2026-11-26/git-commits.json#c-2026-11-26")
	if code != 0 || !strings.Contains(rec, "Ferry commit from 2026-11-26 to 2026-11-27") {
		t.Errorf("the commit was not collected for its day's window (exit %d):\n%s%s", code, rec, stderr)
	}
	// What collect wrote for an fkf source is fkf's document: fkf can read
	// the base after cairn collected into it.
	doc, err := os.ReadFile(filepath.Join(dir, "events", "2026-11-26", "git-commits.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"{\n  \"fkf\": 1,\n  \"source\": \"git-commits\",", `"body": true,`, `"repository":{"relation":true,"cardinality":"optional","description":"Related repository.","examples":["repo:example.test/ferry"]}`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the collected document lacks %s:\n%s", want, doc)
		}
	}
}
