package artifacts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// StatEntry remembers the size, modification and change times and hash of
// one file as this machine last saw it, so that a build hashes only files
// whose stat changed.
//
// The change time (ctime) is what no program can set: a file rewritten in
// place and given back its old modification time (cp -p, rsync -t, touch
// -d, a hand edit undone that way) keeps its size and mtime but not its
// ctime, so the cache does not vouch for it and it is hashed again. It is
// 0 where the system keeps none (see ChangeNS) and for folder rows.
type StatEntry struct {
	Bytes   int64
	MtimeNS int64
	CtimeNS int64
	XXHash  string
}

// Vouches reports whether e holds for a file of that size, modification
// and change times: then its hash is the file's.
func (e StatEntry) Vouches(size, mtimeNS, ctimeNS int64) bool {
	return e.Bytes == size && e.MtimeNS == mtimeNS && e.CtimeNS == ctimeNS
}

// VouchesFor is Vouches for a file's stat.
func (e StatEntry) VouchesFor(st os.FileInfo) bool {
	return e.Vouches(st.Size(), st.ModTime().UnixNano(), ChangeNS(st))
}

// StatCache maps a base-relative input path to its last known stat.
//
// It is machine-local state, not an artifact: modification times differ
// between two checkouts of the same base, and keeping them in .cairn/ would
// make identical bases build different bytes. It lives in
// $XDG_CACHE_HOME/cairn/stat/<hash of the base's absolute path>.tsv
// (default ~/.cache/cairn/...). Losing it only costs one full hash pass,
// so a build prunes the folder (pruneStatCaches).
//
// The file is statCacheHeader, the base line (statBasePrefix and the
// base's absolute path, quoted as a Go string), then one row per path.
// The base line is what lets a build tell a cache whose base is gone.
type StatCache map[string]StatEntry

// FolderMark is the hash column of a folder's row, whose path ends in a
// slash: a folder has no bytes to hash, only the modification time a walk
// saw before listing it (see load's folder log). The rows of the corpus's
// folders are all there or none are: DropRacy and Refresh keep them so.
const FolderMark = "folder"

// isFolderRow reports whether p is the path of a folder's row.
func isFolderRow(p string) bool { return strings.HasSuffix(p, "/") }

// statCacheHeader begins a stat cache. A file with another header (v1
// had no base line, v2 no change times) is not read: its base hashes its
// files once more.
const statCacheHeader = "#cairn stat v3\tpath\tbytes\tmtime_ns\tctime_ns\txxhash\n"

// statBasePrefix begins the line after the header, which names the base.
const statBasePrefix = "#base\t"

// statHead is the header and base line of the stat cache of the base at
// abs, an absolute path.
func statHead(abs string) string {
	return statCacheHeader + statBasePrefix + strconv.Quote(abs) + "\n"
}

// StatCachePath returns where the stat cache of the base at root lives.
func StatCachePath(root string) (string, error) {
	_, path, err := statCacheLocation(root)
	return path, err
}

// statCacheLocation returns the absolute path of the base at root and
// where its stat cache lives.
func statCacheLocation(root string) (abs, path string, err error) {
	abs, err = filepath.Abs(root)
	if err != nil {
		return "", "", err
	}
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", "", fmt.Errorf("no cache folder: set XDG_CACHE_HOME or HOME: %w", err)
		}
		dir = filepath.Join(home, ".cache")
	}
	sum := sha256.Sum256([]byte(abs))
	return abs, filepath.Join(dir, "cairn", "stat", hex.EncodeToString(sum[:8])+".tsv"), nil
}

// ReadStatCache loads the stat cache of the base at root. A missing or
// unreadable cache is empty: it only makes the next build hash more.
func ReadStatCache(root string) StatCache {
	body := readStatRows(root)
	// The map's strings share the bytes read, which are never changed.
	c := make(StatCache, strings.Count(body, "\n"))
	for rest := body; rest != ""; {
		line, after, whole := strings.Cut(rest, "\n")
		if !whole {
			break // a row cut short may hold a cut hash
		}
		rest = after
		if p, e, ok := parseStatRow(line); ok {
			c[p] = e
		}
	}
	return c
}

// readStatRows returns the rows of the stat cache of the base at root,
// after its header and base line; "" when it is missing, unreadable, not
// one, or another base's.
func readStatRows(root string) string {
	abs, path, err := statCacheLocation(root)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	body, ok := bytes.CutPrefix(data, []byte(statHead(abs)))
	if !ok || len(body) == 0 {
		return ""
	}
	return string(body) // 130 KB at 100k records: a copy costs nothing measurable
}

