package project

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// keyFlags maps row flags to the key flags a query tests.
var keyFlags = map[string]artifacts.KeyFlags{
	FlagCreated: artifacts.KeyCreated, FlagSuperseded: artifacts.KeySuperseded,
	FlagDone: artifacts.KeyDone, FlagDeprecated: artifacts.KeyDeprecated,
	FlagNav: artifacts.KeyNav, FlagActive: artifacts.KeyActive,
	FlagReceived: artifacts.KeyReceived, FlagPrivate: artifacts.KeyPrivate,
}

// Keys computes the docs.key line of each of n rows, given in URI order
// by row(i), for a base of the given number of fields: what a key table of
// every row gives (NewKeyTable, KeysOf). A build makes the same keys a row
// at a time as it writes them (index.Run); a query's scan makes only its
// candidates'. The row offsets are left for the encoder.
func Keys(n int, row func(i int) *artifacts.Doc, fields int, cfg model.Config) ([]artifacts.Key, error) {
	t, err := NewKeyTable(n, row, fields, cfg)
	if err != nil {
		return nil, err
	}
	ords := make([]int, n)
	for i := range ords {
		ords[i] = i
	}
	return t.KeysOf(ords)
}

// KeyTable holds what the keys of a base's rows take from comparing rows
// (newest-first ranks, source ranks, title and URL groups), so that the
// key of any one row can be made from its own row: a scan makes only its
// candidates' keys.
type KeyTable struct {
	*Placement
	row    func(i int) *artifacts.Doc
	fields int
	cfg    model.Config
}

