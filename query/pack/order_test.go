package pack

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
)

// orderAsOf is the as-of day of the ordering tests' bases.
var orderAsOf = time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)

// orderPack is what the ordering tests read of a pack.
type orderPack struct {
	Items   []render.Item `json:"items"`
	Receipt Receipt       `json:"receipt"`
}

// ask writes files into a new base and answers words there, explained.
func ask(t *testing.T, files map[string]string, words ...string) orderPack {
	t.Helper()
	root := t.TempDir()
	for name, data := range files {
		goldentest.WriteFile(t, root, name, []byte(data))
	}
	out, err := Context(context.Background(), root, Request{Words: words, Budget: DefaultBudget, Format: render.FormatJSON, Explain: true, AsOf: orderAsOf})
	if err != nil {
		t.Fatal(err)
	}
	var p orderPack
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p orderPack) uris() []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.URI)
	}
	return out
}

func (p orderPack) item(t *testing.T, uri string) render.Item {
	t.Helper()
	for _, it := range p.Items {
		if it.URI == uri {
			return it
		}
	}
	t.Fatalf("%s is not in the pack %v", uri, p.uris())
	return render.Item{}
}

func hasReason(it render.Item, code, detail string) bool {
	return slices.ContainsFunc(it.Reasons, func(r rank.Reason) bool {
		return r.Code == code && (detail == "" || strings.Contains(r.Detail, detail))
	})
}

// trackerBase has a ticket HAR-7, three commits and a page whose
// relations name it and whose text says much more about it than the
// ticket's own short record does.
func trackerBase() map[string]string {
	commits := `{"cairn": 1, "source": "git-commits", "fields": {"id": ".sha", "title": ".subject", "body": ".body", "time": ".at", "ticket": ".tickets[]"}, "records": [
{"sha": "c1", "subject": "Retry uploads on 503 (HAR-7)", "body": "HAR-7: uploads that fail with 503 are retried three times.", "at": "2026-11-03T10:00:00Z", "tickets": ["ticket:HAR-7"]},
{"sha": "c2", "subject": "Log each upload retry (HAR-7)", "body": "Each retry of HAR-7 logs its attempt.", "at": "2026-11-04T10:00:00Z", "tickets": ["ticket:HAR-7"]},
{"sha": "c3", "subject": "Document upload retries (HAR-7)", "body": "HAR-7 documented.", "at": "2026-11-05T10:00:00Z", "tickets": ["ticket:HAR-7"]}]}`
	tickets := `{"cairn": 1, "source": "tickets", "fields": {"id": ".key", "title": ".t", "time": ".at"}, "records": [
{"key": "HAR-7", "t": "Uploads fail under load", "at": "2026-11-02T09:00:00Z"}]}`
	return map[string]string{
		"cairn.yaml":                         "schema: {ticket: {relation: true}}\n",
		"events/2026-11-02/tickets.json":     tickets,
		"events/2026-11-05/git-commits.json": commits,
		"wiki/uploads.md":                    "---\ntitle: Uploads\nrelations:\n  ticket: [ticket:HAR-7]\n---\nHAR-7 made uploads retry; HAR-7 is the ticket that tracks it. See HAR-7.\n",
	}
}

// TestOwnIDComesFirst: the item whose own id is the query comes before
// the page and the commits whose relations and text name it, however
// many points they collect.
func TestOwnIDComesFirst(t *testing.T) {
	p := ask(t, trackerBase(), "HAR-7")
	uris := p.uris()
	if len(uris) < 5 || uris[0] != "events/2026-11-02/tickets.json#HAR-7" {
		t.Fatalf("pack %v, want the ticket HAR-7 first and the four items naming it after", uris)
	}
	// The order must come from the identity, not from the points.
	if !slices.ContainsFunc(p.Items[1:], func(it render.Item) bool { return it.Score >= p.Items[0].Score }) {
		t.Fatalf("the ticket outscores every other item (%d), so the base does not test the order", p.Items[0].Score)
	}
}

