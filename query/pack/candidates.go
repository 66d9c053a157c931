package pack

import (
	"context"
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/words"
)

// Candidate is one item of a request's candidate window, as a peer
// ranker would see it: its URI and, when asked for, the values of its
// projected fields (the searchable text, exactly what cairn ranks).
type Candidate struct {
	URI    string
	Fields []CandidateField // sorted by name; nil when the text was not asked for
}

// CandidateField is one projected field of a candidate.
type CandidateField struct {
	Name     string
	Weight   int  // the schema weight cairn gives the field
	Relation bool // the field holds relation values (entity URIs)
	Values   []string
}

// Candidates lists, in URI order, the items of the window that a request
// resolves to (its --since/--until and any temporal expression in its
// words), leaving out what default selection excludes (received and
// private records): the set cairn's ranking chooses from. withText
// decides which candidates get their field values (nil: all); an eval
// that meets a URI in several windows asks for its text once.
func Candidates(ctx context.Context, root string, req Request, withText func(uri string) bool) ([]Candidate, error) {
	parsed, err := question.Parse(req.Words, req.AsOf, req.Since, req.Until)
	if err != nil {
		return nil, err
	}
	c, _, closeFn, err := corpus.Pick(ctx, root, nil)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	_, win, err := words.ResolveWindow(c, parsed.Window, req.AsOf)
	if err != nil {
		return nil, err
	}
	var ords []int
	for _, s := range win.Spans {
		for ord := s.Lo; ord < s.Hi; ord++ {
			if win.Has(ord) {
				ords = append(ords, ord)
			}
		}
	}
	slices.Sort(ords) // ordinals follow URIs: the layers' spans interleave
	keys, err := c.Keys(ords)
	if err != nil {
		return nil, err
	}
	weights := map[string]int{}
	for _, f := range c.Fields() {
		weights[f.Name] = f.Weight
	}
	var out []Candidate
	for i, ord := range ords {
		if keys[i].Flags&(artifacts.KeyReceived|artifacts.KeyPrivate) != 0 {
			continue
		}
		row, err := c.Row(ord)
		if err != nil {
			return nil, err
		}
		cand := Candidate{URI: row.URI}
		if withText == nil || withText(row.URI) {
			it, err := c.Item(ord, row)
			if err != nil {
				return nil, err
			}
			relation := map[string]bool{}
			for _, r := range it.Relations {
				relation[r.Field] = true
			}
			cand.Fields = make([]CandidateField, 0, len(it.Fields))
			for _, f := range it.Fields {
				w, ok := weights[f.Name]
				if !ok {
					w = c.Config().Weight(f.Name)
				}
				cand.Fields = append(cand.Fields, CandidateField{Name: f.Name, Weight: w, Relation: relation[f.Name], Values: f.Values})
			}
		}
		out = append(out, cand)
	}
	return out, nil
}
