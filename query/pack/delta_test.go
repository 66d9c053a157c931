package pack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/render"
)

// TestSnapshotIsCapped saves the snapshot of a query that matches more
// candidates than a snapshot holds: it keeps the best-ranked
// snapshotMaxURIs, the receipt says how many it left out, and a delta
// against it takes those for new.
func TestSnapshotIsCapped(t *testing.T) {
	const n = snapshotMaxURIs + 8
	var recs []string
	for i := range n {
		words := "canary rollout"
		if i%2 == 1 {
			words = "canary" // ranks below the items matching both terms
		}
		recs = append(recs, fmt.Sprintf(`{"id": "a-%05d", "t": "%s %05d", "at": "2026-11-02T10:00:00Z"}`, i, words, i))
	}
	fsys := fstest.MapFS{
		"cairn.yaml": {Data: []byte("{}\n")},
		"events/2026-11-02/alerts.json": {Data: []byte(`{"cairn": 1, "source": "alerts", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": [` +
			strings.Join(recs, ",\n") + `]}`)},
		"events/2026-11-02/other.json": {Data: []byte(`{"cairn": 1, "source": "other", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": [` +
			`{"id": "y", "t": "unrelated words", "at": "2026-11-02T11:00:00Z"}]}`)},
	}
	words := []string{"canary", "rollout"}
	sc, err := corpus.Scan(context.Background(), fsys, words)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	req := Request{Words: words, AsOf: asOf, Budget: DefaultBudget, Format: render.FormatJSON, SaveReceipt: true, ToolVersion: "test"}
	parsed, err := question.Parse(words, asOf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(sc, req, parsed, corpus.Index{State: corpus.StateMissing}, nil)
	out, err := e.run()
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Receipt Receipt `json:"receipt"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if s := p.Receipt.SavedReceipt; s == nil || s.URIs != snapshotMaxURIs || s.Capped != n-snapshotMaxURIs {
		t.Fatalf("saved_receipt %+v for %d candidates, want %d uris and %d capped", s, p.Receipt.Candidates, snapshotMaxURIs, n-snapshotMaxURIs)
	}
	// The ones left out rank last: they match one term of two.
	kept := map[string]bool{}
	for _, en := range e.snapshot.Entries {
		kept[en.URI] = true
	}
	for i := 0; i < n; i += 2 {
		if uri := fmt.Sprintf("events/2026-11-02/alerts.json#a-%05d", i); !kept[uri] {
			t.Fatalf("%s, which matches both terms, was left out of the snapshot", uri)
		}
	}
	d := newEngine(sc, Request{Words: words, AsOf: asOf, Budget: DefaultBudget, Format: render.FormatJSON, ToolVersion: "test"},
		parsed, corpus.Index{State: corpus.StateMissing}, e.snapshot)
	if _, err := d.run(); err != nil {
		t.Fatal(err)
	}
	if d.delta.changed != n-snapshotMaxURIs || len(d.delta.deleted) != 0 {
		t.Errorf("a delta against the capped snapshot: %d changed, %d deleted; want the %d left out, none deleted", d.delta.changed, len(d.delta.deleted), n-snapshotMaxURIs)
	}
}
