package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/query/at"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/list"
	"github.com/cairn-kb/cairn/query/pack"
	"github.com/cairn-kb/cairn/query/read"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/search"
)

// sessionQueries are asked of a session and of Context side by side.
var sessionQueries = [][]string{
	{"why", "did", "the", "arm64", "nightly", "time", "out"},
	{"HAR-142"},
	{"take", "my", "last", "meeting", "notes"},
	{"retention", "2026-11"},
	{"nightly", "build", "failed", "on", "arm64"},
}

// TestSessionAnswersAsContext: a session gives Context's bytes for every
// query, in every format, asked twice (the second time from the held
// artifacts and what the corpus cached), concurrently too; after an edit
// both answer from the scan, and after the artifacts are cut short both
// from the scan with the same reason.
func TestSessionAnswersAsContext(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	s := NewSession(dir)
	defer s.Close()
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	check := func(what string) {
		t.Helper()
		var wg sync.WaitGroup
		for _, words := range sessionQueries {
			for _, f := range []string{render.FormatText, render.FormatJSON, render.FormatJSONL} {
				req := pack.Request{Words: words, Budget: pack.DefaultBudget, AsOf: asOf, Format: f, ToolVersion: "test"}
				want, werr := pack.Context(context.Background(), dir, req)
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got, gerr := s.Context(context.Background(), req)
						if !bytes.Equal(got, want) || (gerr == nil) != (werr == nil) {
							t.Errorf("%s: %v (%s): the session answered (%v)\n%s\nContext (%v)\n%s", what, words, f, gerr, got, werr, want)
						}
					}()
				}
				wg.Wait()
			}
		}
	}
	check("current")
	held := s.held
	check("warm")
	if held == nil || s.held != held {
		t.Error("the session read the artifacts again with nothing changed")
	}
	p := filepath.Join(dir, "wiki", "arm64-builds.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, []byte("\nThe nightly arm64 leg now runs in 40 minutes.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	check("stale")
	out, _ := s.Context(context.Background(), pack.Request{Words: []string{"HAR-142"}, Budget: pack.DefaultBudget, AsOf: asOf, Format: render.FormatText})
	if !strings.Contains(string(out), "index=.cairn/manifest.json stale") {
		t.Errorf("after an edit the session did not scan:\n%s", out)
	}
}

// TestSessionRefusesDeltaPacks: a session's answers write nothing, so a
// request that would save or compare a receipt snapshot is refused with
// the CLI to use instead, and no state folder is touched.
func TestSessionRefusesDeltaPacks(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	s := NewSession(dir)
	defer s.Close()
	state := t.TempDir()
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	for _, req := range []pack.Request{
		{Words: []string{"HAR-142"}, Budget: pack.DefaultBudget, AsOf: asOf, Format: render.FormatText, SaveReceipt: true, StateDir: state},
		{Words: []string{"HAR-142"}, Budget: pack.DefaultBudget, AsOf: asOf, Format: render.FormatText, SinceReceipt: "0123456789abcdef", StateDir: state},
	} {
		_, err := s.Context(context.Background(), req)
		var ue *corpus.UsageError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "cairn context --save-receipt") {
			t.Errorf("save %v since %q: %v, want a usage error naming cairn context --save-receipt", req.SaveReceipt, req.SinceReceipt, err)
		}
	}
	if entries, err := os.ReadDir(state); err != nil || len(entries) != 0 {
		t.Errorf("state folder after refused requests: %v, %v", entries, err)
	}
}

