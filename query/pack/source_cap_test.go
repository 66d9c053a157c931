package pack

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/render"
)

// capPack is what a fitting chose: the sources of the items the real
// output holds, and every candidate it left out with its reason, in rank
// order (the first maxDroppedDetail, as many as a receipt could name).
type capPack struct {
	items   []capItem
	dropped []capItem
	// droppedTotal counts every candidate left out.
	droppedTotal int
}

type capItem struct {
	uri, source, reason string
	pinned              bool
	standing            int
}

// fitCapPack fits a request over c, in JSON, and reads what it chose.
func fitCapPack(t *testing.T, c corpus.Corpus, req Request) (*capPack, error) {
	t.Helper()
	req.Format = render.FormatJSON
	parsed, err := question.Parse(req.Words, req.AsOf, req.Since, req.Until)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(c, req, parsed, corpus.Index{State: corpus.StateMissing}, nil)
	prep, err := e.prepare()
	if err != nil {
		t.Fatal(err)
	}
	f, n, err := e.fit(prep.pins, prep.ranked, prep.rejected)
	if err != nil {
		return nil, err
	}
	item := func(en *entry) capItem {
		row, err := e.RowOf(en.s)
		if err != nil {
			t.Fatal(err)
		}
		return capItem{uri: row.URI, source: row.Source, reason: en.reason, pinned: en.s.Pinned, standing: en.s.Standing}
	}
	p := &capPack{droppedTotal: len(f.admitted) - n + f.droppedAll}
	for _, en := range f.admitted[:n] {
		p.items = append(p.items, item(en))
	}
	for _, en := range append(slices.Clone(f.admitted[n:]), f.dropped...) {
		p.dropped = append(p.dropped, item(en))
	}
	return p, nil
}

// mustFitCapPack is fitCapPack for a request that must fit.
func mustFitCapPack(t *testing.T, c corpus.Corpus, req Request) *capPack {
	t.Helper()
	p, err := fitCapPack(t, c, req)
	if err != nil {
		t.Fatalf("%q budget %d: %v", strings.Join(req.Words, " "), req.Budget, err)
	}
	return p
}

// bySource counts a pack's unpinned items by source.
func (p *capPack) bySource() (held map[string]int, unpinned int) {
	held = map[string]int{}
	for _, it := range p.items {
		if !it.pinned {
			held[it.source]++
			unpinned++
		}
	}
	return held, unpinned
}

// checkSourceCap checks the cap's promises on a pack of five unpinned
// items or more: a candidate left out for source_cap comes from a source
// that holds its full share (40%) of the pack; when a source holds more
// than its share, because the cap could not be met, every candidate left
// out of a source still under its share was left out for the budget or
// the pages' share, never the cap; and every reason is one of the three.
func checkSourceCap(t *testing.T, name string, p *capPack) {
	t.Helper()
	held, unpinned := p.bySource()
	for _, d := range p.dropped {
		switch d.reason {
		case reasonBudget, reasonSourceCap, reasonPageShare:
		default:
			t.Errorf("%s: %s dropped for %q, want budget, source_cap or page_share", name, d.uri, d.reason)
		}
	}
	if unpinned < diversifyFrom {
		return
	}
	limit := capFor(unpinned)
	for _, d := range p.dropped {
		if d.reason == reasonSourceCap && held[d.source] < limit {
			t.Errorf("%s: %s left out for source_cap, but its source %s holds %d of %d items, under the cap of %d (by source %v)", name, d.uri, d.source, held[d.source], unpinned, limit, held)
		}
	}
}

