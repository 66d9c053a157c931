package artifacts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWriteStatCachePrunes: a build's write of its stat cache removes
// the caches of bases that are gone, those of an older format, config
// caches left without their stat cache and temporary files left long ago,
// and beyond statCacheKeep the least recently used; it leaves its own,
// the newest others, a temporary file that may be another build's, and
// files that are not caches.
func TestWriteStatCachePrunes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	own, err := StatCachePath(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(own)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-48 * time.Hour)
	put := func(name, data string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	// Bases that exist, one more than the bound beyond the own cache,
	// and five more: the six least recently used go, with their config
	// caches. All are older than anything else here but the gone ones.
	bases := t.TempDir()
	var want []string
	for i := range statCacheKeep + 5 {
		base := filepath.Join(bases, fmt.Sprintf("b%02d", i))
		if err := os.Mkdir(base, 0o755); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%016x", i)
		mtime := long.Add(time.Duration(i) * time.Minute)
		put(key+".tsv", statHead(base)+"a.md\t1\t2\th\n", mtime)
		put(key+".config", "0123456789abcdef\n{}", mtime)
		if i >= 6 {
			want = append(want, key+".tsv", key+".config")
		}
	}
	gone := filepath.Join(bases, "gone")
	put("aaaaaaaaaaaaaaaa.tsv", statHead(gone)+"a.md\t1\t2\th\n", time.Now())
	put("aaaaaaaaaaaaaaaa.config", "0123456789abcdef\n{}", time.Now())
	put("bbbbbbbbbbbbbbbb.tsv", "#cairn stat v1\tpath\tbytes\tmtime_ns\txxhash\na.md\t1\t2\th\n", time.Now())
	put("cccccccccccccccc.config", "0123456789abcdef\n{}", time.Now())
	put(".stat-123.tmp", "half", long)
	put(".stat-456.tmp", "half", time.Now())
	put("notes.txt", "the user's", long)
	want = append(want, ".stat-456.tmp", "notes.txt", filepath.Base(own))

	if err := WriteStatCache(root, StatCache{"a.md": {Bytes: 1, XXHash: "h"}}, []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("after the write the cache folder holds\n%v\nwant\n%v", got, want)
	}

	// A write of the same bytes renews the modification time, which is
	// what marks the cache as used.
	if err := os.Chtimes(own, long, long); err != nil {
		t.Fatal(err)
	}
	if err := WriteStatCache(root, StatCache{"a.md": {Bytes: 1, XXHash: "h"}}, []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(own); err != nil || time.Since(st.ModTime()) > time.Hour {
		t.Errorf("an unchanged write left the cache's modification time at %v (%v)", st.ModTime(), err)
	}
}

// TestPruneStatCachesMissingFolder: pruning a folder that is not there
// does nothing and fails nothing.
func TestPruneStatCachesMissingFolder(t *testing.T) {
	pruneStatCaches(filepath.Join(t.TempDir(), "none"), "x.tsv")
}
