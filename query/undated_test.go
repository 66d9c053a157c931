package query

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/render"
)

// staleBase is a repository whose last commit is 103 days before
// staleAsOf, with one undated page about changes.
func staleBase(withCommit bool) fstest.MapFS {
	base := fstest.MapFS{
		"cairn.yaml":        {Data: []byte("schema: {}\n")},
		"wiki/changelog.md": {Data: []byte("---\ntitle: Changelog\n---\nWhat changed in the upload API, release by release.\n")},
		"wiki/storage.md":   {Data: []byte("---\ntitle: Storage\n---\nThe storage layer keeps artifacts.\n")},
	}
	if withCommit {
		base["events/2026-08-20/git.json"] = &fstest.MapFile{Data: []byte(`{"cairn": 1, "source": "git", "fields": {"id": ".sha", "title": ".subject", "time": ".time"},
  "records": [{"sha": "a1b2c3", "subject": "Changed the upload chunk size", "time": "2026-08-20T10:00:00Z"}]}`)}
	}
	return base
}

var staleAsOf = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// TestWindowWithoutDatedEvidence: a pack of undated pages whose window
// holds no dated item says so, naming the window and the newest dated day
// there is, from the index and the scan alike; a window that holds dated
// items, or a plain question on a base with none, warns of nothing.
func TestWindowWithoutDatedEvidence(t *testing.T) {
	for _, c := range []struct {
		name       string
		withCommit bool
		words      string
		until      string
		want       string
	}{
		{"stale repository, last week", true, "what changed last week", "",
			"the window 2026-11-23..2026-11-29 holds no dated evidence (events, task pages), only pages and snapshots that no window bounds; the newest dated item is from 2026-08-20 (ask without the query's time words and with --since 2026-08-20 to reach it)"},
		{"stale repository, default window", true, "what changed", "", ""},
		{"before the first commit", true, "what changed", "2026-06-30",
			"the window 2026-06-01..2026-06-30 holds no dated evidence (events, task pages), only pages and snapshots that no window bounds; the next dated item is from 2026-08-20 (--until 2026-08-20 reaches it)"},
		{"no dated items, last week", false, "what changed last week", "",
			"the window 2026-11-23..2026-11-29 holds no dated evidence (events, task pages), only pages and snapshots that no window bounds; the base holds no dated item"},
		{"no dated items, plain question", false, "what changed", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := querytest.BuiltFS(t, staleBase(c.withCommit))
			warning, items, scanned := staleWarning(t, dir, c.words, c.until)
			if items == 0 || warning != c.want || scanned != warning {
				t.Errorf("%d items, warning %q (scan %q); want items and %q", items, warning, scanned, c.want)
			}
		})
	}
}

// TestEmptyWindowWithoutDatedEvidence: when nothing in a window without
// dated items matches at all, the empty pack's warning says that the
// window holds no dated evidence and where the nearest dated day is, as
// a pack of pages would.
func TestEmptyWindowWithoutDatedEvidence(t *testing.T) {
	dir := querytest.BuiltFS(t, staleBase(true))
	want := "empty pack: no candidates match the query (2 items searched); the window 2026-11-23..2026-11-29 holds no dated evidence (events, task pages), only pages and snapshots that no window bounds; the newest dated item is from 2026-08-20 (ask without the query's time words and with --since 2026-08-20 to reach it)"
	warning, items, scanned := staleWarning(t, dir, "which retries failed last week", "")
	if items != 0 || warning != want || scanned != warning {
		t.Errorf("%d items, warning %q (scan %q); want none and %q", items, warning, scanned, want)
	}
}

// staleWarning asks words of the built base at dir as of staleAsOf, and
// returns the pack's warning and item count from the index, and the
// warning from the scan.
func staleWarning(t *testing.T, dir, words, until string) (warning string, items int, scanned string) {
	t.Helper()
	run := func() (string, int) {
		out, err := Context(context.Background(), dir, Request{Words: strings.Fields(words), Until: until, Budget: DefaultBudget, Format: render.FormatJSON, AsOf: staleAsOf})
		if err != nil {
			t.Fatal(err)
		}
		var p Pack
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatal(err)
		}
		return p.Receipt.Warning, len(p.Items)
	}
	warning, items = run()
	querytest.WithoutIndex(t, dir, func() { scanned, _ = run() })
	return warning, items, scanned
}
