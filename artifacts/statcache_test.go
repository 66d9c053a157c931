package artifacts

import (
	"bytes"
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
