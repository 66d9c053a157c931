package query

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/query/render"
)

// TestSmallWindowKeepsCommonTerm: in a window of three items, a term that
// two of them hold still scores (a stop-term rule would zero it and leave
// both below the floor): the ticket whose short title is about it comes
// first, before the long page that mentions it once (if that passes the
// floor at all).
func TestSmallWindowKeepsCommonTerm(t *testing.T) {
	root := t.TempDir()
	body := "The storage layer keeps artifacts across regions. " + strings.Repeat("Replication and retention run nightly on every region. ", 30) + "It also takes uploads.\n"
	files := map[string]string{
		"cairn.yaml":                     "schema: {}\n",
		"wiki/storage.md":                "---\ntitle: Storage\n---\n" + body,
		"events/2026-11-02/tickets.json": `{"cairn": 1, "source": "tickets", "fields": {"id": ".id", "title": ".t", "body": ".b", "time": ".at"}, "records": [{"id": "HAR-1", "t": "Uploads fail when storage returns 503", "b": "Users see errors.", "at": "2026-11-02T10:00:00Z"}, {"id": "HAR-2", "t": "Rotate keys", "b": "Key rotation schedule.", "at": "2026-11-02T11:00:00Z"}]}`,
	}
	for name, data := range files {
		goldentest.WriteFile(t, root, name, []byte(data))
	}
	out, err := Context(context.Background(), root, Request{Words: []string{"uploads"}, Budget: DefaultBudget, Format: render.FormatJSON,
		AsOf: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var pack struct {
		Items []render.Item `json:"items"`
	}
	if err := json.Unmarshal(out, &pack); err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, it := range pack.Items {
		uris = append(uris, it.URI)
	}
	if len(uris) == 0 || uris[0] != "events/2026-11-02/tickets.json#HAR-1" {
		t.Errorf("pack %v, want the ticket first", uris)
	}
}

// TestBelowFloorSaysSo: a term that only a navigation page mentions, in
// passing, leaves that page below the floor, and the empty pack says so.
func TestBelowFloorSaysSo(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"cairn.yaml":       "schema: {}\n",
		"wiki/index.md":    "---\ntitle: Wiki\n---\n" + strings.Repeat("Pages about storage, retention and regions. ", 40) + "An old zebra note.\n",
		"wiki/storage.md":  "---\ntitle: Storage\n---\nThe storage layer keeps artifacts.\n",
		"wiki/rotation.md": "---\ntitle: Rotation\n---\nKeys rotate monthly.\n",
	}
	for name, data := range files {
		goldentest.WriteFile(t, root, name, []byte(data))
	}
	out, err := Context(context.Background(), root, Request{Words: []string{"zebra"}, Budget: DefaultBudget, Format: render.FormatJSON,
		AsOf: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var pack struct {
		Items   []render.Item `json:"items"`
		Receipt struct {
			Warning string `json:"warning"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal(out, &pack); err != nil {
		t.Fatal(err)
	}
	if len(pack.Items) != 0 || !strings.Contains(pack.Receipt.Warning, "none scored above the relevance floor") {
		t.Errorf("items %v, warning %q; want an empty pack below the floor", pack.Items, pack.Receipt.Warning)
	}
}
