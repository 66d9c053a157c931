package query

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBudgetIsExact checks the delivery contract for every budget from the
// reported minimum up to 16384, in all three formats, with and without
// --explain: the output's receipt states encoded_tokens = ⌈bytes/4⌉ of the
// output itself, and that never exceeds the budget.
func TestBudgetIsExact(t *testing.T) {
	dir := builtDemo(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sc, err := openScan(context.Background(), root.FS(), []string{"arm64", "nightly", "time", "out"})
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	for _, format := range []string{FormatText, FormatJSON, FormatJSONL} {
		for _, explain := range []bool{false, true} {
			t.Run(format+map[bool]string{true: "-explain", false: ""}[explain], func(t *testing.T) {
				t.Parallel()
				req := Request{Words: []string{"why", "did", "the", "arm64", "nightly", "time", "out"}, AsOf: asOf,
					Pins: []string{"wiki/release-process.md"}, Format: format, Explain: explain, Budget: 1, ToolVersion: "test"}
				parsed, err := Parse(req.Words, asOf, "", "")
				if err != nil {
					t.Fatal(err)
				}
				// A reason longer than a receipt carries, with characters JSON
				// escapes: what a stale or corrupt state can report.
				reason := strings.Repeat("wiki/\"quoted\"\tname\n", 40)
				e := &engine{c: sc, req: req, parsed: parsed, state: Index{Path: ".cairn/manifest.json", State: StateStale, Reason: reason}}
				prep, err := e.prepare()
				if err != nil {
					t.Fatal(err)
				}
				_, err = e.deliver(prep.pins, prep.ranked, prep.rejected)
				var be *BudgetError
				if !errors.As(err, &be) {
					t.Fatalf("budget 1: err = %v, want a *BudgetError naming the minimum", err)
				}
				items := 0
				for b := be.Minimum; b <= 16384; b++ {
					e.req.Budget = b
					out, err := e.deliver(prep.pins, prep.ranked, prep.rejected)
					if err != nil {
						t.Fatalf("budget %d (minimum %d): %v", b, be.Minimum, err)
					}
					got, n := readPack(t, format, out)
					if want := tokens(len(out)); got != want || got > b {
						t.Fatalf("budget %d: receipt states %d tokens, output is %d bytes (%d tokens)", b, got, len(out), want)
					}
					items = max(items, n)
				}
				if items < 5 {
					t.Errorf("even 16384 tokens delivered at most %d items; the test does not exercise selection", items)
				}
				e.req.Budget = be.Minimum - 1
				if _, err := e.deliver(prep.pins, prep.ranked, prep.rejected); !errors.As(err, &be) {
					t.Errorf("one under the minimum: err = %v, want a *BudgetError", err)
				}
			})
		}
	}
}

var encodedRe = regexp.MustCompile(`encoded=(\d+)`)

// readPack reads a delivered pack's encoded_tokens and item count.
func readPack(t *testing.T, format string, out []byte) (encoded, items int) {
	t.Helper()
	if format == FormatText {
		m := encodedRe.FindSubmatch(out)
		if m == nil {
			t.Fatalf("no encoded= in:\n%s", out)
		}
		encoded, _ = strconv.Atoi(string(m[1]))
		for _, line := range strings.Split(string(out), "\n") {
			if line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "receipt:") && !strings.HasPrefix(line, "Collected") {
				items++
			}
		}
		return encoded, items
	}
	var p struct {
		Items   []json.RawMessage `json:"items"`
		Receipt struct {
			EncodedTokens int `json:"encoded_tokens"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return p.Receipt.EncodedTokens, len(p.Items)
}

// TestAddedBytes checks the arithmetic that estimates an item's cost
// against rendering: a pack holding one item is the empty pack plus
// exactly the item's added bytes, in every format.
func TestAddedBytes(t *testing.T) {
	items := []PackItem{
		{Score: 120, Kind: "record", Date: "2026-11-09", URI: "events/2026-11-09/tickets.json#PAY-1", Title: "Retry \"budget\" <b>", Source: "tickets", Excerpt: "naïve — ünïcode… and a tab\tinside"},
		{Score: 10, Kind: "wiki", URI: "wiki/a.md", Title: "", Source: "wiki", Fields: []KV{{"owner", "person:x"}}, Count: 3, Pinned: true,
			Reasons: []Reason{{Code: "term", Points: 10, Detail: "a r=1"}}},
	}
	for _, format := range []string{FormatText, FormatJSON, FormatJSONL} {
		for _, explain := range []bool{false, true} {
			empty := len(render(nil, &Pack{Items: []PackItem{}}, format, explain))
			for _, it := range items {
				one := len(render(nil, &Pack{Items: []PackItem{it}}, format, explain))
				if got := empty + it.addedBytes(format, explain); got != one {
					t.Errorf("%s explain=%v %s: empty %d + added %d = %d, a pack of it alone has %d bytes", format, explain, it.URI, empty, got-empty, got, one)
				}
			}
		}
	}
}
