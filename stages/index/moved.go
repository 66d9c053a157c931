package index

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// movedPlaces gives the spliced rows' keys when items moved (a unit was
// added or removed, so ordinals shifted): what the key table computes over
// every row, found from the old keys where they still hold, so that a
// splice does not sort or group every row again.
//
//   - Newest first, the kept rows keep their old order: their stamps did
//     not change, and neither did their order by URI, which breaks ties.
//     The new rows are sorted alone and merged in, each placed by a
//     binary search.
//   - A title group (same source and title) or URL group keeps its first
//     row, renumbered, unless a new row joins it or an old row leaves it:
//     the first row of such a group is found again over every row.
//   - A source's rank is its place among the new rows' sources in byte
//     order.
//
// It returns the keys and every row's newest stamp.
func movedPlaces(cfg model.Config, old []artifacts.DocLine, oldKey []byte, width int, fresh []artifacts.Doc, freshAt map[int32]int, fields int, r Renumbering) (keySource, []string, error) {
	n := r.Items
	oldOf := make([]int32, n) // a new ordinal's old one, or -1 for a new row
	newOf := make([]int32, len(old))
	for i := range newOf {
		newOf[i] = -1
	}
	for _, p := range r.pieces {
		for k := range p.n {
			oldOf[p.at+k] = -1
			if p.seg < 0 {
				oldOf[p.at+k], newOf[p.from+k] = p.from+k, p.at+k
			}
		}
	}
	// What the old keys placed: each old row's rank and groups.
	type place struct{ chrono, title, url int32 }
	was := make([]place, len(old))
	byRank := make([]int32, len(old)) // old ordinals newest first
	for i := range byRank {
		byRank[i] = -1
	}
	for o := range old {
		k, err := artifacts.KeyPlaced(oldKey[width*(o+1) : width*(o+2)])
		if err == nil && (int(k.Chrono) >= len(old) || byRank[k.Chrono] >= 0) {
			err = &artifacts.CorruptError{Path: artifacts.DocsKeyPath, Line: o + 2, Msg: fmt.Sprintf("rank %d is out of range or another row's", k.Chrono)}
		}
		if err != nil {
			return keySource{}, nil, err
		}
		byRank[k.Chrono] = int32(o)
		was[o] = place{int32(k.Chrono), k.TitleGroup, k.URLGroup}
	}
	row := func(i int32) (source, title, url string) {
		if o := oldOf[i]; o >= 0 {
			return old[o].Source, old[o].Title, old[o].URLKey
		}
		d := &fresh[freshAt[i]]
		return d.Source, d.Title, d.URLKey
	}
	stamps := make([]string, n)
	for i := range stamps {
		if o := oldOf[i]; o >= 0 {
			stamps[i] = cmp.Or(old[o].Time, old[o].Date)
		} else {
			stamps[i] = project.Newest(&fresh[freshAt[int32(i)]])
		}
	}

	// Newest first: the new rows merged into the kept rows' old order.
	newer := func(a, b int32) int {
		if c := project.CompareStamps(stamps[b], stamps[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	var news []int32
	for i, o := range oldOf {
		if o < 0 {
			news = append(news, int32(i))
		}
	}
	slices.SortFunc(news, newer)
	keptOrder := make([]int32, 0, n-len(news))
	for _, o := range byRank {
		if i := newOf[o]; i >= 0 {
			keptOrder = append(keptOrder, i)
		}
	}
	chrono := make([]uint32, n)
	rank, next := uint32(0), 0
	for _, f := range news {
		at := next + sort.Search(len(keptOrder)-next, func(x int) bool { return newer(f, keptOrder[next+x]) < 0 })
		for ; next < at; next++ {
			chrono[keptOrder[next]] = rank
			rank++
		}
		chrono[f] = rank
		rank++
	}
	for ; next < len(keptOrder); next++ {
		chrono[keptOrder[next]] = rank
		rank++
	}

	// Sources, ranked in byte order.
	sources := map[string]uint32{}
	for i := range n {
		src, _, _ := row(int32(i))
		sources[src] = 0
	}
	names := make([]string, 0, len(sources))
	for s := range sources {
		names = append(names, s)
	}
	slices.Sort(names)
	for i, s := range names {
		sources[s] = uint32(i)
	}

	// Groups: the old first row renumbered, but for the groups a new row
	// joins or an old row leaves, whose first row is found again.
	type titled struct{ source, title string }
	hitTitle, hitURL := map[titled]bool{}, map[string]bool{}
	mark := func(source, title, url string) {
		if title != "" {
			hitTitle[titled{source, title}] = true
		}
		if url != "" {
			hitURL[url] = true
		}
	}
	for _, i := range news {
		mark(row(i))
	}
	for o := range old {
		if newOf[o] < 0 {
			mark(old[o].Source, old[o].Title, old[o].URLKey)
		}
	}
	titleHead, urlHead := map[titled]int32{}, map[string]int32{}
	if len(hitTitle)+len(hitURL) > 0 {
		for i := range int32(n) {
			src, title, url := row(i)
			if g := (titled{src, title}); title != "" && hitTitle[g] {
				if _, ok := titleHead[g]; !ok {
					titleHead[g] = i
				}
			}
			if url != "" && hitURL[url] {
				if _, ok := urlHead[url]; !ok {
					urlHead[url] = i
				}
			}
		}
	}
	placed := func(i int32) (artifacts.Key, error) {
		src, title, url := row(i)
		k := artifacts.Key{Chrono: chrono[i], Source: sources[src], TitleGroup: -1, URLGroup: -1}
		o := oldOf[i]
		if title != "" {
			if h, ok := titleHead[titled{src, title}]; ok {
				k.TitleGroup = h
			} else if o < 0 || was[o].title < 0 || newOf[was[o].title] < 0 {
				return k, &artifacts.CorruptError{Path: artifacts.DocsKeyPath, Line: int(o) + 2, Msg: "the row's title group names no kept row"}
			} else {
				k.TitleGroup = newOf[was[o].title]
			}
		}
		if url != "" {
			if h, ok := urlHead[url]; ok {
				k.URLGroup = h
			} else if o < 0 || was[o].url < 0 || newOf[was[o].url] < 0 {
				return k, &artifacts.CorruptError{Path: artifacts.DocsKeyPath, Line: int(o) + 2, Msg: "the row's URL group names no kept row"}
			} else {
				k.URLGroup = newOf[was[o].url]
			}
		}
		return k, nil
	}
	return placedKeys(placed, cfg, fresh, freshAt, fields), stamps, nil
}
