package query

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/search"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// searchJSON runs a search and decodes its JSON answer.
func searchJSON(t *testing.T, dir string, req search.Request) SearchAnswerJSON {
	t.Helper()
	req.Format = render.FormatJSON
	out, err := search.Search(context.Background(), dir, req)
	if err != nil {
		t.Fatalf("search %q: %v", req.Words, err)
	}
	var doc SearchAnswerJSON
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("search %q: %v\n%s", req.Words, err, out)
	}
	return doc
}

// SearchAnswerJSON is the part of a JSON answer the tests read.
type SearchAnswerJSON struct {
	HeldBack int `json:"held_back"`
	Groups   []struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
		Items []struct {
			URI string `json:"uri"`
		} `json:"items"`
	} `json:"groups"`
}

// dictionary is the terms of a built base's terms.tsv.
func dictionary(t *testing.T, dir string) []string {
	f, err := os.Open(filepath.Join(dir, ".cairn", "terms.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		term, _, _ := strings.Cut(sc.Text(), "\t")
		out = append(out, term)
	}
	return out
}

// TestSearchIsExhaustive checks, on the demo and edge bases, for every
// term of the dictionary a query can ask for, that every item whose
// projected text holds the term appears in search TERM (or is counted as
// held back, when it is a received or private record), and that --count
// gives the counts of the unlimited listing. The expectation comes from
// projecting the base again, not from postings.
func TestSearchIsExhaustive(t *testing.T) {
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"demo", "edge"} {
		t.Run(name, func(t *testing.T) {
			dir := querytest.BuiltGolden(t, name)
			loaded, err := load.Run(context.Background(), load.Input{FS: os.DirFS(dir), Unhashed: true}, load.GroupCorpus)
			if err != nil {
				t.Fatal(err)
			}
			projected, err := project.Run(context.Background(), project.Input{Base: loaded.Base})
			if err != nil {
				t.Fatal(err)
			}
			holders := map[string][]*project.Item{} // term → the items whose text holds it
			for i := range projected.Items {
				it := &projected.Items[i]
				seen := map[string]bool{}
				for _, f := range it.Fields {
					for _, tf := range f.Terms {
						if !seen[tf.Term] {
							seen[tf.Term] = true
							holders[tf.Term] = append(holders[tf.Term], it)
						}
					}
				}
			}
			asked := 0
			for _, term := range dictionary(t, dir) {
				if strings.HasPrefix(term, lex.ExactPrefix) {
					continue
				}
				p, err := question.Parse([]string{term}, asOf, "", "")
				if err != nil || p.Temporal != "" || !slices.Equal(p.Terms, []string{term}) {
					continue // a query cannot ask for it alone (scaffolding, a date)
				}
				asked++
				doc := searchJSON(t, dir, search.Request{Words: []string{term}, AsOf: asOf, Limit: 1 << 20})
				listed := map[string]bool{}
				counts := map[string]int{}
				for _, g := range doc.Groups {
					counts[g.Name] = g.Count
					if len(g.Items) != g.Count {
						t.Errorf("%s: group %s counts %d and lists %d without a limit", term, g.Name, g.Count, len(g.Items))
					}
					if g.Name == search.GroupRecords || g.Name == search.GroupPages {
						for _, it := range g.Items {
							listed[it.URI] = true
						}
					}
				}
				held := 0
				for _, it := range holders[term] {
					switch {
					case listed[it.URI]:
					case it.HasFlag(project.FlagPrivate) || it.HasFlag(project.FlagReceived):
						held++
					default:
						t.Errorf("%s: %s holds the term and is not in the answer", term, it.URI)
					}
				}
				if held > doc.HeldBack {
					t.Errorf("%s: %d received or private holders, %d held back", term, held, doc.HeldBack)
				}
				counted := searchJSON(t, dir, search.Request{Words: []string{term}, AsOf: asOf, Count: true})
				if counted.HeldBack != doc.HeldBack {
					t.Errorf("%s: --count holds back %d, the listing %d", term, counted.HeldBack, doc.HeldBack)
				}
				for _, g := range counted.Groups {
					if g.Count != counts[g.Name] || len(g.Items) != 0 {
						t.Errorf("%s: --count says %s %d with %d items, the listing %d", term, g.Name, g.Count, len(g.Items), counts[g.Name])
					}
				}
			}
			if asked < 50 {
				t.Fatalf("only %d dictionary terms could be asked for", asked)
			}
		})
	}
}

// TestSearchGroupsRankWithinThemselves: a term naming an entry exactly
// gives it pointsIdentifier, as an identifier gives a record; each group
// is in score order; --layer governance leaves records and pages out, and
// --source leaves the governance groups out.
func TestSearchGroupsRankWithinThemselves(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	out, err := search.Search(context.Background(), dir, search.Request{Words: []string{"push-token", "token"}, AsOf: asOf, Format: render.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Name  string `json:"name"`
			Items []struct {
				Score int    `json:"score"`
				URI   string `json:"uri"`
			} `json:"items"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for _, g := range doc.Groups {
		for i := 1; i < len(g.Items); i++ {
			if g.Name != search.GroupRecords && g.Name != search.GroupPages && g.Items[i].Score > g.Items[i-1].Score {
				t.Errorf("%s: %s (%d) after %s (%d)", g.Name, g.Items[i].URI, g.Items[i].Score, g.Items[i-1].URI, g.Items[i-1].Score)
			}
		}
		if g.Name == search.GroupTerms && (len(g.Items) == 0 || g.Items[0].URI != "term:push-token" || g.Items[0].Score < rank.PointsIdentifier) {
			t.Errorf("terms: want term:push-token first with at least %d points, got %+v", rank.PointsIdentifier, g.Items)
		}
	}
	gov := searchJSON(t, dir, search.Request{Words: []string{"token"}, AsOf: asOf, Layer: "governance"})
	src := searchJSON(t, dir, search.Request{Words: []string{"token"}, AsOf: asOf, Sources: []string{"tickets"}})
	for i, g := range gov.Groups {
		corpus := g.Name == search.GroupRecords || g.Name == search.GroupPages
		if corpus && g.Count != 0 || !corpus && src.Groups[i].Count != 0 {
			t.Errorf("%s: --layer governance counts %d, --source tickets %d", g.Name, g.Count, src.Groups[i].Count)
		}
	}
}
