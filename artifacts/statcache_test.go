package artifacts

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStatCacheLeavesOutWhatARowCannotHold: a path with a tab or line break
// would split its row and could pose as another path's entry; it is left
// out, and the file is hashed on every build instead.
func TestStatCacheLeavesOutWhatARowCannotHold(t *testing.T) {
	c := StatCache{
		"a.md":          {Bytes: 1, MtimeNS: 2, CtimeNS: 7, XXHash: "h1"},
		"b\tc.md":       {Bytes: 3, MtimeNS: 4, XXHash: "h2"},
		"d\na.md\t9\t9": {Bytes: 5, MtimeNS: 6, XXHash: "h3"},
	}
	abs := filepath.Join(t.TempDir(), "base")
	got := c.Encode(abs, []string{"a.md", "b\tc.md", "d\na.md\t9\t9"})
	if want := []byte(statCacheHeader + statBasePrefix + strconv.Quote(abs) + "\n" + "a.md\t1\t2\t7\th1\n"); !bytes.Equal(got, want) {
		t.Errorf("Encode = %q, want %q", got, want)
	}
}

// absPath is the absolute path of p.
func absPath(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestDropRacy: entries modified within racyWindow before the build's
// start are dropped; older ones stay.
func TestDropRacy(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c := StatCache{
		"old.md":    {MtimeNS: start.Add(-racyWindow - time.Nanosecond).UnixNano()},
		"edge.md":   {MtimeNS: start.Add(-racyWindow).UnixNano()},
		"recent.md": {MtimeNS: start.Add(-time.Second).UnixNano()},
		// Given back an old modification time just now: the stats vouch
		// for it, change time included.
		"restored.md": {MtimeNS: start.Add(-time.Hour).UnixNano(), CtimeNS: start.Add(-time.Second).UnixNano()},
		"future.md":   {MtimeNS: start.Add(time.Hour).UnixNano()},
	}
	c.DropRacy(start)
	if _, ok := c["old.md"]; !ok || len(c) != 2 {
		t.Errorf("left %v, want old.md and restored.md", c)
	}
}

// TestStatCacheRoundTrip: what WriteStatCache writes, ReadStatCache reads
// back; rows a damaged file cannot vouch for are left out, so their files
// are hashed again rather than trusted.
func TestStatCacheRoundTrip(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	c := StatCache{
		"a.md":      {Bytes: 1, MtimeNS: 1796041208936295093, CtimeNS: 1796041208936295100, XXHash: "39219a977eedeb56"},
		"café/b.md": {Bytes: 0, MtimeNS: -5, XXHash: "0000000000000000"},
	}
	if err := WriteStatCache(root, c, []string{"a.md", "café/b.md"}); err != nil {
		t.Fatal(err)
	}
	if got := ReadStatCache(root); !maps.Equal(got, c) {
		t.Errorf("ReadStatCache = %v, want %v", got, c)
	}
	path, err := StatCachePath(root)
	if err != nil {
		t.Fatal(err)
	}
	damaged := statHead(absPath(t, root)) + "a.md\t1\t2\t3\th1\n" +
		"short.md\t1\t2\th\n" + // a column missing (a row of v2)
		"long.md\t1\t2\t3\th\textra\n" + // one too many
		"size.md\tx\t2\t3\th\n" + // not a number
		"change.md\t1\t2\tx\th\n" + // not a number
		"cut.md\t1\t2\t3\t39219a97" // no LF: the hash may be cut short
	if err := os.WriteFile(path, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	want := StatCache{"a.md": {Bytes: 1, MtimeNS: 2, CtimeNS: 3, XXHash: "h1"}}
	if got := ReadStatCache(root); !maps.Equal(got, want) {
		t.Errorf("ReadStatCache of a damaged cache = %v, want %v", got, want)
	}
}

// TestStatFileMatchesStatCache: the query's lookups find what the map of
// the same file holds, for every row, for paths around and between them,
// and in damaged, empty and missing caches.
func TestStatFileMatchesStatCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	path, err := StatCachePath(root)
	if err != nil {
		t.Fatal(err)
	}
	c := StatCache{}
	var paths []string
	for i := range 300 {
		p := fmt.Sprintf("events/2026-11-%02d/s%03d.json", 1+i%28, i)
		c[p] = StatEntry{Bytes: int64(i), MtimeNS: int64(i) << 20, XXHash: fmt.Sprintf("%016x", i)}
		paths = append(paths, p)
	}
	c["cairn.yaml"] = StatEntry{Bytes: 9, MtimeNS: 1, XXHash: "c"}
	c[".cairn/docs.tsv"] = StatEntry{Bytes: 8, MtimeNS: 2, XXHash: "d"}
	paths = append(paths, "cairn.yaml", ".cairn/docs.tsv")
	slices.Sort(paths)
	probes := append(slices.Clone(paths), "", ".", "a", "events", "events/2026-11-01/s000.jso", "events/2026-11-01/s000.json0", "zzz", "café/b.md")
	check := func(name string) {
		t.Helper()
		m, f := ReadStatCache(root), ReadStatFile(root)
		for _, p := range probes {
			want, wantOK := m.Lookup(p)
			if got, ok := f.Lookup(p); ok != wantOK || got != want {
				t.Errorf("%s: Lookup(%q) = %v, %v; the map has %v, %v", name, p, got, ok, want, wantOK)
			}
		}
	}
	if err := WriteStatCache(root, c, paths); err != nil {
		t.Fatal(err)
	}
	check("written cache")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, damaged := range map[string]string{
		"cut last row": string(data[:len(data)-5]),
		"bad rows":     strings.Replace(strings.Replace(string(data), "\t12\t", "\tx\t", 1), "\t50\t", "\t50\t\t", 1),
		"header only":  statHead(absPath(t, root)),
		"no base line": statCacheHeader + string(data[len(statHead(absPath(t, root))):]),
		"another base": statHead(absPath(t, t.TempDir())) + string(data[len(statHead(absPath(t, root))):]),
		"version 1":    "#cairn stat v1\tpath\tbytes\tmtime_ns\txxhash\n" + string(data[len(statHead(absPath(t, root))):]),
		"empty":        "",
	} {
		if err := os.WriteFile(path, []byte(damaged), 0o600); err != nil {
			t.Fatal(err)
		}
		check(name)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	check("missing cache")
	if _, ok := ReadStatFile(root).Lookup("cairn.yaml"); ok {
		t.Error("a missing cache found an entry")
	}
}

// TestStatFileRefresh: a query's refresh puts the stats it took in, drops
// those of files modified just before it began (and their old rows), and
// keeps every other row, outputs stamped moments ago included; a refresh
// that changes nothing writes nothing.
func TestStatFileRefresh(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	start := time.Now()
	old := start.Add(-time.Hour).UnixNano()
	recent := start.Add(-time.Second).UnixNano()
	c := StatCache{
		"events/a.json":   {Bytes: 1, MtimeNS: old, XXHash: "a1"},
		"events/b.json":   {Bytes: 2, MtimeNS: old, XXHash: "b1"},
		"events/c.json":   {Bytes: 3, MtimeNS: old, XXHash: "c1"},
		"docs/guide.md":   {Bytes: 4, MtimeNS: old, XXHash: "g1"},
		".cairn/docs.tsv": {Bytes: 5, MtimeNS: recent, XXHash: "d1"}, // stamped by the build
	}
	if err := WriteStatCache(root, c, slices.Sorted(maps.Keys(c))); err != nil {
		t.Fatal(err)
	}
	fresh := StatCache{
		"events/a.json": {Bytes: 1, MtimeNS: old, XXHash: "a1"},                                // vouched for
		"events/b.json": {Bytes: 7, MtimeNS: old + 1, XXHash: "b2"},                            // hashed again
		"events/c.json": {Bytes: 3, MtimeNS: recent, XXHash: "c2"},                             // written too recently
		"events/d.json": {Bytes: 8, MtimeNS: start.Add(-time.Minute).UnixNano(), XXHash: "e1"}, // new
	}
	if err := ReadStatFile(root).Refresh(root, fresh, start); err != nil {
		t.Fatal(err)
	}
	want := StatCache{
		"events/a.json":   c["events/a.json"],
		"events/b.json":   fresh["events/b.json"],
		"events/d.json":   fresh["events/d.json"],
		"docs/guide.md":   c["docs/guide.md"],
		".cairn/docs.tsv": c[".cairn/docs.tsv"],
	}
	if got := ReadStatCache(root); !maps.Equal(got, want) {
		t.Errorf("after Refresh: %v, want %v", got, want)
	}
	path, err := StatCachePath(root)
	if err != nil {
		t.Fatal(err)
	}
	long := start.Add(-24 * time.Hour)
	if err := os.Chtimes(path, long, long); err != nil {
		t.Fatal(err)
	}
	if err := ReadStatFile(root).Refresh(root, StatCache{"events/a.json": c["events/a.json"]}, start); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || !st.ModTime().Equal(long) {
		t.Errorf("a refresh that changes nothing rewrote the cache (%v, %v)", st.ModTime(), err)
	}
}

// TestFolderRowsAllOrNone: folder rows vouch that the cache lists every
// file of their folders, so they go all at once: DropRacy drops them all
// when it drops any entry; a Refresh whose fresh stats hold folder rows (a
// walk) replaces the cache's folder rows and drops the rows of files that
// were in the walked folders and are not anymore; a racy fresh stat drops
// them all.
func TestFolderRowsAllOrNone(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	start := time.Now()
	old := start.Add(-time.Hour).UnixNano()
	recent := start.Add(-time.Second).UnixNano()
	folders := func(c StatCache) []string {
		var rows []string
		for p := range c {
			if isFolderRow(p) {
				rows = append(rows, p)
			}
		}
		return rows
	}
	c := StatCache{
		"events/":              {MtimeNS: old, XXHash: FolderMark},
		"events/2026-11-01/":   {MtimeNS: old, XXHash: FolderMark},
		"events/2026-11-01/a":  {Bytes: 1, MtimeNS: old, XXHash: "a1"},
		"docs/guide.md":        {Bytes: 4, MtimeNS: recent, XXHash: "g1"},
		"events/2026-11-01/b/": {MtimeNS: old, XXHash: FolderMark},
	}
	c.DropRacy(start)
	if got := folders(c); len(got) != 0 || c["events/2026-11-01/a"].XXHash != "a1" {
		t.Errorf("after DropRacy of a racy file: folder rows %v, cache %v; want none, and the other files kept", got, c)
	}

	root := t.TempDir()
	c = StatCache{
		"events/":             {MtimeNS: old, XXHash: FolderMark},
		"events/2026-11-01/":  {MtimeNS: old, XXHash: FolderMark},
		"events/2026-11-01/a": {Bytes: 1, MtimeNS: old, XXHash: "a1"},
		"events/2026-11-01/b": {Bytes: 1, MtimeNS: old, XXHash: "b1"}, // removed since
		"events/2026-11-09/":  {MtimeNS: old, XXHash: FolderMark},     // removed since
		"docs/guide.md":       {Bytes: 4, MtimeNS: old, XXHash: "g1"},
	}
	if err := WriteStatCache(root, c, slices.Sorted(maps.Keys(c))); err != nil {
		t.Fatal(err)
	}
	walk := StatCache{
		"events/":             {MtimeNS: old + 5, XXHash: FolderMark},
		"events/2026-11-01/":  {MtimeNS: old + 5, XXHash: FolderMark},
		"events/2026-11-01/a": {Bytes: 1, MtimeNS: old, XXHash: "a1"},
	}
	if err := ReadStatFile(root).Refresh(root, walk, start); err != nil {
		t.Fatal(err)
	}
	want := StatCache{
		"events/":             walk["events/"],
		"events/2026-11-01/":  walk["events/2026-11-01/"],
		"events/2026-11-01/a": walk["events/2026-11-01/a"],
		"docs/guide.md":       c["docs/guide.md"],
	}
	if got := ReadStatCache(root); !maps.Equal(got, want) {
		t.Errorf("after a walk's Refresh: %v, want %v", got, want)
	}
	racy := StatCache{"events/2026-11-01/a": {Bytes: 2, MtimeNS: recent, XXHash: "a2"}}
	if err := ReadStatFile(root).Refresh(root, racy, start); err != nil {
		t.Fatal(err)
	}
	if got := folders(ReadStatCache(root)); len(got) != 0 {
		t.Errorf("after a racy Refresh the cache keeps folder rows %v", got)
	}
}
