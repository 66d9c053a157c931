package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// hubBase has 250 records that relate to one repository (ten of them
// mention "alpha", the rest "beta"), a record "wide" that mentions alpha
// and relates to 70 tickets, and a record "near" that shares only a
// ticket with "wide".
func hubBase() fstest.MapFS {
	var recs []string
	for i := range 250 {
		word := "beta"
		if i < 10 {
			word = "alpha"
		}
		recs = append(recs, fmt.Sprintf(`{"id": "r%03d", "t": "%s note %d", "at": "2026-11-02T%02d:%02d:00Z", "rel": ["repo:x/hub"]}`, i, word, i, i/60, i%60))
	}
	var tickets []string
	for i := range 70 {
		tickets = append(tickets, fmt.Sprintf(`"ticket:T-%d"`, i))
	}
	recs = append(recs, `{"id": "wide", "t": "alpha alpha wide", "at": "2026-11-02T23:00:00Z", "rel": [`+strings.Join(tickets, ",")+`]}`)
	recs = append(recs, `{"id": "near", "t": "alpha near", "at": "2026-11-02T23:30:00Z", "rel": ["ticket:T-5"]}`)
	doc := `{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at", "rel": ".rel[]"}, "records": [` + strings.Join(recs, ",\n") + `]}`
	return fstest.MapFS{
		"cairn.yaml":                   {Data: []byte("schema: {rel: {relation: true}}\n")},
		"events/2026-11-02/notes.json": {Data: []byte(doc)},
	}
}

func TestExpandBoundsHubsAndFailsClosed(t *testing.T) {
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	words := []string{"alpha"}
	sc, err := openScan(context.Background(), hubBase(), words)
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := Parse(words, asOf, "", "")
	e := &engine{c: sc, req: Request{Words: words, Budget: DefaultBudget, AsOf: asOf, Expand: true, Format: FormatJSON}, parsed: parsed, state: Index{State: StateMissing}}
	if _, err := e.prepare(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.truncated, []string{"repo:x/hub"}) {
		t.Errorf("truncated entities %v, want the hub repo:x/hub (250 inbound edges, 200 followed)", e.truncated)
	}
	if !slices.Equal(e.closedSeeds, []string{"events/2026-11-02/notes.json#wide"}) {
		t.Errorf("unexpanded seeds %v, want the record with 70 relations", e.closedSeeds)
	}
	joined := 0
	for _, s := range e.pool {
		row, err := e.rowOf(s)
		if err != nil {
			t.Fatal(err)
		}
		if s.related {
			joined++
			rs, err := e.reasons(s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(rs, func(r Reason) bool { return r.Code == "expand" && r.Points == pointsExpand }) {
				t.Errorf("%s is related but has no +%d expand reason", row.URI, pointsExpand)
			}
		}
		if row.URI == "events/2026-11-02/notes.json#near" && s.related {
			t.Error("near joined through the wide seed, whose neighbourhood should not be followed")
		}
	}
	if joined == 0 || joined > 200 {
		t.Errorf("%d items joined; want some, and at most the 200 newest inbound edges of the hub", joined)
	}
}
