package words

import (
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
)

// windowDays is how many populated event days a query looks back by
// default, and how long an --until-only or task-only window is.
const windowDays = 30

// Span is a run of ordinals [lo, hi).
type Span struct{ Lo, Hi int }

// Window is the candidate window as ordinals: the items of dated
// layers within the window's days, and every undated item except pages
// outside their validity at the as-of day. Because docs.tsv is sorted by
// URI and a dated item's URI starts with its layer and day, each dated
// layer's window is one run of ordinals, found by two binary searches.
type Window struct {
	Spans    []Span
	excluded []int // undated pages outside their validity, sorted
	N        int
	Dated    int // of n, the items of dated layers (events, tasks)
}

// Has reports whether the item of ordinal ord is in the window.
func (c *Window) Has(ord int) bool {
	for _, s := range c.Spans {
		if ord >= s.Lo && ord < s.Hi {
			if len(c.excluded) > 0 {
				if _, out := slices.BinarySearch(c.excluded, ord); out {
					return false
				}
			}
			return true
		}
	}
	return false
}

const day = 24 * time.Hour

func DayString(t time.Time) string { return t.Format(time.DateOnly) }

// LayerSpan returns the ordinals of layer's items dated since..until
// (inclusive), or the whole layer when since and until are empty.
func LayerSpan(c corpus.Corpus, layer, since, until string) (Span, error) {
	from, to := layer+"/", layer+"0" // "0" follows "/" in byte order
	if since != "" {
		from = layer + "/" + since
	}
	if until != "" {
		t, _ := time.Parse(time.DateOnly, until)
		to = layer + "/" + DayString(t.Add(day))
	}
	lo, err := c.Search(from)
	if err != nil {
		return Span{}, err
	}
	hi, err := c.Search(to)
	return Span{lo, max(lo, hi)}, err
}

// populatedDays lists, newest first, up to n days of the events layer on
// or before until that hold records.
func populatedDays(c corpus.Corpus, until string, n int) []string {
	var days []string
	all := c.EventDays()
	for i := len(all) - 1; i >= 0 && len(days) < n; i-- {
		if all[i] <= until {
			days = append(days, all[i])
		}
	}
	return days
}

// ResolveWindow fills the default bounds and returns the candidate
// window. Without bounds the window starts at the oldest of the last 30
// populated event days and ends at the as-of day; a base without events
// looks back 30 calendar days.
func ResolveWindow(c corpus.Corpus, w question.Window, asOf time.Time) (question.Window, *Window, error) {
	cfg := c.Config()
	today := DayString(asOf)
	if w.Until == "" {
		w.Until = today
	}
	if w.Since == "" {
		if days := populatedDays(c, w.Until, windowDays); len(days) > 0 {
			w.Since = days[len(days)-1]
			if w.DerivedFrom == "" {
				w.DerivedFrom = "default: the last 30 populated event days"
			}
		} else {
			u, _ := time.Parse(time.DateOnly, w.Until)
			w.Since = DayString(u.Add(-(windowDays - 1) * day))
			if w.DerivedFrom == "" {
				w.DerivedFrom = "default: no events, the last 30 calendar days"
			}
		}
	}
	cand := &Window{}
	for _, dated := range []string{cfg.Layers.Events, cfg.Layers.Tasks} {
		s, err := LayerSpan(c, dated, w.Since, w.Until)
		if err != nil {
			return w, nil, err
		}
		cand.Spans = append(cand.Spans, s)
		cand.Dated += s.Hi - s.Lo
	}
	for _, undated := range []string{cfg.Layers.Index, cfg.Layers.Wiki, cfg.Layers.Projects} {
		s, err := LayerSpan(c, undated, "", "")
		if err != nil {
			return w, nil, err
		}
		cand.Spans = append(cand.Spans, s)
		if undated == cfg.Layers.Index {
			continue
		}
		// The keys of a run of ordinals are a few reads; only the rows of
		// pages with a validity bound are read to compare it.
		ords := make([]int, 0, s.Hi-s.Lo)
		for ord := s.Lo; ord < s.Hi; ord++ {
			ords = append(ords, ord)
		}
		keys, err := c.Keys(ords)
		if err != nil {
			return w, nil, err
		}
		var bounded []int
		for i, k := range keys {
			if k.Flags&artifacts.KeyBounded != 0 {
				bounded = append(bounded, ords[i])
			}
		}
		rows, err := c.Rows(bounded)
		if err != nil {
			return w, nil, err
		}
		for i, row := range rows {
			if (row.ValidFrom != "" && today < row.ValidFrom) || (row.ValidUntil != "" && today > row.ValidUntil) {
				cand.excluded = append(cand.excluded, bounded[i])
			}
		}
	}
	slices.Sort(cand.excluded)
	for _, s := range cand.Spans {
		cand.N += s.Hi - s.Lo
	}
	cand.N -= len(cand.excluded)
	return w, cand, nil
}

// NearestDatedDay is the day folder, among the dated layers' items, that
// is nearest a window ending on until: the newest on or before it, or
// when there is none the oldest after it (before says which); "" when the
// layers hold no item. Two binary searches and one row per layer.
func NearestDatedDay(c corpus.Corpus, until string) (near string, before bool, err error) {
	cfg := c.Config()
	t, _ := time.Parse(time.DateOnly, until)
	next := DayString(t.Add(day))
	var after string
	for _, layer := range []string{cfg.Layers.Events, cfg.Layers.Tasks} {
		all, err := LayerSpan(c, layer, "", "")
		if err != nil {
			return "", false, err
		}
		cut, err := c.Search(layer + "/" + next)
		if err != nil {
			return "", false, err
		}
		cut = min(max(cut, all.Lo), all.Hi)
		if cut > all.Lo {
			d, err := dayFolder(c, cut-1, layer)
			if err != nil {
				return "", false, err
			}
			near = max(near, d)
		}
		if cut < all.Hi {
			d, err := dayFolder(c, cut, layer)
			if err != nil {
				return "", false, err
			}
			if after == "" || d < after {
				after = d
			}
		}
	}
	if near != "" {
		return near, true, nil
	}
	return after, false, nil
}

// dayFolder is the day an item of a dated layer is filed under: the
// folder after the layer in its URI, which is what a window bounds.
func dayFolder(c corpus.Corpus, ord int, layer string) (string, error) {
	row, err := c.Row(ord)
	if err != nil {
		return "", err
	}
	d, _, _ := strings.Cut(strings.TrimPrefix(row.URI, layer+"/"), "/")
	return d, nil
}