// goldenContextRequests reads the context queries of golden/<name>/queries.txt
// (not the --at ones) as requests.
func goldenContextRequests(t *testing.T, name string) map[string]Request {
	t.Helper()
	f, err := os.Open(filepath.Join(querytest.GoldenDir(), name, "queries.txt"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	reqs := map[string]Request{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		qname, args, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s/queries.txt: %q has no name", name, line)
		}
		req := Request{Budget: DefaultBudget, ToolVersion: "test"}
		words := strings.Fields(args)
		skip := false
		for i := 0; i < len(words); i++ {
			w := words[i]
			next := func() string {
				i++
				if i >= len(words) {
					t.Fatalf("%s/queries.txt: %s needs a value in %q", name, w, line)
				}
				return words[i]
			}
			switch w {
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
				b, err := strconv.Atoi(next())
				if err != nil {
					t.Fatal(err)
				}
				req.Budget = b
			case "--format":
				next()
			case "--expand":
				req.Expand = true
			case "--explain":
				req.Explain = true
			case "--at", "--profile", "--comments":
				skip = true
			default:
				req.Words = append(req.Words, w)
			}
		}
		if !skip {
			reqs[qname] = req
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestSourceCapOnGoldenPacks checks the source cap on every golden
// context query, at its own budget and at smaller ones, where the cap
// has to choose: the golden packs at 4096 tokens mostly hold every
// candidate.
func TestSourceCapOnGoldenPacks(t *testing.T) {
	diversified, chose := 0, 0 // packs of five or more; packs the cap chose for
	for _, name := range []string{"demo", "edge", "rules"} {
		reqs := goldenContextRequests(t, name)
		if len(reqs) == 0 {
			continue
		}
		dir := querytest.BuiltGolden(t, name)
		for qname, req := range reqs {
			if _, err := question.Parse(req.Words, req.AsOf, req.Since, req.Until); err != nil {
				continue // the golden error cases
			}
			// The golden budget, then every 256 tokens below it: where a
			// budget falls against the items' sizes decides which packs
			// reach the cap.
			for budget := req.Budget; budget >= 1024; budget -= 256 {
				r := req
				r.Budget = budget
				parsed, _ := question.Parse(r.Words, r.AsOf, r.Since, r.Until)
				c, _, closeFn, err := corpus.Pick(context.Background(), dir, parsed.Terms)
				if err != nil {
					t.Fatal(err)
				}
				p, err := fitCapPack(t, c, r)
				closeFn()
				var be *BudgetError
				if errors.As(err, &be) {
					continue // the golden over-budget cases
				}
				if err != nil {
					t.Fatal(err)
				}
				if _, n := p.bySource(); n >= diversifyFrom {
					diversified++
				}
				checkSourceCap(t, fmt.Sprintf("%s/%s at %d tokens", name, qname, budget), p)
				if slices.ContainsFunc(p.dropped, func(d capItem) bool { return d.reason == reasonSourceCap }) {
					chose++
				}
			}
		}
	}
	if diversified < 10 || chose < 2 {
		t.Errorf("%d golden packs have five unpinned items or more, %d left a candidate out for the cap; the test checks too little", diversified, chose)
	}
}

// capBase has three record sources under one query: twenty "alerts"
// that match both of its terms, so that they rank first, then five
// "notes" and five "tickets" that match one term, and filler that matches
// neither (so that neither term is a stop term).
func capBase() fstest.MapFS {
	doc := func(source string, n int, words string) string {
		var recs []string
		for i := range n {
			recs = append(recs, fmt.Sprintf(`{"id": "%s-%02d", "t": "%s %s %02d", "at": "2026-11-02T%02d:%02d:00Z"}`,
				source, i, source, words, i, 10+i/60, i%60))
		}
		return `{"cairn": 1, "source": "` + source + `", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": [` + strings.Join(recs, ",\n") + `]}`
	}
	return fstest.MapFS{
		"cairn.yaml":                     {Data: []byte("{}\n")},
		"events/2026-11-02/alerts.json":  {Data: []byte(doc("alerts", 20, "rollout canary"))},
		"events/2026-11-02/notes.json":   {Data: []byte(doc("notes", 5, "rollout"))},
		"events/2026-11-02/tickets.json": {Data: []byte(doc("tickets", 5, "rollout"))},
		"events/2026-11-02/filler.json":  {Data: []byte(doc("filler", 60, "unrelated"))},
	}
}

// bestLeftOut is the best-ranked candidate of a source left out of a pack.
func bestLeftOut(p *capPack, source string) capItem {
	var best capItem
	for _, d := range p.dropped {
		if d.source == source && (best.uri == "" || d.standing < best.standing) {
			best = d
		}
	}
	return best
}

// TestSourceCapReachesLowRankedSources checks that when the first-ranked
// source reaches its share, the fitting goes on down the ranking to the
// items of other sources, ranked below every alert, and admits them
// ahead of the higher-ranked alerts, which are left out for source_cap;
// notes and tickets the budget cannot hold are left out for budget.
func TestSourceCapReachesLowRankedSources(t *testing.T) {
	words := []string{"rollout", "canary"}
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	sc, err := corpus.Scan(context.Background(), capBase(), words)
	if err != nil {
		t.Fatal(err)
	}
	capped := 0 // packs that left alerts out for source_cap and took notes and tickets instead
	for b := 600; b < 2400; b += 40 {
		p := mustFitCapPack(t, sc, Request{Words: words, AsOf: asOf, Budget: b, ToolVersion: "test"})
		name := fmt.Sprintf("budget %d", b)
		checkSourceCap(t, name, p)
		held, n := p.bySource()
		if n < diversifyFrom {
			continue
		}
		limit := capFor(n)
		// The share is taken against the pack the budget holds in rank
		// order; cheaper notes and tickets can make the pack one larger,
		// its share one more, which the next alert then lacks the room
		// for: it is left out for the budget.
		short := held["alerts"] == limit-1 && bestLeftOut(p, "alerts").reason == reasonBudget
		if held["alerts"] < min(limit, 20) && !short {
			t.Errorf("%s: %d items by source %v; the alerts rank first and take their full share, %d", name, n, held, limit)
		}
		for _, src := range []string{"notes", "tickets"} {
			if held["alerts"] > limit && held[src] < min(limit, 5) {
				t.Errorf("%s: %d items by source %v; the alerts pass the cap of %d while %s, under it, are left out", name, n, held, limit, src)
			}
		}
		reasons := map[string]map[string]int{}
		for _, d := range p.dropped {
			if reasons[d.source] == nil {
				reasons[d.source] = map[string]int{}
			}
			reasons[d.source][d.reason]++
		}
		if out := 20 - held["alerts"]; reasons["alerts"][reasonSourceCap]+reasons["alerts"][reasonBudget] != out {
			t.Errorf("%s: %d alerts not in the pack, but the reasons are %v", name, out, reasons["alerts"])
		} else if held["alerts"] >= capFor(n+1) && reasons["alerts"][reasonSourceCap] != out {
			// Even a pack one larger could take no more alerts: the cap,
			// not the budget, keeps them out.
			t.Errorf("%s: %d alerts not in the pack, all for the cap, but the reasons are %v", name, out, reasons["alerts"])
		}
		for _, src := range []string{"notes", "tickets"} {
			if out := 5 - held[src]; out > 0 && held[src] < limit && reasons[src][reasonBudget] != out {
				t.Errorf("%s: %d %s not in the pack, under the cap, all for the budget, but the reasons are %v", name, out, src, reasons[src])
			}
		}
		if p.droppedTotal != 30-n {
			t.Errorf("%s: %d dropped in all, want %d", name, p.droppedTotal, 30-n)
		}
		if held["notes"] > 0 && held["tickets"] > 0 && reasons["alerts"][reasonSourceCap] > 0 {
			capped++
		}
		// Display order is standing: every alert before every note or ticket.
		for i := 1; i < len(p.items); i++ {
			if p.items[i].standing < p.items[i-1].standing {
				t.Errorf("%s: %s shows after %s, which ranks below it", name, p.items[i].uri, p.items[i-1].uri)
			}
		}
	}
	if capped < 5 {
		t.Errorf("only %d budgets left alerts out for source_cap and took notes and tickets; the test checks too little", capped)
	}
}

// TestSourceCapFillsWhenUnmet checks that when the other sources run out,
// the pack fills from the capped source, in rank order, rather than
// staying small: two sources cannot meet a 40% cap, so every note joins
// and the alerts take the rest.
func TestSourceCapFillsWhenUnmet(t *testing.T) {
	base := capBase()
	delete(base, "events/2026-11-02/tickets.json")
	words := []string{"rollout", "canary"}
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	sc, err := corpus.Scan(context.Background(), base, words)
	if err != nil {
		t.Fatal(err)
	}
	for b := 800; b <= 4096; b += 128 {
		p := mustFitCapPack(t, sc, Request{Words: words, AsOf: asOf, Budget: b, ToolVersion: "test"})
		name := fmt.Sprintf("budget %d", b)
		checkSourceCap(t, name, p)
		held, n := p.bySource()
		if n < diversifyFrom {
			continue
		}
		if held["notes"] < min(5, capFor(n)) {
			t.Errorf("%s: %v; the notes must take their share of a pack of %d", name, held, n)
		}
		for _, d := range p.dropped {
			if d.source == "notes" && d.reason == reasonSourceCap && held["notes"] < capFor(n) {
				t.Errorf("%s: %s left out for source_cap under the cap", name, d.uri)
			}
		}
		if n+p.droppedTotal != 25 {
			t.Errorf("%s: %d in the pack and %d dropped, want 25 in all", name, n, p.droppedTotal)
		}
	}
	// At a budget that holds everything, everything is in.
	p := mustFitCapPack(t, sc, Request{Words: words, AsOf: asOf, Budget: 16384, ToolVersion: "test"})
	if len(p.items) != 25 || p.droppedTotal != 0 {
		t.Errorf("budget 16384: %d items, %d dropped; want all 25 in, the cap unmet with nothing else to take", len(p.items), p.droppedTotal)
	}
}

// TestPagesKeepTheirShare checks the pages' reserve: five wiki pages that
// match one term rank below sixty records of three sources that match
// both, yet a pack large enough to diversify keeps one slot in five for
// them, and the records it turns away for that are left out for
// page_share.
func TestPagesKeepTheirShare(t *testing.T) {
	base := capBase()
	delete(base, "events/2026-11-02/alerts.json")
	doc := func(source string) string {
		var recs []string
		for i := range 20 {
			recs = append(recs, fmt.Sprintf(`{"id": "%s-%02d", "t": "%s rollout canary %02d", "at": "2026-11-02T%02d:%02d:00Z"}`,
				source, i, source, i, 10+i%10, i))
		}
		return `{"cairn": 1, "source": "` + source + `", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": [` + strings.Join(recs, ",\n") + `]}`
	}
	for _, src := range []string{"alerts", "builds", "deploys"} {
		base["events/2026-11-02/"+src+".json"] = &fstest.MapFile{Data: []byte(doc(src))}
	}
	for i := range 5 {
		base[fmt.Sprintf("wiki/page-%d.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\ntitle: Canary page %d\n---\n\nHow a canary is read.\n", i))}
	}
	words := []string{"rollout", "canary"}
	asOf := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	sc, err := corpus.Scan(context.Background(), base, words)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	// Every 8 tokens: whether the records a page's slot turns away are
	// left out for page_share or for the budget depends on where the
	// budget falls against the items' sizes.
	for b := 800; b <= 2400; b += 8 {
		p := mustFitCapPack(t, sc, Request{Words: words, AsOf: asOf, Budget: b, ToolVersion: "test"})
		name := fmt.Sprintf("budget %d", b)
		checkSourceCap(t, name, p)
		held, n := p.bySource()
		if n < diversifyFrom {
			continue
		}
		if want := min(5, (n+pageShareEvery-1)/pageShareEvery); held["wiki"] < want-1 {
			// One less at most: the share is taken against the pack the
			// budget holds by estimate, and shrinking may take a slot.
			t.Errorf("%s: %d items by source %v; the pages keep one slot in five, %d", name, n, held, want)
		}
		for _, d := range p.dropped {
			if d.reason == reasonPageShare {
				if d.source == "wiki" {
					t.Errorf("%s: page %s left out for page_share", name, d.uri)
				}
				shared++
			}
		}
	}
	if shared == 0 {
		t.Error("no record was left out for page_share; the test checks too little")
	}
}
