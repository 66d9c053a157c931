package pack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/receipts"
	"github.com/cairn-kb/cairn/query/render"
)

// TestBudgetIsExact checks the delivery contract for every budget from the
// reported minimum up to 16384, in all three formats, with and without
// --explain, for a whole pack and (without --explain) a delta pack (--since-receipt, against
// a snapshot that holds half the candidates unchanged, changed the rest,
// and names more deleted URIs than a receipt lists): the output's receipt
// states encoded_tokens = ⌈bytes/4⌉ of the output itself, and that never
// exceeds the budget.
func TestBudgetIsExact(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sc, err := corpus.Scan(context.Background(), root.FS(), []string{"arm64", "nightly", "time", "out"})
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	words := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	since := halfChangedSnapshot(t, sc, Request{Words: words, AsOf: asOf, Pins: []string{"wiki/release-process.md"}})
	for _, format := range []string{render.FormatText, render.FormatJSON, render.FormatJSONL} {
		for _, explain := range []bool{false, true} {
			for _, delta := range []bool{false, true} {
				if delta && explain {
					continue // what --explain adds is the items', and a delta changes which items, not how they render
				}
				name := format + map[bool]string{true: "-explain", false: ""}[explain] + map[bool]string{true: "-delta", false: ""}[delta]
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					budgetIsExact(t, sc, Request{Words: words, AsOf: asOf, Pins: []string{"wiki/release-process.md"},
						Format: format, Explain: explain, Budget: 1, ToolVersion: "test"}, map[bool]*receipts.Snapshot{true: since}[delta])
				})
			}
		}
	}
}

// halfChangedSnapshot is a snapshot of a request's candidates in which
// every other one, in rank order, is as it is now and the rest changed,
// with more URIs the base does not hold than a receipt names.
func halfChangedSnapshot(t *testing.T, c corpus.Corpus, req Request) *receipts.Snapshot {
	t.Helper()
	parsed, err := question.Parse(req.Words, req.AsOf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	req.Format, req.Budget, req.SaveReceipt = render.FormatJSON, DefaultBudget, true
	e := newEngine(c, req, parsed, corpus.Index{State: corpus.StateMissing}, nil)
	if _, err := e.prepare(); err != nil {
		t.Fatal(err)
	}
	unchanged := map[uint64]bool{}
	for i, s := range e.Pool {
		if i%2 == 0 {
			unchanged[s.Key.Digest] = true
		}
	}
	snap := e.snapshot
	for i := range snap.Entries {
		if !unchanged[snap.Entries[i].Digest] {
			snap.Entries[i].Digest ^= 1
		}
	}
	for i := range maxDeletedDetail + 8 {
		snap.Entries = append(snap.Entries, receipts.Entry{URI: fmt.Sprintf("events/2026-11-09/gone.json#record-%02d", i), Digest: uint64(i)})
	}
	slices.SortFunc(snap.Entries, func(a, b receipts.Entry) int { return strings.Compare(a.URI, b.URI) })
	snap.Digest = "0123456789abcdef"
	return snap
}

// budgetIsExact checks the delivery contract of one request, made a
// delta pack against since when it is not nil.
func budgetIsExact(t *testing.T, sc corpus.Corpus, req Request, since *receipts.Snapshot) {
	parsed, err := question.Parse(req.Words, req.AsOf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	format := req.Format
	// A reason longer than a receipt carries, with characters JSON
	// escapes: what a stale or corrupt state can report.
	reason := strings.Repeat("wiki/\"quoted\"\tname\n", 40)
	e := newEngine(sc, req, parsed, corpus.Index{Path: ".cairn/manifest.json", State: corpus.StateStale, Reason: reason}, since)
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
	if want := map[bool]int{false: 5, true: 3}[since != nil]; items < want {
		t.Errorf("even 16384 tokens delivered at most %d items; the test does not exercise selection", items)
	}
	if since != nil && (e.delta.changed == 0 || e.delta.sameOut == 0 || len(e.delta.deleted) <= maxDeletedDetail) {
		t.Errorf("the delta has %d changed, %d unchanged above the floor, %d deleted: it does not exercise a delta", e.delta.changed, e.delta.sameOut, len(e.delta.deleted))
	}
	e.req.Budget = be.Minimum - 1
	if _, err := e.deliver(prep.pins, prep.ranked, prep.rejected); !errors.As(err, &be) {
		t.Errorf("one under the minimum: err = %v, want a *BudgetError", err)
	}
}

var encodedRe = regexp.MustCompile(`encoded=(\d+)`)

// readPack reads a delivered pack's encoded_tokens and item count.
func readPack(t *testing.T, format string, out []byte) (encoded, items int) {
	t.Helper()
	if format == render.FormatText {
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
	items := []render.Item{
		{Score: 120, Kind: "record", Date: "2026-11-09", URI: "events/2026-11-09/tickets.json#PAY-1", Title: "Retry \"budget\" <b>", Source: "tickets", Excerpt: "naïve — ünïcode… and a tab\tinside"},
		{Score: 10, Kind: "wiki", URI: "wiki/a.md", Title: "", Source: "wiki", Fields: []render.Field{{Field: "owner", Values: []string{"person:x", "person:y", "person:z", "person:w"}, More: 2}}, Count: 3, Pinned: true,
			Reasons: []rank.Reason{{Code: "term", Points: 10, Detail: "a r=1"}}},
		// Fields after the source's line with nothing else after them.
		{Score: 11, Kind: "record", URI: "events/2026-11-09/git.json#a1", Title: "\n      \"source\": x", Source: "git", Fields: []render.Field{{Field: "ticket", Values: []string{"ticket:#1", "ticket:#2"}}, {Field: "url", Values: []string{"https://x.test/?a=<b>&c"}}}},
	}
	for _, format := range []string{render.FormatText, render.FormatJSON, render.FormatJSONL} {
		for _, explain := range []bool{false, true} {
			empty := len(renderPack(nil, &Answer{Items: []render.Item{}}, format, explain))
			for _, it := range items {
				pack := renderPack(nil, &Answer{Items: []render.Item{it}}, format, explain)
				one := len(pack)
				var back Answer
				if format != render.FormatText && (json.Unmarshal(pack, &back) != nil || !reflect.DeepEqual(back.Items[0].Fields, it.Fields)) {
					t.Errorf("%s %s: the pack does not decode to the item's fields:\n%s", format, it.URI, pack)
				}
				if got := empty + it.AddedBytes(format, explain); got != one {
					t.Errorf("%s explain=%v %s: empty %d + added %d = %d, a pack of it alone has %d bytes", format, explain, it.URI, empty, got-empty, got, one)
				}
			}
		}
	}
}
