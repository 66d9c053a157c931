package artifacts

import (
	"bytes"
	"maps"
	"os"
	"testing"
	"time"
)

// TestStatCacheLeavesOutWhatARowCannotHold: a path with a tab or line break
// would split its row and could pose as another path's entry; it is left
// out, and the file is hashed on every build instead.
func TestStatCacheLeavesOutWhatARowCannotHold(t *testing.T) {
	c := StatCache{
		"a.md":          {Bytes: 1, MtimeNS: 2, XXHash: "h1"},
		"b\tc.md":       {Bytes: 3, MtimeNS: 4, XXHash: "h2"},
		"d\na.md\t9\t9": {Bytes: 5, MtimeNS: 6, XXHash: "h3"},
	}
	got := c.Encode([]string{"a.md", "b\tc.md", "d\na.md\t9\t9"})
	if want := []byte(statCacheHeader + "a.md\t1\t2\th1\n"); !bytes.Equal(got, want) {
		t.Errorf("Encode = %q, want %q", got, want)
	}
}

// TestDropRacy: entries modified within racyWindow before the build's
// start are dropped; older ones stay.
func TestDropRacy(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c := StatCache{
		"old.md":    {MtimeNS: start.Add(-racyWindow - time.Nanosecond).UnixNano()},
		"edge.md":   {MtimeNS: start.Add(-racyWindow).UnixNano()},
		"recent.md": {MtimeNS: start.Add(-time.Second).UnixNano()},
		"future.md": {MtimeNS: start.Add(time.Hour).UnixNano()},
	}
	c.DropRacy(start)
	if _, ok := c["old.md"]; !ok || len(c) != 1 {
		t.Errorf("left %v, want only old.md", c)
	}
}

// TestStatCacheRoundTrip: what WriteStatCache writes, ReadStatCache reads
// back; rows a damaged file cannot vouch for are left out, so their files
// are hashed again rather than trusted.
func TestStatCacheRoundTrip(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	c := StatCache{
		"a.md":      {Bytes: 1, MtimeNS: 1796041208936295093, XXHash: "39219a977eedeb56"},
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
	damaged := statCacheHeader + "a.md\t1\t2\th1\n" +
		"short.md\t1\t2\n" + // a column missing
		"long.md\t1\t2\th\textra\n" + // one too many
		"size.md\tx\t2\th\n" + // not a number
		"cut.md\t1\t2\t39219a97" // no LF: the hash may be cut short
	if err := os.WriteFile(path, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	want := StatCache{"a.md": {Bytes: 1, MtimeNS: 2, XXHash: "h1"}}
	if got := ReadStatCache(root); !maps.Equal(got, want) {
		t.Errorf("ReadStatCache of a damaged cache = %v, want %v", got, want)
	}
}
