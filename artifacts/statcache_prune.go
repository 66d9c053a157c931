package artifacts

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// statCacheKeep bounds the bases whose stat cache (and config cache) a
// machine keeps. Beyond it the least recently used go, by the stat cache's
// modification time, which every build renews; a base pruned only hashes
// its files once more on its next build.
const statCacheKeep = 64

// cacheTempPrefix and cacheTempSuffix frame the name of writeCacheFile's
// temporary files.
const (
	cacheTempPrefix = ".stat-"
	cacheTempSuffix = ".tmp"
)

// staleCacheTemp is how old a temporary file in the cache folder must be
// for pruneStatCaches to remove it: one that old was left by a process
// killed between writing it and renaming it; a younger one may be another
// build's, about to be renamed.
const staleCacheTemp = time.Hour

// statHeadMax bounds how much of a stat cache is read for its header and
// base line: a path longer than that is no base of this machine's.
const statHeadMax = 64 << 10

// statCacheSuffix ends the name of a stat cache.
const statCacheSuffix = ".tsv"

// pruneStatCaches removes from dir, the folder of stat caches, the caches
// whose base no longer exists, those this version does not read (an older
// format, or damaged), and beyond statCacheKeep the least recently used;
// with each its config cache, and config caches left without theirs. keep,
// the cache just written, is never removed.
//
// It reads the folder once, and the first lines of each stat cache. It
// fails nothing: what cannot be read or removed is passed over. Two
// builds pruning at once at worst both remove the same file; the one
// whose cache another build removed just after it was written hashes its
// files again next time.
func pruneStatCaches(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type cache struct {
		name  string
		mtime time.Time
	}
	var live []cache
	stats := map[string]bool{} // the stat caches' keys, by name without suffix
	var drop []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, cacheTempPrefix) && strings.HasSuffix(name, cacheTempSuffix):
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > staleCacheTemp {
				drop = append(drop, name)
			}
		case strings.HasSuffix(name, statCacheSuffix):
			stats[strings.TrimSuffix(name, statCacheSuffix)] = true
			if name == keep {
				continue
			}
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			if !baseExists(filepath.Join(dir, name)) {
				drop = append(drop, name)
				continue
			}
			live = append(live, cache{name, info.ModTime()})
		}
	}
	for _, e := range entries {
		if key, ok := strings.CutSuffix(e.Name(), configCacheSuffix); ok && !stats[key] && e.Type().IsRegular() {
			drop = append(drop, e.Name())
		}
	}
	// Newest first; the name settles ties. keep counts toward the bound.
	slices.SortFunc(live, func(a, b cache) int {
		return cmp.Or(b.mtime.Compare(a.mtime), strings.Compare(a.name, b.name))
	})
	for _, c := range live[min(len(live), statCacheKeep-1):] {
		drop = append(drop, c.name)
	}
	for _, name := range drop {
		os.Remove(filepath.Join(dir, name))
		if key, ok := strings.CutSuffix(name, statCacheSuffix); ok {
			os.Remove(filepath.Join(dir, key+configCacheSuffix))
		}
	}
}

// baseExists says whether the base the stat cache at path names still
// exists: false for a cache that names none (an older format, or
// damaged), or whose base is gone; true when that cannot be told, so a
// base that cannot be looked at just now keeps its cache.
func baseExists(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, statHeadMax))
	header, err1 := r.ReadString('\n')
	line, err2 := r.ReadString('\n')
	if err1 != nil || err2 != nil || header != statCacheHeader {
		return false
	}
	quoted, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), statBasePrefix)
	if !ok {
		return false
	}
	base, err := strconv.Unquote(quoted)
	if err != nil || !filepath.IsAbs(base) {
		return false
	}
	_, err = os.Stat(base)
	return !errors.Is(err, fs.ErrNotExist)
}
