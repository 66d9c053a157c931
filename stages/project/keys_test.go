package project

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

func TestKeys(t *testing.T) {
	rows := []artifacts.Doc{ // in URI order, as the index holds them
		{URI: "events/2026-11-02/mail.json#a%20b", Kind: "events", Source: "mail", Date: "2026-11-02", Time: "2026-11-02T09:00:00Z",
			Flags: []string{FlagCreated, FlagPrivate, FlagShared}, Lengths: []artifacts.FieldLen{{Field: 0, N: 1}, {Field: 2, N: 1000}},
			Digest: "0000000000000001", SpanOff: 10, SpanLen: 5, Title: "Renewal of the Certificate", URLKey: "00000000000000aa"},
		{URI: "events/2026-11-02/mail.json#c", Kind: "events", Source: "mail", Date: "2026-11-02", Time: "2026-11-02T09:00:00.5Z",
			Digest: "0000000000000002", SpanOff: 20, SpanLen: 5, Title: "Renewal of the Certificate"},
		{URI: "events/2026-11-03/chat.json#d", Kind: "events", Source: "chat", Date: "2026-11-03",
			Flags: []string{FlagReceived}, Digest: "0000000000000003", SpanOff: 0, SpanLen: 5, Title: "Renewal of the Certificate", URLKey: "00000000000000aa"},
		{URI: "projects/harbor.md", Kind: "projects", Source: "projects", Date: "not a day",
			Flags: []string{FlagActive, FlagSuperseded}, Digest: "0000000000000004", SpanOff: -1, ValidUntil: "2027-01-01"},
		{URI: "wiki/index.md", Kind: "wiki", Source: "wiki", Flags: []string{FlagNav, FlagDone, FlagDeprecated},
			Digest: "ffffffffffffffff", SpanOff: -1, Title: "Index"},
	}
	cfg := model.Config{Sources: map[string]model.SourcePolicy{"mail": {Recency: model.Recency{HalfLifeDays: 14}}, "chat": {Recency: model.Recency{HalfLifeDays: 3}}}}
	keys, err := Keys(len(rows), func(i int) *artifacts.Doc { return &rows[i] }, 3, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: stamps compare as text, so the project's "not a day"
	// is above them all; then chat's day, mail's half second, mail, and
	// the page without a date.
	if got, want := chronoOrder(keys), []int{3, 2, 1, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("newest first: %v, want %v", got, want)
	}
	sources := []uint32{keys[0].Source, keys[1].Source, keys[2].Source, keys[3].Source, keys[4].Source}
	if want := []uint32{1, 1, 0, 2, 3}; !slices.Equal(sources, want) { // chat, mail, projects, wiki
		t.Errorf("source ranks %v, want %v", sources, want)
	}
	groups := []int32{keys[0].TitleGroup, keys[1].TitleGroup, keys[2].TitleGroup, keys[3].TitleGroup, keys[4].TitleGroup}
	if want := []int32{0, 0, 2, -1, 4}; !slices.Equal(groups, want) { // one title in two sources: two runs
		t.Errorf("title groups %v, want %v", groups, want)
	}
	urls := []int32{keys[0].URLGroup, keys[1].URLGroup, keys[2].URLGroup, keys[3].URLGroup, keys[4].URLGroup}
	if want := []int32{0, -1, 0, -1, -1}; !slices.Equal(urls, want) {
		t.Errorf("url groups %v, want %v", urls, want)
	}
	flags := map[int]artifacts.KeyFlags{
		0: artifacts.KeyCreated | artifacts.KeyPrivate | artifacts.KeyRecord | artifacts.KeyID | artifacts.KeyDated,
		1: artifacts.KeyRecord | artifacts.KeyID | artifacts.KeyDated,
		2: artifacts.KeyReceived | artifacts.KeyRecord | artifacts.KeyID | artifacts.KeyDated,
		3: artifacts.KeyActive | artifacts.KeySuperseded | artifacts.KeyPage | artifacts.KeyProject | artifacts.KeyDated | artifacts.KeyBounded,
		4: artifacts.KeyNav | artifacts.KeyDone | artifacts.KeyDeprecated | artifacts.KeyPage,
	}
	for i, want := range flags {
		if keys[i].Flags != want {
			t.Errorf("row %d flags %014b, want %014b", i, keys[i].Flags, want)
		}
	}
	if keys[0].Day != 20261102 || keys[3].Day != 0 || keys[4].Day != 0 {
		t.Errorf("days %d, %d, %d; want 20261102 and none for an invalid or missing date", keys[0].Day, keys[3].Day, keys[4].Day)
	}
	if keys[0].HalfLife != 14 || keys[2].HalfLife != 3 || keys[3].HalfLife != 0 {
		t.Errorf("half-lives %d, %d, %d; want 14, 3, 0", keys[0].HalfLife, keys[2].HalfLife, keys[3].HalfLife)
	}
	if !slices.Equal(keys[0].Norms, []byte{1, 0, 20}) || !slices.Equal(keys[1].Norms, []byte{0, 0, 0}) {
		t.Errorf("norms %v, %v; want [1 0 20] (1 word, none, 1000 words) and none", keys[0].Norms, keys[1].Norms)
	}
	if keys[0].Digest != 1 || keys[4].Digest != ^uint64(0) {
		t.Errorf("digests %x, %x", keys[0].Digest, keys[4].Digest)
	}
	if keys[0].OwnID != lex.FoldKey("A B") || keys[0].OwnURI != lex.FoldKey(strings.ToUpper(rows[0].URI)) || keys[3].OwnID != 0 {
		t.Errorf("own keys of %s: %x %x", rows[0].URI, keys[0].OwnID, keys[0].OwnURI)
	}
	if keys[0].TitleTerms != lex.TermsKey([]string{"renewal", "certificate"}) {
		t.Errorf("the title's terms key is not that of [renewal certificate]")
	}
}

func chronoOrder(keys []artifacts.Key) []int {
	order := make([]int, len(keys))
	for i, k := range keys {
		order[k.Chrono] = i
	}
	return order
}

func TestKeysRefuse(t *testing.T) {
	good := artifacts.Doc{URI: "wiki/a.md", Kind: "wiki", Source: "wiki", Digest: "0000000000000001", SpanOff: -1,
		Lengths: []artifacts.FieldLen{{Field: 1, N: 2}}}
	long := model.Config{Sources: map[string]model.SourcePolicy{"wiki": {Recency: model.Recency{HalfLifeDays: load.MaxHalfLifeDays + 1}}}}
	if _, err := Keys(1, func(int) *artifacts.Doc { return &good }, 2, long); err == nil || !strings.Contains(err.Error(), "half-life") {
		t.Errorf("a half-life past the bound: %v", err)
	}
	for name, change := range map[string]func(d *artifacts.Doc){
		"digest not hex":       func(d *artifacts.Doc) { d.Digest = "000000000000000G" },
		"digest short":         func(d *artifacts.Doc) { d.Digest = "01" },
		"field past the table": func(d *artifacts.Doc) { d.Lengths = []artifacts.FieldLen{{Field: 2, N: 1}} },
	} {
		d := good
		change(&d)
		if _, err := Keys(1, func(int) *artifacts.Doc { return &d }, 2, model.Config{}); err == nil || !strings.Contains(err.Error(), "wiki/a.md") {
			t.Errorf("%s: %v; want an error naming the item", name, err)
		}
	}
}

// TestKeysInParts: keys whose newest-first ranks were sorted in halves on
// two cores are the keys sorted on one, and the error reported is the
// first row's in order.
func TestKeysInParts(t *testing.T) {
	defer func(v int) { minKeysPart = v }(minKeysPart)
	rows := make([]artifacts.Doc, 3000)
	for i := range rows {
		rows[i] = artifacts.Doc{URI: fmt.Sprintf("events/2026-11-%02d/x.json#r%04d", i%28+1, i), Kind: "events", Source: fmt.Sprintf("s%d", i%7),
			Date: fmt.Sprintf("2026-11-%02d", i%28+1), Time: fmt.Sprintf("2026-11-%02dT%02d:00:00Z", i%28+1, i%24), Digest: fmt.Sprintf("%016x", i),
			Title: fmt.Sprintf("Title %d", i%50), Lengths: []artifacts.FieldLen{{Field: int32(i % 3), N: int32(i)}}, SpanOff: int64(i)}
	}
	at := func(i int) *artifacts.Doc { return &rows[i] }
	minKeysPart = len(rows) + 1
	one, err := Keys(len(rows), at, 3, model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	minKeysPart = 1
	for _, procs := range []int{2, 4, 7} {
		old := runtime.GOMAXPROCS(procs)
		many, err := Keys(len(rows), at, 3, model.Config{})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, many) {
			t.Errorf("GOMAXPROCS %d: the keys differ from those of one part", procs)
		}
	}
	rows[2999].Digest, rows[1500].Digest, rows[10].Digest = "bad", "bad", "bad"
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // three parts, each with a bad row
	if _, err := Keys(len(rows), at, 3, model.Config{}); err == nil || !strings.Contains(err.Error(), rows[10].URI) {
		t.Errorf("error %v, want the first bad row's, %s", err, rows[10].URI)
	}
}
