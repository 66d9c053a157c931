package tables

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden/goldentest"
)

// TestRowsMatchesRow reads many rows at once, dense and sparse, in one
// part and in several, and compares each with Row.
func TestRowsMatchesRow(t *testing.T) {
	dir := builtDemo(t)
	r, err := Open(dir)
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
	defer func(n, procs int) { minPartRows = n; runtime.GOMAXPROCS(procs) }(minPartRows, runtime.GOMAXPROCS(MaxParts))
	for _, minPart := range []int{minPartRows, 3} { // one part; then up to MaxParts
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
	goldentest.WriteFile(t, dir, artifacts.DocsKeyPath, d)
	r := mustOpen(t, dir)
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