// parseStatRow splits one row (without its LF) into its path and entry.
func parseStatRow(line string) (string, StatEntry, bool) {
	p, line, ok1 := strings.Cut(line, "\t")
	sz, line, ok2 := strings.Cut(line, "\t")
	mt, line, ok3 := strings.Cut(line, "\t")
	ct, sum, ok4 := strings.Cut(line, "\t")
	if !ok1 || !ok2 || !ok3 || !ok4 || strings.Contains(sum, "\t") {
		return "", StatEntry{}, false
	}
	size, err1 := strconv.ParseInt(sz, 10, 64)
	mtime, err2 := strconv.ParseInt(mt, 10, 64)
	ctime, err3 := strconv.ParseInt(ct, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return "", StatEntry{}, false
	}
	return p, StatEntry{Bytes: size, MtimeNS: mtime, CtimeNS: ctime, XXHash: sum}, true
}

// StatLookup finds the stat cache entry of a path.
type StatLookup interface {
	Lookup(path string) (StatEntry, bool)
}

// Lookup finds p's entry.
func (c StatCache) Lookup(p string) (StatEntry, bool) {
	e, ok := c[p]
	return e, ok
}

// StatFile is the stat cache read for lookups alone, as a query uses it:
// it needs the entries of a few hundred corpus files and outputs among
// all the base's, so rather than a map of every row it keeps where each
// row starts, and a lookup binary-searches the rows, which the build
// writes sorted by path, and parses only the row it finds.
type StatFile struct {
	rows   string
	starts []int32
}

// ReadStatFile reads the stat cache of the base at root for lookups.
func ReadStatFile(root string) StatFile {
	f := StatFile{rows: readStatRows(root)}
	if int64(len(f.rows)) > math.MaxInt32 {
		return StatFile{} // no stat cache is that large; rather hash again
	}
	for at := 0; at < len(f.rows); {
		end := strings.IndexByte(f.rows[at:], '\n')
		if end < 0 {
			break // a row cut short may hold a cut hash
		}
		f.starts = append(f.starts, int32(at))
		at += end + 1
	}
	return f
}

