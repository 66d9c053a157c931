package query

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/pack"
	"github.com/cairn-kb/cairn/query/render"
)

// raceFiles is a base whose page and record say one colour or the other:
// the words differ, the sizes do not.
func raceFiles(pageColour, recordColour string) map[string]string {
	return map[string]string{
		"cairn.yaml":   "schema: {}\n",
		"wiki/flag.md": "---\ntitle: Flag colours\n---\nThe harbour flag is " + pageColour + " during storms.\n",
		"events/2026-11-02/notes.json": `{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at"}, "records": [` +
			`{"id": "n1", "t": "Storm lamp shows ` + recordColour + ` at the harbour", "at": "2026-11-02T10:00:00Z"}]}` + "\n",
	}
}

// packItems is what a racing answer is compared by: every item's URI,
// score, title and excerpt; the receipt says how the answer was made,
// which differs between the index and the scan.
func packItems(t *testing.T, out []byte) (string, render.IndexState) {
	t.Helper()
	var p struct {
		Items   []render.Item `json:"items"`
		Receipt pack.Receipt  `json:"receipt"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, it := range p.Items {
		fmt.Fprintf(&b, "%s %d %q %q\n", it.URI, it.Score, it.Title, it.Excerpt)
	}
	return b.String(), p.Receipt.Index
}

// TestNoMixedAnswerUnderEdits flips a page (renamed over) and a record
// document (rewritten in place, same size) between two states, keeping
// the modification times the build saw, while queries run: every answer
// must be the answer of one state of the two files, never the postings of
// the build with the text of another state.
func TestNoMixedAnswerUnderEdits(t *testing.T) {
	const amber, green = "amber", "green"
	dir := filepath.Join(t.TempDir(), "base")
	for name, data := range raceFiles(amber, amber) {
		goldentest.WriteFile(t, dir, name, []byte(data))
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	goldentest.Build(t, dir)
	req := pack.Request{Words: []string{"amber", "harbour"}, Budget: pack.DefaultBudget, Format: render.FormatJSON, AsOf: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)}

	// What each state answers, from a copy that is never touched.
	want := map[string]string{}
	for _, pc := range []string{amber, green} {
		for _, rc := range []string{amber, green} {
			still := t.TempDir()
			for name, data := range raceFiles(pc, rc) {
				goldentest.WriteFile(t, still, name, []byte(data))
			}
			out, err := pack.Context(context.Background(), still, req)
			if err != nil {
				t.Fatal(err)
			}
			items, _ := packItems(t, out)
			want[items] = "page " + pc + ", record " + rc
		}
	}
	if len(want) != 4 {
		t.Fatalf("the four states give %d distinct answers; the test cannot tell them apart", len(want))
	}

	page, doc := filepath.Join(dir, "wiki/flag.md"), filepath.Join(dir, "events/2026-11-02/notes.json")
	mtimes := map[string]time.Time{}
	for _, p := range []string{page, doc} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		mtimes[p] = st.ModTime()
	}
	colourAt := strings.Index(raceFiles(amber, amber)["events/2026-11-02/notes.json"], amber)

	var stop atomic.Bool
	var flips atomic.Int64
	flipErr := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the editor
		defer wg.Done()
		f, err := os.OpenFile(doc, os.O_WRONLY, 0)
		if err != nil {
			flipErr <- err
			return
		}
		defer f.Close()
		for i := 0; !stop.Load(); i++ {
			pc, rc := amber, amber
			if i%2 == 1 {
				pc = green
			}
			if i%3 == 1 {
				rc = green
			}
			tmp := page + ".tmp"
			if err := os.WriteFile(tmp, []byte(raceFiles(pc, rc)["wiki/flag.md"]), 0o644); err != nil {
				flipErr <- err
				return
			}
			if err := os.Chtimes(tmp, mtimes[page], mtimes[page]); err != nil {
				flipErr <- err
				return
			}
			if err := os.Rename(tmp, page); err != nil {
				flipErr <- err
				return
			}
			if _, err := f.WriteAt([]byte(rc), int64(colourAt)); err != nil {
				flipErr <- err
				return
			}
			if err := os.Chtimes(doc, mtimes[doc], mtimes[doc]); err != nil {
				flipErr <- err
				return
			}
			flips.Add(1)
		}
	}()

	const answers = 600
	deadline := time.Now().Add(60 * time.Second) // a bound on a slow machine, not a speed check
	seen := map[string]int{}
	mixed, fellBack := 0, 0
	n := 0
	for ; n < answers && time.Now().Before(deadline); n++ {
		out, err := pack.Context(context.Background(), dir, req)
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("answer %d: %v", n, err)
		}
		items, ix := packItems(t, out)
		if state, ok := want[items]; ok {
			seen[state]++
		} else {
			mixed++
			if mixed <= 3 {
				t.Errorf("answer %d (index %s %s) matches no state:\n%s", n, ix.State, ix.Reason, items)
			}
		}
		if ix.State != string(corpus.StateUsed) {
			fellBack++
		}
	}
	stop.Store(true)
	wg.Wait()
	select {
	case err := <-flipErr:
		t.Fatal(err)
	default:
	}
	if n < answers {
		t.Fatalf("only %d answers before the deadline", n)
	}
	if mixed > 0 {
		t.Errorf("%d of %d answers matched no state", mixed, n)
	}
	t.Logf("%d answers over %d flips: %v; %d answered from the scan", n, flips.Load(), seen, fellBack)
}