// NewKeyTable ranks and groups n rows, given in URI order by row(i).
func NewKeyTable(n int, row func(i int) *artifacts.Doc, fields int, cfg model.Config) (*KeyTable, error) {
	p, err := NewPlacement(n, func(yield func(Placing) bool) {
		for i := range n {
			if !yield(PlacingOf(row(i))) {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return &KeyTable{Placement: p, row: row, fields: fields, cfg: cfg}, nil
}

// A Placing is what places a row among the others in its key: its source,
// title, URL key and stamp (Newest).
type Placing struct {
	Source, Title, URLKey, Stamp string
}

// PlacingOf is row d's placing.
func PlacingOf(d *artifacts.Doc) Placing {
	return Placing{Source: d.Source, Title: d.Title, URLKey: d.URLKey, Stamp: Newest(d)}
}

// A Placement is the part of every row's key that comes from comparing
// rows: its newest-first rank, its source's rank and its title and URL
// groups.
type Placement struct {
	chrono, source []uint32
	title, url     []int32
}

// NewPlacement ranks and groups n rows, whose placings come in URI order.
func NewPlacement(n int, placings iter.Seq[Placing]) (*Placement, error) {
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%d items; docs.key numbers at most %d", n, math.MaxInt32)
	}
	t := &Placement{chrono: make([]uint32, n), source: make([]uint32, n), title: make([]int32, n), url: make([]int32, n)}
	sources := map[string]uint32{}
	type titled struct{ source, title string }
	titles := map[titled]int32{}
	urls := map[string]int32{}
	type stamped struct {
		at  string
		ord int32
	}
	order := make([]stamped, n)
	var names []string // the sources by first sight, until ranked
	i := 0
	for d := range placings {
		if i == n {
			return nil, fmt.Errorf("more than the %d rows to place", n)
		}
		id, ok := sources[d.Source]
		if !ok {
			id = uint32(len(names))
			sources[d.Source] = id
			names = append(names, d.Source)
		}
		t.source[i] = id
		order[i] = stamped{d.Stamp, int32(i)}
		t.title[i], t.url[i] = -1, -1
		if d.Title != "" {
			k := titled{d.Source, d.Title}
			g, ok := titles[k]
			if !ok {
				g = int32(i)
				titles[k] = g
			}
			t.title[i] = g
		}
		if d.URLKey != "" {
			g, ok := urls[d.URLKey]
			if !ok {
				g = int32(i)
				urls[d.URLKey] = g
			}
			t.url[i] = g
		}
		i++
	}
	if i != n {
		return nil, fmt.Errorf("%d rows to place, %d given", n, i)
	}
	// Each source's first-sight number becomes its rank in byte order.
	ranked := slices.Clone(names)
	slices.Sort(ranked)
	rank := make([]uint32, len(names))
	for id, s := range names {
		r, _ := slices.BinarySearch(ranked, s)
		rank[id] = uint32(r)
	}
	for i := range t.source {
		t.source[i] = rank[t.source[i]]
	}
	// Newest first, by time, else date; URI order (the ordinal) breaks ties.
	newer := func(a, b stamped) int {
		if c := CompareStamps(b.at, a.at); c != 0 {
			return c
		}
		return cmp.Compare(a.ord, b.ord)
	}
	for r, o := range sortInHalves(order, newer) {
		t.chrono[o.ord] = uint32(r)
	}
	return t, nil
}

// sortInHalves sorts s by cmp, a total order, into a new slice: a large s
// is sorted in two halves on two cores, then merged.
func sortInHalves[T any](s []T, cmp func(a, b T) int) []T {
	if len(s) < 2*minKeysPart || runtime.GOMAXPROCS(0) < 2 {
		slices.SortFunc(s, cmp)
		return s
	}
	a, b := s[:len(s)/2], s[len(s)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(a, cmp) })
	slices.SortFunc(b, cmp)
	wg.Wait()
	out := make([]T, 0, len(s))
	for len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// KeysOf makes the keys of rows ords.
func (t *KeyTable) KeysOf(ords []int) ([]artifacts.Key, error) {
	keys := make([]artifacts.Key, len(ords))
	norms := make([]byte, len(ords)*t.fields)
	for j, i := range ords {
		keys[j].Norms = norms[j*t.fields : (j+1)*t.fields : (j+1)*t.fields]
		if err := t.fill(&keys[j], i); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// Placed is the part of row i's key that comes from comparing rows: its
// newest-first rank, its source's rank and its title and URL groups.
func (t *Placement) Placed(i int) artifacts.Key {
	return artifacts.Key{Chrono: t.chrono[i], Source: t.source[i], TitleGroup: t.title[i], URLGroup: t.url[i]}
}

// fill fills k, whose norms have room for every field, as row i's key.
func (t *KeyTable) fill(k *artifacts.Key, i int) error {
	k.Chrono, k.Source, k.TitleGroup, k.URLGroup = t.chrono[i], t.source[i], t.title[i], t.url[i]
	return rowKey(k, t.row(i), t.fields, t.cfg)
}

// KeyOf makes the key of row d given the part of it that comes from
// comparing rows (placed: its Chrono, Source, TitleGroup and URLGroup, as
// Placed gives them), in a base of the given number of fields: what a row
// whose place among the others did not change keys as.
func KeyOf(placed artifacts.Key, d *artifacts.Doc, fields int, cfg model.Config) (artifacts.Key, error) {
	k := artifacts.Key{Chrono: placed.Chrono, Source: placed.Source, TitleGroup: placed.TitleGroup, URLGroup: placed.URLGroup,
		Norms: make([]byte, fields)}
	err := rowKey(&k, d, fields, cfg)
	return k, err
}

// minKeysPart is the fewest rows worth sorting on a core of their own (a
// variable so that tests can sort small tables in halves).
var minKeysPart = 4096

// rowKey fills what k takes from d alone: digest, half-life, day, flags,
// the title's terms, the own-name hashes and the norms.
func rowKey(k *artifacts.Key, d *artifacts.Doc, fields int, cfg model.Config) error {
	if err := OwnKey(k, d, cfg); err != nil {
		return err
	}
	return Norms(k.Norms, d.URI, d.Lengths)
}

// OwnKey fills what k takes from d alone but its norms: digest,
// half-life, day, flags, the title's terms and the own-name hashes. A
// build makes it as it projects, before the fields are numbered.
func OwnKey(k *artifacts.Key, d *artifacts.Doc, cfg model.Config) error {
	var ok bool
	if k.Digest, ok = artifacts.ParseHashSum(d.Digest); !ok {
		return fmt.Errorf("%s: digest %q is not 16 hex digits", d.URI, d.Digest)
	}
	if hl := cfg.Sources[d.Source].Recency.HalfLifeDays; hl > 0 {
		if hl > load.MaxHalfLifeDays { // the configuration's check refuses it first
			return fmt.Errorf("%s: the half-life of source %q, %d days, is above %d", d.URI, d.Source, hl, load.MaxHalfLifeDays)
		}
		k.HalfLife = uint32(hl)
	}
	k.Day = dayNumber(d.Date)
	k.Flags = flagsOf(d)
	k.TitleTerms = lex.TitleKey(d.Title)
	if _, id, ok := strings.Cut(d.URI, "#"); ok {
		k.OwnID = lex.FoldKey(lex.DecodeID(id))
	}
	k.OwnURI = lex.FoldKey(d.URI)
	return nil
}

// Norms fills norms, one per field of the base, with the length classes
// of a row's lengths; uri names the row in an error.
func Norms(norms []byte, uri string, lengths []artifacts.FieldLen) error {
	for _, l := range lengths {
		if l.Field < 0 || int(l.Field) >= len(norms) {
			return fmt.Errorf("%s: field ordinal %d of %d fields", uri, l.Field, len(norms))
		}
		if l.N > 0 {
			norms[l.Field] = artifacts.NormOf(int(l.N))
		}
	}
	return nil
}

// Newest is a row's time, else its date: what orders items by age.
func Newest(d *artifacts.Doc) string { return cmp.Or(d.Time, d.Date) }

// flagsOf is a row's key flags.
func flagsOf(d *artifacts.Doc) artifacts.KeyFlags {
	var f artifacts.KeyFlags
	for _, name := range d.Flags {
		f |= keyFlags[name]
	}
	if d.Kind == "wiki" || d.Kind == "projects" {
		f |= artifacts.KeyPage
	}
	if d.Kind == "projects" {
		f |= artifacts.KeyProject
	}
	if d.SpanOff >= 0 {
		f |= artifacts.KeyRecord
	}
	if strings.Contains(d.URI, "#") {
		f |= artifacts.KeyID
	}
	if d.Date != "" {
		f |= artifacts.KeyDated
	}
	if d.ValidFrom != "" || d.ValidUntil != "" {
		f |= artifacts.KeyBounded
	}
	return f
}

// dayNumber is a valid YYYY-MM-DD day as the number YYYYMMDD, else 0.
func dayNumber(day string) int32 {
	if _, err := time.Parse(time.DateOnly, day); err != nil || len(day) != 10 {
		return 0
	}
	v := int32(0)
	for i := range 10 {
		if i != 4 && i != 7 {
			v = v*10 + int32(day[i]-'0')
		}
	}
	return v
}

// DayString is the YYYY-MM-DD of a key's day number, "" for 0.
func DayString(v int32) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", v/10000, v/100%100, v%100)
}
