package read

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/query/corpus"
)

// Bounds of the nearest-URI search of an unknown read.
const (
	// maxNearest is how many URIs an unknown read names.
	maxNearest = 3
	// nearRows is how many docs.tsv rows either side of the lower bound
	// are candidates: the URIs that sort next to the one asked for.
	nearRows = 3
	// distanceRunes bounds the strings edit distance compares, so that a
	// pasted page of text costs no more than a URI.
	distanceRunes = 200
)

// unknown is the error of a URI that names nothing: it names the nearest
// URIs that exist. Candidates are the items sorting next to the URI (and
// to its document, for a record URI), every term, voice profile,
// operation and target of the log, and the configured identities; the nearest by
// edit distance win, ties by URI, so the answer is the same every time
// and on either corpus.
func (r *reader) unknown() error {
	var cands []string
	c, err := r.corpus()
	if err != nil {
		return err
	}
	for _, key := range slices.Compact([]string{r.uri, strings.SplitN(r.uri, "#", 2)[0] + "#"}) {
		lb, err := c.Search(key)
		if err != nil {
			return err
		}
		for ord := max(0, lb-nearRows); ord < min(c.Len(), lb+nearRows); ord++ {
			row, err := c.Row(ord)
			if err != nil {
				return err
			}
			cands = append(cands, row.URI)
		}
	}
	if g, err := r.governance(); err == nil {
		for _, t := range g.Terms {
			cands = append(cands, termScheme+t.ID)
		}
		for _, v := range g.Voices {
			cands = append(cands, voiceScheme+v.Name)
		}
		for _, op := range g.Log {
			cands = append(cands, op.Op, op.Target)
		}
	}
	cfg := c.Config()
	for _, name := range slices.Sorted(maps.Keys(cfg.Identities)) {
		id := cfg.Identities[name]
		cands = append(cands, id.Canonical)
		cands = append(cands, id.Aliases...)
	}
	slices.Sort(cands)
	near := nearest(r.uri, slices.Compact(cands), maxNearest)
	msg := fmt.Sprintf("nothing in the base is named %s (no record, page, section, term, operation, entity or voice profile)", r.uri)
	if len(near) > 0 {
		msg += "; the nearest that exist: " + strings.Join(near, ", ")
	}
	return &corpus.UsageError{Msg: msg}
}

// nearest picks up to n candidates by edit distance to s, ties by the
// candidate itself.
func nearest(s string, cands []string, n int) []string {
	type scored struct {
		uri string
		d   int
	}
	var all []scored
	for _, c := range cands {
		all = append(all, scored{c, distance(s, c)})
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.uri, b.uri)) })
	var out []string
	for _, a := range all[:min(n, len(all))] {
		out = append(out, a.uri)
	}
	return out
}

// distance is the Levenshtein distance between a and b, over runes, each
// cut to distanceRunes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), distanceRunes)], rb[:min(len(rb), distanceRunes)]
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
