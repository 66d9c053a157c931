package query

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/tables"
)

// TestPacksDoNotDependOnParts: reading rows and sweeping terms.tsv in
// parts on several cores gives the packs one part on one core gives, byte
// for byte, in every format.
func TestPacksDoNotDependOnParts(t *testing.T) {
	dir := querytest.BuiltDemo(t)
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	answer := func(words []string, format string) string {
		t.Helper()
		out, err := Context(context.Background(), dir, Request{Words: words, Budget: DefaultBudget, AsOf: asOf, Format: format, Explain: true, ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "used") {
			t.Fatalf("%q did not read the artifacts:\n%s", words, out)
		}
		return string(out)
	}
	queries := [][]string{{"why", "did", "the", "arm64", "nightly", "time", "out"}, {"HAR-142"}, {"marc@x.test"}, {"last", "deploy"}, {"the", "release", "process"}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	want := map[string]string{}
	for _, q := range queries {
		for _, f := range []string{render.FormatText, render.FormatJSON, render.FormatJSONL} {
			want[strings.Join(q, " ")+" "+f] = answer(q, f)
		}
	}
	runtime.GOMAXPROCS(tables.MaxParts)
	defer tables.PartSizes(2, 256)()
	for _, q := range queries {
		for _, f := range []string{render.FormatText, render.FormatJSON, render.FormatJSONL} {
			if got := answer(q, f); got != want[strings.Join(q, " ")+" "+f] {
				t.Errorf("%q %s: the pack read in parts differs:\n%s\n--- one part:\n%s", q, f, got, want[strings.Join(q, " ")+" "+f])
			}
		}
	}
}

// TestScanKeysMatchTheIndex: a scan computes every item's key as the
// build wrote it to docs.key, on every golden base that builds. The empty
// term makes the scan tokenise every record, so that norms compare too;
// they compare by field name, since a scan numbers only the fields that
// have words while the index numbers every field a schema maps.
func TestScanKeysMatchTheIndex(t *testing.T) {
	for _, name := range []string{"demo", "edge", "rules"} {
		t.Run(name, func(t *testing.T) {
			dir := querytest.BuiltGolden(t, name)
			r, err := tables.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			sc, err := corpus.Scan(context.Background(), root.FS(), []string{""})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Len() != r.Items() {
				t.Fatalf("the scan has %d items, the index %d", sc.Len(), r.Items())
			}
			ords := make([]int, r.Items())
			for i := range ords {
				ords[i] = i
			}
			want, err := r.Keys(ords)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sc.Keys(ords)
			if err != nil {
				t.Fatal(err)
			}
			byName := func(fields []artifacts.Field, norms []byte) map[string]byte {
				m := map[string]byte{}
				for f, c := range norms {
					if c != 0 {
						m[fields[f].Name] = c
					}
				}
				return m
			}
			for i := range ords {
				if g, w := byName(sc.Fields(), got[i].Norms), byName(r.Fields(), want[i].Norms); !reflect.DeepEqual(g, w) {
					t.Errorf("item %d: the scan's norms %v, the index's %v", i, g, w)
				}
				want[i].Offset = 0 // where a row is in docs.tsv: the index's alone
				got[i].Norms, want[i].Norms = nil, nil
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("item %d: the scan's key %+v, the index's %+v", i, got[i], want[i])
				}
			}
		})
	}
}
