package query

import (
	"bytes"
	"context"
	"errors"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// TestRowsMatchesRow reads many rows at once, dense and sparse, in one
// part and in several, and compares each with Row.
func TestRowsMatchesRow(t *testing.T) {
	dir := builtDemo(t)
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all, sparse []int
	for i := range r.Items() {
		all = append(all, i)
		if i%7 == 0 || i == r.Items()-1 {
			sparse = append(sparse, i)
		}
	}
	defer func(n, procs int) { minPartRows = n; runtime.GOMAXPROCS(procs) }(minPartRows, runtime.GOMAXPROCS(maxParts))
	for _, minPart := range []int{minPartRows, 3} { // one part; then up to maxParts
		minPartRows = minPart
		for _, ords := range [][]int{all, sparse, {0}, {r.Items() - 1}, {}} {
			rows, err := r.Rows(ords)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(ords) {
				t.Fatalf("Rows(%d ordinals) gave %d rows", len(ords), len(rows))
			}
			for i, o := range ords {
				want, err := r.Row(o)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(rows[i], want) {
					t.Errorf("parts of %d rows: Rows gave %+v for ordinal %d, Row gives %+v", minPart, rows[i], o, want)
				}
			}
		}
		if _, err := r.Rows(append(slices.Clone(all), r.Items())); err == nil {
			t.Errorf("parts of %d rows: Rows accepted an ordinal past the end", minPart)
		}
	}
}

// TestDocsKeyErrorNamesItsLine: a damaged key line is reported with its
// line in docs.key, whether one row, a batch of rows or the keys read it.
func TestDocsKeyErrorNamesItsLine(t *testing.T) {
	dir := builtDemo(t)
	d := readArtifact(t, dir, artifacts.DocsKeyPath)
	width := bytes.IndexByte(d, '\n') + 1
	d[3*width+5] = 'x' // row 2's line, the file's fourth
	writeArtifact(t, dir, artifacts.DocsKeyPath, d)
	r := mustOpenReader(t, dir)
	for name, read := range map[string]func() error{
		"Row":  func() error { _, err := r.Row(2); return err },
		"Rows": func() error { _, err := r.Rows([]int{0, 1, 2, 3}); return err },
		"Keys": func() error { _, err := r.Keys([]int{0, 1, 2, 3}); return err },
		"Key":  func() error { _, err := r.Key(2); return err },
	} {
		var ce *artifacts.CorruptError
		if err := read(); !errors.As(err, &ce) || ce.Path != artifacts.DocsKeyPath || ce.Line != 4 {
			t.Errorf("%s: %v; want a CorruptError at %s line 4", name, err, artifacts.DocsKeyPath)
		}
	}
}

// TestPacksDoNotDependOnParts: reading rows and sweeping terms.tsv in
// parts on several cores gives the packs one part on one core gives, byte
// for byte, in every format.
func TestPacksDoNotDependOnParts(t *testing.T) {
	dir := builtDemo(t)
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
	defer func(rows int, sweep int64, procs int) {
		minPartRows, minSweepPart = rows, sweep
		runtime.GOMAXPROCS(procs)
	}(minPartRows, minSweepPart, runtime.GOMAXPROCS(1))
	want := map[string]string{}
	for _, q := range queries {
		for _, f := range []string{FormatText, FormatJSON, FormatJSONL} {
			want[strings.Join(q, " ")+" "+f] = answer(q, f)
		}
	}
	runtime.GOMAXPROCS(maxParts)
	minPartRows, minSweepPart = 2, 256
	for _, q := range queries {
		for _, f := range []string{FormatText, FormatJSON, FormatJSONL} {
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
			dir := builtGolden(t, name)
			r := mustOpenReader(t, dir)
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			sc, err := openScan(context.Background(), root.FS(), []string{""})
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
