package query

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExplainAddsUp asks every golden context query with --explain and
// requires, for every item of every pack, that its reasons' points add up
// to its score: a score can be added up by hand from --explain.
func TestExplainAddsUp(t *testing.T) {
	cases, err := filepath.Glob("../golden/*/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	items := 0
	for _, path := range cases {
		base := filepath.Join(filepath.Dir(path), "base")
		root := filepath.Join(t.TempDir(), "base")
		if err := os.CopyFS(root, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		for _, q := range goldenQueries(t, path) {
			req, ok := explainRequest(t, q)
			if !ok {
				continue
			}
			out, err := Context(context.Background(), root, req)
			var refused interface{ ExitCode() int }
			if errors.As(err, &refused) {
				continue // a golden case of a refused request (exit 2)
			}
			if err != nil {
				t.Fatalf("%s %v: %v", path, q, err)
			}
			var pack struct {
				Items []PackItem `json:"items"`
			}
			if err := json.Unmarshal(out, &pack); err != nil {
				t.Fatalf("%s %v: %v", path, q, err)
			}
			for _, it := range pack.Items {
				sum := 0
				for _, r := range it.Reasons {
					sum += r.Points
				}
				if sum != it.Score {
					t.Errorf("%s %v: %s scores %d, its reasons add up to %d: %+v", path, q, it.URI, it.Score, sum, it.Reasons)
				}
				items++
			}
		}
	}
	if items == 0 {
		t.Fatal("no golden pack held an item")
	}
}

// goldenQueries are the argument lists of a queries.txt.
func goldenQueries(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, rest, ok := strings.Cut(line, ":"); ok {
			out = append(out, strings.Fields(rest))
		}
	}
	return out
}

// explainRequest makes the JSON --explain request of a golden query's
// arguments, as the context command would; false for a by-location
// question, which is not a pack.
func explainRequest(t *testing.T, args []string) (Request, bool) {
	t.Helper()
	req := Request{Budget: DefaultBudget, Format: FormatJSON, Explain: true, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			i++
			if i == len(args) {
				t.Fatalf("%v: %s needs a value", args, a)
			}
			return args[i]
		}
		switch a {
		case "--at", "--profile":
			return req, false
		case "--as-of":
			d, err := time.Parse(time.DateOnly, next())
			if err != nil {
				t.Fatal(err)
			}
			req.AsOf = d
		case "--since":
			req.Since = next()
		case "--until":
			req.Until = next()
		case "--pin":
			req.Pins = append(req.Pins, next())
		case "--budget":
			n, err := strconv.Atoi(next())
			if err != nil {
				t.Fatal(err)
			}
			req.Budget = n
		case "--format":
			next() // always JSON, to read the reasons
		case "--expand":
			req.Expand = true
		case "--explain":
		default:
			if strings.HasPrefix(a, "--") {
				t.Fatalf("%v: flag %s is not known to this test", args, a)
			}
			req.Words = append(req.Words, a)
		}
	}
	return req, true
}