// identityBase has a record whose relation value is the plain word
// "redis" and a ticket whose title is about redis eviction.
func identityBase() map[string]string {
	notes := `{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at", "feature": ".f[]"}, "records": [
{"id": "n1", "t": "Cache warmup notes", "at": "2026-11-03T10:00:00Z", "f": ["feature:redis"]},
{"id": "n2", "t": "Eviction of cold keys in redis under memory pressure", "at": "2026-11-03T11:00:00Z"},
{"id": "n3", "t": "Quarterly planning", "at": "2026-11-03T12:00:00Z"},
{"id": "n4", "t": "Hiring notes", "at": "2026-11-03T13:00:00Z"}]}`
	return map[string]string{
		"cairn.yaml":                   "schema: {feature: {relation: true}}\n",
		"events/2026-11-03/notes.json": notes,
	}
}

// TestPlainWordIdentityNeedsCorroboration: a relation value that is a
// plain word is an identity for a one-term lookup, or when the item also
// matches another meaningful term; otherwise it scores as a word and
// does not outrank the item the question is about.
func TestPlainWordIdentityNeedsCorroboration(t *testing.T) {
	const warmup, eviction = "events/2026-11-03/notes.json#n1", "events/2026-11-03/notes.json#n2"

	lookup := ask(t, identityBase(), "redis")
	if it := lookup.item(t, warmup); !hasReason(it, "identifier", "redis") {
		t.Errorf("a one-term lookup: %s has reasons %+v, want identifier redis", warmup, it.Reasons)
	}

	p := ask(t, identityBase(), "redis", "eviction", "pressure")
	if uris := p.uris(); len(uris) == 0 || uris[0] != eviction {
		t.Errorf("redis eviction pressure: pack %v, want %s first", uris, eviction)
	}
	for _, it := range p.Items {
		if it.URI == warmup && hasReason(it, "identifier", "") {
			t.Errorf("%s holds no other query term, yet its plain-word relation counts as an identifier: %+v", warmup, it.Reasons)
		}
	}

	both := ask(t, identityBase(), "redis", "warmup")
	if it := both.item(t, warmup); !hasReason(it, "identifier", "redis") {
		t.Errorf("redis warmup: %s matches warmup too, so its relation counts; reasons %+v", warmup, it.Reasons)
	}
}

// TestTitleBonusRefusesUnnamedVersion: "retention policy" is the whole
// title of "Retention policy" but not of "Retention policy v1", whose
// version the query did not say.
func TestTitleBonusRefusesUnnamedVersion(t *testing.T) {
	files := map[string]string{
		"cairn.yaml":            "schema: {}\n",
		"wiki/retention.md":     "---\ntitle: Retention policy\n---\nRules decide what is kept.\n",
		"wiki/retention-v1.md":  "---\ntitle: Retention policy v1\n---\nThe first rules.\n",
		"wiki/other.md":         "---\ntitle: Garbage collection\n---\nRuns nightly.\n",
		"wiki/more-retained.md": "---\ntitle: Replication\n---\nCopies across regions.\n",
	}
	p := ask(t, files, "retention", "policy")
	if !hasReason(p.item(t, "wiki/retention.md"), "title", "") {
		t.Error("Retention policy lacks the title bonus for its own title")
	}
	if hasReason(p.item(t, "wiki/retention-v1.md"), "title", "") {
		t.Error("Retention policy v1 has the title bonus, though the query names no version")
	}
	if hasReason(ask(t, files, "retention", "policy", "v1").item(t, "wiki/retention-v1.md"), "title", "") == false {
		t.Error("retention policy v1: the title Retention policy v1 is the whole query, yet has no title bonus")
	}
}

