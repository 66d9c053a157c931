package query

import (
	"context"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/render"
)

// Identity is what Identify says of one URI: whether the base holds an
// item of exactly that URI and, when it does, its kind as a pack shows it
// (record, wiki, project, task) and its source (a record's source, a
// page's layer).
type Identity struct {
	Found  bool
	Kind   string
	Source string
}

// Identify reports, for each URI, whether the base at root holds an item
// (record or page) of exactly that URI and what kind of item it is, read
// from the artifacts when they are current and from a scan otherwise. An
// eval suite checks its URIs with it, so that a misspelt URI is an error
// rather than a miss, and reports its figures by kind of expected item.
func Identify(ctx context.Context, root string, uris []string) ([]Identity, error) {
	c, _, closeFn, err := corpus.Pick(ctx, root, nil)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	out := make([]Identity, len(uris))
	for i, u := range uris {
		ord, err := c.Search(u)
		if err != nil {
			return nil, err
		}
		if ord >= c.Len() {
			continue
		}
		row, err := c.Row(ord)
		if err != nil {
			return nil, err
		}
		if row.URI == u {
			out[i] = Identity{Found: true, Kind: render.DisplayKind(row.Kind), Source: row.Source}
		}
	}
	return out, nil
}
