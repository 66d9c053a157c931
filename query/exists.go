package query

import (
	"context"
)

// Exists reports, for each URI, whether the base at root holds an item
// (record or page) of exactly that URI, read from the artifacts when they
// are current and from a scan otherwise. An eval suite checks its URIs
// with it, so that a misspelt URI is an error rather than a miss.
func Exists(ctx context.Context, root string, uris []string) ([]bool, error) {
	c, _, closeFn, err := openCorpus(ctx, root, nil)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	out := make([]bool, len(uris))
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
		out[i] = row.URI == u
	}
	return out, nil
}
