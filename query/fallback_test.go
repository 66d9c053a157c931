package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/render"
)

func answer(t *testing.T, dir string, words ...string) Pack {
	t.Helper()
	out, err := Context(context.Background(), dir, Request{
		Words: words, Budget: DefaultBudget, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC),
		Format: render.FormatJSON, ToolVersion: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	var p Pack
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p
}

func uris(p Pack) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.URI)
	}
	return out
}

// TestFallbackToScan damages the artifacts in the ways a reader can meet
// and checks that the answer is the scan's, with receipt.index saying why.
func TestFallbackToScan(t *testing.T) {
	query := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	want := uris(answer(t, querytest.BuiltDemo(t), query...))
	if len(want) < 5 {
		t.Fatalf("the reference answer has only %v", want)
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		state  string
		reason string
	}{
		{"postings truncated", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".cairn", "postings.tsv")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)*2/3], 0o644)
		}, "corrupt", "postings.tsv"},
		{"postings edited", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".cairn", "postings.tsv")
			data, _ := os.ReadFile(p)
			i := strings.Index(string(data), "\narm64\t")
			data[i+3] = 'X'
			os.WriteFile(p, data, 0o644)
		}, "corrupt", "postings.tsv"},
		{"docs emptied", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".cairn", "docs.tsv"), nil, 0o644)
		}, "corrupt", "docs.tsv"},
		{"manifest garbled", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".cairn", "manifest.json"), []byte("{"), 0o644)
		}, "corrupt", "manifest"},
		{"record edited after the build", func(t *testing.T, dir string) {
			// An edit that changes no ranking input: the answer stays, and
			// it comes from the scan, which reads the edited record.
			querytest.Edit(t, dir, "events/2026-11-09/tickets.json", `"name": "In Review"`, `"name": "In Progress"`)
		}, "stale", "events/2026-11-09/tickets.json changed"},
		{"artifacts removed", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".cairn"))
		}, "missing", "run cairn build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			c.damage(t, dir)
			p := answer(t, dir, query...)
			if p.Receipt.Index.State != c.state || !strings.Contains(p.Receipt.Index.Reason, c.reason) {
				t.Errorf("receipt.index = %+v, want %s naming %q", p.Receipt.Index, c.state, c.reason)
			}
			if got := uris(p); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("answer from the scan:\n%v\nwant:\n%v", got, want)
			}
		})
	}
}

// TestStaleIndexSplicesTheChangedFile edits a record after the build and
// requires the answer to come from the index with that one file read
// anew, item for item the answer a scan of the edited base gives.
func TestStaleIndexSplicesTheChangedFile(t *testing.T) {
	query := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	dir := querytest.BuiltDemo(t)
	querytest.Edit(t, dir, "events/2026-11-09/tickets.json", `"name": "In Review"`, `"name": "In Review of the arm64 nightly timeout"`)
	got := answer(t, dir, query...)
	if got.Receipt.Index.State != "stale" || !strings.Contains(got.Receipt.Index.Reason, "answered from the index with the 1 changed file read anew") {
		t.Fatalf("receipt.index = %+v, want stale and answered from the index", got.Receipt.Index)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".cairn")); err != nil {
		t.Fatal(err)
	}
	scanned := answer(t, dir, query...)
	if scanned.Receipt.Index.State != "missing" {
		t.Fatalf("the reference answer is not a scan: %+v", scanned.Receipt.Index)
	}
	g, _ := json.Marshal(got.Items)
	w, _ := json.Marshal(scanned.Items)
	if string(g) != string(w) {
		t.Errorf("the answer with the file spliced in:\n%s\nthe scan's:\n%s", g, w)
	}
}
