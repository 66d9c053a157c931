package main

import (
	"bytes"
	"path/filepath"
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