// TestReceiptRecordsTheOrder: a bare "last" is recorded as the order, a
// "last" inside a question is a term, and a question asking which commit
// did something is an event question whose records come first.
func TestReceiptRecordsTheOrder(t *testing.T) {
	files := trackerBase()
	files["wiki/retry-design.md"] = "---\ntitle: Upload retry design\n---\nUploads retry with backoff; the retry budget is three attempts per upload.\n"
	cases := []struct {
		words      []string
		order      string
		termLast   bool
		firstIsRec bool
	}{
		{[]string{"last", "upload", "retry"}, orderLast, false, true},
		{[]string{"upload", "retry", "after", "its", "last", "attempt"}, orderRelevance, true, false},
		{[]string{"upload", "retry"}, orderRelevance, false, false},
		{[]string{"which", "commit", "added", "upload", "retry"}, orderEvent, false, true},
		{[]string{"when", "was", "upload", "retry", "added"}, orderEvent, false, true},
		{[]string{"when", "is", "an", "upload", "retry", "due"}, orderRelevance, false, false},
	}
	for _, c := range cases {
		p := ask(t, files, c.words...)
		q := strings.Join(c.words, " ")
		if p.Receipt.Order != c.order {
			t.Errorf("%q: receipt order %q, want %q", q, p.Receipt.Order, c.order)
		}
		if got := slices.Contains(p.Receipt.Terms, "last"); got != c.termLast {
			t.Errorf("%q: last among the terms %v: %v, want %v", q, p.Receipt.Terms, got, c.termLast)
		}
		if len(p.Items) == 0 {
			t.Errorf("%q: empty pack", q)
			continue
		}
		if isRec := p.Items[0].Kind == "record"; c.firstIsRec && !isRec {
			t.Errorf("%q (order %s): first item %s is not a record", q, p.Receipt.Order, p.Items[0].URI)
		}
	}
	// Without the event order, the design page, which matches both terms
	// in its title, leads; with it, a commit matching both leads.
	if first := ask(t, files, "upload", "retry").Items[0].URI; first != "wiki/retry-design.md" {
		t.Errorf("upload retry: first %s, want the design page", first)
	}
}

// TestCorroboratedRecord: a record matching one meaningful term that
// shares a ticket with a strong item matching several is lifted to
// count as matching several, with a corroborated reason; one sharing
// only a person is not.
func TestCorroboratedRecord(t *testing.T) {
	files := map[string]string{
		"cairn.yaml": "schema: {ticket: {relation: true}, author: {relation: true}}\n",
		"wiki/resumable-uploads.md": "---\ntitle: Resumable chunked uploads\nrelations:\n  ticket: [ticket:RFC-9]\n  author: [person:email/ana@x.test]\n---\n" +
			"A chunked upload can resume after a dropped connection. Resumable chunked uploads were approved.\n",
		"wiki/noise.md": "---\ntitle: Upload limits\n---\nUploads stop at 5 GiB.\n",
		"events/2026-11-05/git-commits.json": `{"cairn": 1, "source": "git-commits", "fields": {"id": ".sha", "title": ".subject", "time": ".at", "ticket": ".t[]", "author": ".a[]"}, "records": [
{"sha": "k1", "subject": "Mark the proposal approved", "at": "2026-11-05T10:00:00Z", "t": ["ticket:RFC-9"]},
{"sha": "k2", "subject": "Approved wording fixes", "at": "2026-11-05T11:00:00Z", "a": ["person:email/ana@x.test"]},
{"sha": "k3", "subject": "Bump version", "at": "2026-11-05T12:00:00Z"},
{"sha": "k4", "subject": "Fix typo in the tutorial", "at": "2026-11-05T13:00:00Z"},
{"sha": "k5", "subject": "Update the mailing list address", "at": "2026-11-05T14:00:00Z"},
{"sha": "k6", "subject": "Reflow long lines", "at": "2026-11-05T15:00:00Z"}]}`,
	}
	p := ask(t, files, "when", "was", "resumable", "chunked", "upload", "approved")
	k1 := p.item(t, "events/2026-11-05/git-commits.json#k1")
	if !hasReason(k1, "corroborated", "ticket:RFC-9") {
		t.Errorf("k1 shares ticket:RFC-9 with wiki/resumable-uploads.md; reasons %+v", k1.Reasons)
	}
	for _, it := range p.Items {
		if it.URI == "events/2026-11-05/git-commits.json#k2" && hasReason(it, "corroborated", "") {
			t.Errorf("k2 shares only a person with the page, yet is corroborated: %+v", it.Reasons)
		}
	}
	if uris := p.uris(); uris[0] != "events/2026-11-05/git-commits.json#k1" {
		t.Errorf("an event question: pack %v, want the corroborated commit first", uris)
	}
}