// TestSessionFollowsTheBaseItWatches: a session answers each request as
// Context does while the base changes under it (a document edited, a day
// folder added and a document in it edited, rebuilds, a touch that keeps
// the bytes), and where the platform can watch the base, a request in a
// base that did not change since the last one does not walk it.
func TestSessionFollowsTheBaseItWatches(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	s := NewSession(dir)
	defer s.Close()
	watched := runtime.GOOS == "linux"
	req := pack.Request{Words: []string{"HAR-142", "follow-up"}, Budget: pack.DefaultBudget, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), Format: render.FormatText, ToolVersion: "test"}
	ask := func(what, state string) {
		t.Helper()
		got, err := s.Context(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, err := pack.Context(context.Background(), dir, req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the session answered\n%s\nContext\n%s", what, got, want)
		}
		if !strings.Contains(string(got), "index=.cairn/manifest.json "+state) {
			t.Errorf("%s: the index is not %s:\n%s", what, state, got)
		}
	}
	appendTo := func(rel, text string) func() {
		return func() {
			f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(text); err != nil {
				t.Fatal(err)
			}
		}
	}
	newDay := filepath.Join("events", "2026-11-07", "followups.json") // a day the demo has no folder for
	steps := []struct {
		what   string
		change func()
		state  string
	}{
		{"a record document edited", appendTo(filepath.Join("events", "2026-11-04", "tickets.json"), "\n"), "stale"},
		{"rebuilt", func() { goldentest.Build(t, dir) }, "used"},
		{"a day folder added", func() {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(newDay)), 0o755); err != nil {
				t.Fatal(err)
			}
			doc := `{"cairn": 1, "source": "followups", "layer": "events", "date": "2026-11-07",
"fields": {"id": ".id", "title": ".title", "time": ".at"},
"records": [{"id": "f1", "title": "HAR-142 follow-up: rotate the staging keys too", "at": "2026-11-07T09:30:00Z"}]}
`
			if err := os.WriteFile(filepath.Join(dir, newDay), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "stale"},
		{"rebuilt with the new day", func() { goldentest.Build(t, dir) }, "used"},
		{"a document in the new folder edited", appendTo(newDay, "\n"), "stale"},
		{"rebuilt again", func() { goldentest.Build(t, dir) }, "used"},
		{"cairn.yaml touched, its bytes kept", func() {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(dir, "cairn.yaml"), later, later); err != nil {
				t.Fatal(err)
			}
		}, "used"},
	}
	ask("first", "used")
	for _, st := range steps {
		st.change()
		walks := s.walks.Load()
		ask(st.what, st.state)
		if watched && s.walks.Load() == walks {
			t.Errorf("%s: the session answered without walking the changed base", st.what)
		}
		walks = s.walks.Load()
		ask(st.what+", asked again", st.state)
		if watched && s.walks.Load() != walks {
			t.Errorf("%s, asked again: the session walked a base that did not change", st.what)
		}
	}
	got, _ := s.Context(context.Background(), req)
	if !strings.Contains(string(got), "followups.json#f1") {
		t.Errorf("the record of the added day is not in the pack:\n%s", got)
	}
}

