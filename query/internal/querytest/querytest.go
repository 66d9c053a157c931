// Package querytest builds the bases the read side's tests query: the
// golden cases' bases built the way cairn build does, a base with a hub
// entity, and small edits. Only tests import it: it runs the build, which
// a reader must never do.
package querytest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-kb/cairn/golden/goldentest"
)

// GoldenDir is the golden cases' folder, wherever the test runs from.
func GoldenDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "golden")
}

// BuiltDemo copies the demo base into a temporary folder and builds it the
// way `cairn build` does.
func BuiltDemo(t testing.TB) string {
	t.Helper()
	return BuiltGolden(t, "demo")
}

// BuiltGolden copies the base of a golden case and builds it.
func BuiltGolden(t testing.TB, name string) string {
	t.Helper()
	return BuiltFS(t, os.DirFS(filepath.Join(GoldenDir(), name, "base")))
}

// BuiltFS writes a base to a fresh folder and builds it the way `cairn
// build` does.
func BuiltFS(t testing.TB, base fs.FS) string {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(dir, base); err != nil {
		t.Fatal(err)
	}
	goldentest.Build(t, dir)
	return dir
}

// Edit replaces the first old in the file rel of the base at dir with new,
// failing the test when the file does not hold old.
func Edit(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", rel, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WithoutIndex runs f with the base's artifacts moved aside, so that a
// query answers from a scan.
func WithoutIndex(t *testing.T, dir string, f func()) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, ".cairn"), filepath.Join(dir, ".cairn.off")); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(filepath.Join(dir, ".cairn.off"), filepath.Join(dir, ".cairn"))
	f()
}

// HubBase has 250 records that relate to one repository (ten of them
// mention "alpha", the rest "beta"), a record "wide" that mentions alpha
// and relates to 70 tickets, and a record "near" that shares only a
// ticket with "wide".
func HubBase() fstest.MapFS {
	var recs []string
	for i := range 250 {
		word := "beta"
		if i < 10 {
			word = "alpha"
		}
		recs = append(recs, fmt.Sprintf(`{"id": "r%03d", "t": "%s note %d", "at": "2026-11-02T%02d:%02d:00Z", "rel": ["repo:x/hub"]}`, i, word, i, i/60, i%60))
	}
	var tickets []string
	for i := range 70 {
		tickets = append(tickets, fmt.Sprintf(`"ticket:T-%d"`, i))
	}
	recs = append(recs, `{"id": "wide", "t": "alpha alpha wide", "at": "2026-11-02T23:00:00Z", "rel": [`+strings.Join(tickets, ",")+`]}`)
	recs = append(recs, `{"id": "near", "t": "alpha near", "at": "2026-11-02T23:30:00Z", "rel": ["ticket:T-5"]}`)
	doc := `{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at", "rel": ".rel[]"}, "records": [` + strings.Join(recs, ",\n") + `]}`
	return fstest.MapFS{
		"cairn.yaml":                   {Data: []byte("schema: {rel: {relation: true}}\n")},
		"events/2026-11-02/notes.json": {Data: []byte(doc)},
	}
}
