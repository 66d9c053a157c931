package project

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// TestFieldValueCap: a 50 MB title is cut to load.MaxValueBytes, at a
// character boundary, for everything ranking keeps of it, with a warning
// at the record that names the field, its size and the cap; the record
// itself (its span, which read shows) is whole.
func TestFieldValueCap(t *testing.T) {
	word := "écluse " // two-byte letter first, so a cut can land inside it
	title := strings.Repeat(word, 50_000_000/len(word))
	rec := `{"id": "big-1", "title": "` + title + `", "time": "2026-11-02T10:00:00Z", "summary": "small"}`
	small := `{"id": "small-1", "title": "Small", "time": "2026-11-02T11:00:00Z"}`
	doc := document(githubDoc, model.LayerEvents, "github", "2026-11-02",
		fields("id=.id", "title=.title", "time=.time", "summary=.summary"), rec, small)
	out := run(t, model.Base{Config: testConfig(), Documents: []model.Document{doc}})
	if len(out.Items) != 2 {
		t.Fatalf("items: %d, want 2 (the big record is kept)", len(out.Items))
	}
	big := out.Items[0]
	if len(big.Title) > load.MaxValueBytes || len(big.Title) < load.MaxValueBytes-utf8.UTFMax {
		t.Errorf("title: %d bytes, want at most the %d-byte cap and no more than a character short", len(big.Title), load.MaxValueBytes)
	}
	if !utf8.ValidString(big.Title) {
		t.Errorf("the cut title is not valid UTF-8")
	}
	if big.SpanLen != int64(len(rec)) {
		t.Errorf("span: %d bytes, want the whole record's %d", big.SpanLen, len(rec))
	}
	var warned int
	for _, d := range out.Diagnostics {
		if d.Code == "value-capped" {
			warned++
			if d.File != githubDoc || d.Line != 8 || d.Severity != diag.Warning ||
				!strings.Contains(d.Message, `field "title"`) || !strings.Contains(d.Message, "50000000 bytes") {
				t.Errorf("diagnostic %+v: want a warning at %s:8 naming field \"title\" and its 50000000 bytes", d, githubDoc)
			}
		}
	}
	if warned != 1 {
		t.Errorf("%d value-capped diagnostics, want 1: %v", warned, out.Diagnostics)
	}
}
