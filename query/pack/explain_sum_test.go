package pack

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/render"
)

// TestExplainAddsUp asks every golden context query with --explain and
// requires, for every item of every pack, that its reasons' points add up
// to its score: a score can be added up by hand from --explain.
func TestExplainAddsUp(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(querytest.GoldenDir(), "*", "queries.txt"))
	if err != nil {
		t.Fatal(err)
	}
	items := 0
	for _, path := range cases {
		name := filepath.Base(filepath.Dir(path))
		root := filepath.Join(t.TempDir(), "base")
		if err := os.CopyFS(root, os.DirFS(filepath.Join(filepath.Dir(path), "base"))); err != nil {
			t.Fatal(err)
		}
		reqs := goldenContextRequests(t, name)
		for _, q := range slices.Sorted(maps.Keys(reqs)) {
			req := reqs[q]
			req.Format, req.Explain = render.FormatJSON, true // JSON, to read the reasons
			out, err := Context(context.Background(), root, req)
			var refused interface{ ExitCode() int }
			if errors.As(err, &refused) {
				continue // a golden case of a refused request (exit 2)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", name, q, err)
			}
			var pack struct {
				Items []render.Item `json:"items"`
			}
			if err := json.Unmarshal(out, &pack); err != nil {
				t.Fatalf("%s %s: %v", name, q, err)
			}
			for _, it := range pack.Items {
				sum := 0
				for _, r := range it.Reasons {
					sum += r.Points
				}
				if sum != it.Score {
					t.Errorf("%s %s: %s scores %d, its reasons add up to %d: %+v", name, q, it.URI, it.Score, sum, it.Reasons)
				}
				items++
			}
		}
	}
	if items == 0 {
		t.Fatal("no golden pack held an item")
	}
}
