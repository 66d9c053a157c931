package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/cairn-kb/cairn/query"
	"github.com/cairn-kb/cairn/stages/project"
)

// The candidate dump is JSON lines, for a peer ranker to rank exactly the
// candidates cairn chose from, over exactly the text cairn ranks:
//
//	{"kind":"item","uri":…,"id":…,"title":…,"body":…}
//	{"kind":"query","n":…,"question":…,"k":…,"expected":[…],"candidates":[…],"cairn_rank":…,"cairn_ranks":[…]}
//
// An item line comes once, before the first query whose window holds it.
// id holds the identifier fields (id, slug, aliases) and the relation
// values, title the title, body every other projected field; values of
// one field are joined by newlines, fields by blank lines, in field
// order. A query line's candidates are its window's URIs in URI order;
// cairn_rank is the first relevant rank cairn gave it and cairn_ranks the
// rank of each expected URI (0: not delivered).

// DumpItem is an item line of the candidate dump.
type DumpItem struct {
	Kind  string `json:"kind"`
	URI   string `json:"uri"`
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// DumpQuery is a query line of the candidate dump.
type DumpQuery struct {
	Kind     string   `json:"kind"`
	N        int      `json:"n"`
	Question string   `json:"question"`
	K        int      `json:"k"`
	Expected []string `json:"expected"`
	// ExpectedKinds and ExpectedSources are each expected item's kind
	// group (pages or records) and source, for the figures by kind.
	ExpectedKinds   []string `json:"expected_kinds"`
	ExpectedSources []string `json:"expected_sources"`
	Candidates      []string `json:"candidates"`
	CairnRank       int      `json:"cairn_rank"`
	CairnRanks      []int    `json:"cairn_ranks"`
}

// identifierFields go into a dumped item's id column, with relation values.
var identifierFields = map[string]bool{project.FieldID: true, project.FieldSlug: true, project.FieldAliases: true}

type dumper struct {
	k    int
	w    *bufio.Writer
	enc  *json.Encoder
	seen map[string]bool
}

func newDumper(w io.Writer, k int) *dumper {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &dumper{k: k, w: bw, enc: enc, seen: map[string]bool{}}
}

// query writes the items of req's window not written yet, then the
// question's line.
func (d *dumper) query(ctx context.Context, root string, req query.Request, res QueryResult) error {
	cands, err := query.Candidates(ctx, root, req, func(uri string) bool { return !d.seen[uri] })
	if err != nil {
		return err
	}
	q := DumpQuery{Kind: "query", N: res.N, Question: res.Question, K: d.k, Expected: []string{}, ExpectedKinds: []string{}, ExpectedSources: []string{},
		CairnRanks: []int{}, Candidates: make([]string, 0, len(cands)), CairnRank: res.FirstRelevantRank}
	for _, e := range res.Expected {
		q.Expected = append(q.Expected, e.URI)
		q.ExpectedKinds = append(q.ExpectedKinds, kindGroup(e.Kind))
		q.ExpectedSources = append(q.ExpectedSources, e.Source)
		q.CairnRanks = append(q.CairnRanks, e.Rank)
	}
	for _, c := range cands {
		q.Candidates = append(q.Candidates, c.URI)
		if d.seen[c.URI] {
			continue
		}
		d.seen[c.URI] = true
		if err := d.enc.Encode(dumpItem(c)); err != nil {
			return err
		}
	}
	if err := d.enc.Encode(q); err != nil {
		return err
	}
	return d.w.Flush()
}

func dumpItem(c query.Candidate) DumpItem {
	var id, title, body []string
	for _, f := range c.Fields {
		text := strings.Join(f.Values, "\n")
		switch {
		case f.Name == project.FieldTitle:
			title = append(title, text)
		case identifierFields[f.Name] || f.Relation:
			id = append(id, text)
		default:
			body = append(body, text)
		}
	}
	return DumpItem{Kind: "item", URI: c.URI, ID: strings.Join(id, "\n\n"), Title: strings.Join(title, "\n\n"), Body: strings.Join(body, "\n\n")}
}