// TestSessionReadsSearchesAndListsAsTheCLI: a session's reads, searches
// and listings are the bytes of Read, Search and List for the same
// request, asked twice (the second time from what the session holds),
// and after an edit (both from the scan).
func TestSessionReadsSearchesAndListsAsTheCLI(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	s := NewSession(dir)
	defer s.Close()
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	type ask struct {
		what         string
		cli, session func() ([]byte, error)
	}
	var asks []ask
	for _, uri := range []string{"wiki/arm64-builds.md", "ticket:HAR-142", "events/2026-11-04/tickets.json#HAR-147", "nosuch:thing"} {
		req := read.Request{URI: uri, Format: render.FormatText}
		asks = append(asks, ask{"read " + uri,
			func() ([]byte, error) { return read.Read(context.Background(), dir, req) },
			func() ([]byte, error) { return s.Read(context.Background(), req) }})
	}
	for _, words := range [][]string{{"arm64", "nightly"}, {"HAR-142"}} {
		req := search.Request{Words: words, AsOf: asOf, Format: render.FormatJSON}
		asks = append(asks, ask{"search " + strings.Join(words, " "),
			func() ([]byte, error) { return search.Search(context.Background(), dir, req) },
			func() ([]byte, error) { return s.Search(context.Background(), req) }})
	}
	for _, path := range []string{"docs/api/tokens.md", "."} {
		req := at.Request{Path: path, Format: at.FormatMarkdown, AsOf: asOf}
		asks = append(asks, ask{"at " + path,
			func() ([]byte, error) { return at.At(context.Background(), dir, req) },
			func() ([]byte, error) { return s.At(context.Background(), req) }})
	}
	for _, layer := range []string{"events", "wiki"} {
		req := list.Request{Layer: layer, Format: render.FormatText}
		asks = append(asks, ask{"list " + layer,
			func() ([]byte, error) { return list.List(context.Background(), dir, req) },
			func() ([]byte, error) { return s.List(context.Background(), req) }})
	}
	check := func(when string) {
		t.Helper()
		for _, a := range asks {
			want, werr := a.cli()
			for range 2 {
				got, gerr := a.session()
				if !bytes.Equal(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("%s, %s: the session answered (%v)\n%s\nthe CLI (%v)\n%s", when, a.what, gerr, got, werr, want)
				}
			}
		}
	}
	// Governance files settled an hour ago, so that the session may
	// remember its read of them (see load.GovernanceMemo).
	hourAgo := time.Now().Add(-time.Hour)
	settle := func() {
		t.Helper()
		err := filepath.WalkDir(filepath.Join(dir, "governance"), func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chtimes(p, hourAgo, hourAgo)
		})
		if err == nil {
			err = os.Chtimes(filepath.Join(dir, "cairn.yaml"), hourAgo, hourAgo)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	settle()
	check("current")
	if s.held == nil {
		t.Fatal("the session holds no artifacts after answering from them")
	}
	// A term added to the store: the session's by-location answers and
	// searches follow it.
	terms := filepath.Join(dir, "governance", "terms.yaml")
	data, err := os.ReadFile(terms)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(terms, append(data, []byte("- {id: nightly-leg, term: nightly leg, status: deprecated, replacement: nightly job}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	// Only the terms store is touched, settled too.
	if err := os.Chtimes(terms, hourAgo.Add(time.Minute), hourAgo.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	check("a term added")
	p := filepath.Join(dir, "wiki", "arm64-builds.md")
	data, err = os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, []byte("\nThe arm64 nightly leg is pinned to one runner.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	check("stale")
	out, _ := s.Read(context.Background(), read.Request{URI: "wiki/arm64-builds.md", Format: render.FormatText})
	if !strings.Contains(string(out), "pinned to one runner") {
		t.Errorf("after an edit the session's read does not show it:\n%s", out)
	}
}

// TestSessionWatchesABaseReachedThroughALink: a base named by a link to
// its folder is watched where it is, so an edit of its cairn.yaml is seen
// by the next request, as Context sees it.
func TestSessionWatchesABaseReachedThroughALink(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	link := filepath.Join(t.TempDir(), "base")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	s := NewSession(link)
	defer s.Close()
	req := pack.Request{Words: []string{"HAR-142"}, Budget: pack.DefaultBudget, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), Format: render.FormatText, ToolVersion: "test"}
	for _, step := range []string{"first", "warm"} {
		if out, err := s.Context(context.Background(), req); err != nil || !strings.Contains(string(out), "manifest.json used") {
			t.Fatalf("%s: %v\n%s", step, err, out)
		}
	}
	cfg := filepath.Join(dir, "cairn.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, []byte("\n# a comment changes the configuration's bytes\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := s.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pack.Context(context.Background(), link, req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !strings.Contains(string(got), "manifest.json stale") {
		t.Errorf("after cairn.yaml changed the session answered\n%s\nContext\n%s", got, want)
	}
}

// TestSessionSplicesOncePerChange: in a watched base edited after its
// build, the session splices the changed file in once and answers every
// request from that splice, the answer a process per question gives,
// until the base changes again.
func TestSessionSplicesOncePerChange(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	s := NewSession(dir)
	defer s.Close()
	req := pack.Request{Words: []string{"arm64", "nightly"}, Budget: pack.DefaultBudget, Format: render.FormatText, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), ToolVersion: "test"}
	if _, err := s.Context(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// Without a watch (not Linux), every request walks and splices anew.
	perChange := int64(1)
	if s.watch == nil {
		perChange = 3
	}
	querytest.Edit(t, dir, "events/2026-11-09/tickets.json", `"name": "In Review"`, `"name": "In Review of the arm64 nightly"`)
	var first []byte
	for i := range 3 {
		got, err := s.Context(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if string(got) != string(first) {
			t.Errorf("request %d answered otherwise:\n%s\nthen\n%s", i, first, got)
		}
	}
	if n := s.splices.Load(); n != perChange {
		t.Errorf("%d splices for three requests on one change, want %d", n, perChange)
	}
	want, err := pack.Context(context.Background(), dir, req)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(want) {
		t.Errorf("the session's answer:\n%s\na process's:\n%s", first, want)
	}
	querytest.Edit(t, dir, "events/2026-11-09/tickets.json", `"name": "In Review of the arm64 nightly"`, `"name": "In Review again"`)
	if _, err := s.Context(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if n := s.splices.Load(); n != perChange+1 {
		t.Errorf("%d splices after a second change, want %d", n, perChange+1)
	}
}