// Lookup finds p's entry.
func (f StatFile) Lookup(p string) (StatEntry, bool) {
	lo, hi := 0, len(f.starts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		path, _, _ := strings.Cut(f.row(mid), "\t")
		switch c := strings.Compare(path, p); {
		case c == 0:
			_, e, ok := parseStatRow(f.row(mid))
			return e, ok
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return StatEntry{}, false
}

// row is the i-th row, without its newline.
func (f StatFile) row(i int) string {
	s := f.rows[f.starts[i]:]
	return s[:strings.IndexByte(s, '\n')]
}

// Encode renders the cache of the base at abs, an absolute path, rows
// sorted by path.
func (c StatCache) Encode(abs string, paths []string) []byte {
	var b bytes.Buffer
	b.WriteString(statHead(abs))
	for _, p := range paths {
		if strings.ContainsAny(p, "\t\n\r") {
			continue // a row could not hold it; such a file is hashed every build
		}
		e := c[p]
		fmt.Fprintf(&b, "%s\t%d\t%d\t%d\t%s\n", p, e.Bytes, e.MtimeNS, e.CtimeNS, e.XXHash)
	}
	return b.Bytes()
}

// racyWindow is how recent a modification time must be for the cache not
// to vouch for it. A file rewritten with the same size within one tick of
// the file system's clock keeps its modification time, so a hash taken in
// that tick may be of the older bytes. Two seconds covers the coarsest
// common clocks.
const racyWindow = 2 * time.Second

// DropRacy removes the entries modified within racyWindow before start,
// the moment before the build took its stats, so that the next build
// hashes those files again instead of trusting a hash that may predate
// their last write.
//
// A folder's row vouches that the files listed are all the folder holds,
// which holds only while every file and folder row does: when one entry
// is dropped, every folder row goes with it.
func (c StatCache) DropRacy(start time.Time) {
	limit := racyLimit(start)
	dropped := false
	// The change time is left out: a file given an old modification time
	// just now (cp -p, touch -d) and rewritten again within the same tick
	// of the change time after the hash would need two such writes.
	for p, e := range c {
		if e.MtimeNS >= limit {
			delete(c, p)
			dropped = true
		}
	}
	if dropped {
		c.dropFolders()
	}
}

// dropFolders removes every folder's row.
func (c StatCache) dropFolders() {
	for p := range c {
		if isFolderRow(p) {
			delete(c, p)
		}
	}
}

// Each calls fn with every row of the cache f read, in path order.
func (f StatFile) Each(fn func(path string, e StatEntry)) {
	for i := range f.starts {
		if p, e, ok := parseStatRow(f.row(i)); ok {
			fn(p, e)
		}
	}
}

// racyLimit is the earliest modification time, in nanoseconds, that the
// stats taken after start cannot vouch for.
func racyLimit(start time.Time) int64 { return start.Add(-racyWindow).UnixNano() }

// Refresh rewrites the stat cache of the base at root: the rows f read,
// with fresh's entries put in, those of files modified within racyWindow
// before start left out (and their old rows with them). fresh holds stats
// taken after start. A query calls it when it had to hash inputs the
// cache could not vouch for (written just before the last build, or
// since), so that the queries after it do not hash them again. It writes
// nothing when the bytes stay the same.
//
// Folder rows in fresh come from a walk and replace all the cache's; a
// racy entry drops them all (see DropRacy).
func (f StatFile) Refresh(root string, fresh StatCache, start time.Time) error {
	c := make(StatCache, len(f.starts)+len(fresh))
	for i := range f.starts {
		if p, e, ok := parseStatRow(f.row(i)); ok {
			c[p] = e
		}
	}
	// A walk's folder rows replace the cache's, and with them go the rows
	// of every file in the trees it walked that it did not find: gone, or
	// below a folder it did not enter (a link).
	trees := map[string]bool{}
	for p := range fresh {
		if isFolderRow(p) {
			first, _, _ := strings.Cut(p, "/")
			trees[first] = true
		}
	}
	if len(trees) > 0 {
		c.dropFolders()
		for p := range c {
			first, _, nested := strings.Cut(p, "/")
			if _, ok := fresh[p]; !ok && nested && trees[first] {
				delete(c, p)
			}
		}
	}
	limit := racyLimit(start)
	racy := false
	for p, e := range fresh {
		if e.MtimeNS >= limit {
			delete(c, p)
			racy = true
		} else {
			c[p] = e
		}
	}
	if racy {
		c.dropFolders()
	}
	_, _, err := saveStatCache(root, c, slices.Sorted(maps.Keys(c)))
	return err
}

// ConfigCache is the base's configuration as the last good build decoded
// it, kept beside the stat cache: a query whose cairn.yaml still has the
// hash XXHash decodes JSON instead of YAML, which costs it a fraction. Data
// is opaque here; the load stage encodes and decodes it.
type ConfigCache struct {
	XXHash string
	Data   []byte
}

// configCacheSuffix replaces the stat cache's .tsv to name its config
// cache.
const configCacheSuffix = ".config"

// ReadConfigCache loads the config cache of the base at root; a missing or
// damaged one is empty, and the configuration is then decoded from YAML.
func ReadConfigCache(root string) ConfigCache {
	path, err := StatCachePath(root)
	if err != nil {
		return ConfigCache{}
	}
	data, err := os.ReadFile(strings.TrimSuffix(path, ".tsv") + configCacheSuffix)
	if err != nil {
		return ConfigCache{}
	}
	sum, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || len(sum) != 16 {
		return ConfigCache{}
	}
	return ConfigCache{XXHash: string(sum), Data: rest}
}

// WriteConfigCache replaces the config cache of the base at root when its
// bytes changed: the hash on the first line, then the data.
func WriteConfigCache(root string, c ConfigCache) error {
	path, err := StatCachePath(root)
	if err != nil {
		return err
	}
	_, err = writeCacheFile(strings.TrimSuffix(path, ".tsv")+configCacheSuffix, append([]byte(c.XXHash+"\n"), c.Data...))
	return err
}

// WriteStatCache replaces the stat cache of the base at root when its
// bytes changed, as a build does. paths must be sorted and name every entry
// to keep. When the bytes are the same, the file's modification time is
// renewed instead: it is what tells pruneStatCaches the base is in use.
// Then the folder of stat caches is pruned, which never fails the write.
func WriteStatCache(root string, c StatCache, paths []string) error {
	path, written, err := saveStatCache(root, c, paths)
	if err != nil {
		return err
	}
	if !written {
		now := time.Now()
		os.Chtimes(path, now, now) // failing only ages the entry
	}
	pruneStatCaches(filepath.Dir(path), filepath.Base(path))
	return nil
}

// saveStatCache writes the stat cache of the base at root when its bytes
// changed, and says where it is and whether it wrote it.
func saveStatCache(root string, c StatCache, paths []string) (path string, written bool, err error) {
	abs, path, err := statCacheLocation(root)
	if err != nil {
		return "", false, err
	}
	written, err = writeCacheFile(path, c.Encode(abs, paths))
	return path, written, err
}

// writeCacheFile replaces a machine-local cache file when its bytes
// changed, through a temporary file so that a reader never sees half,
// and says whether it wrote. The cache folder is the user's, outside any
// base, so links on the way to it are the user's own and followed; a link
// at the file itself is replaced by the rename, never written through.
func writeCacheFile(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), cacheTempPrefix+"*"+cacheTempSuffix)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	return true, os.Rename(tmp.Name(), path)
}
