package load

import (
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cespare/xxhash/v2"
)

// ConfigFile is the base's configuration, at the base root.
const ConfigFile = "cairn.yaml"

// Input groups. Each group is parsed only when its key changed, and a key
// covers every file the group reads plus the configuration.
const (
	GroupCorpus     = "corpus"     // record documents, pages, cached bodies
	GroupGovernance = "governance" // voices, terms, the notes log
	GroupContent    = "content"    // the project's own content files
)

// fileKind is what a path in the base is, by where it sits.
type fileKind uint8

const (
	kindIgnored fileKind = iota
	kindConfig
	kindDocument
	kindPage
	kindBodiesManifest
	kindBody
	kindVoice
	kindTerms
	kindLog
	kindContent
	kindRules     // AGENTS.md, CLAUDE.md: read for the rules stage, never an input
	kindGitignore // a .gitignore: read to tell content, never an input
)

func (k fileKind) group() string {
	switch k {
	case kindDocument, kindPage, kindBodiesManifest, kindBody:
		return GroupCorpus
	case kindVoice, kindTerms, kindLog:
		return GroupGovernance
	case kindContent:
		return GroupContent
	}
	return ""
}

// entry is one file found by the walk: an input, or a rules file.
type entry struct {
	path    string
	kind    fileKind
	size    int64
	mtimeNS int64
	ctimeNS int64 // see artifacts.StatEntry
	hash    string
	symlink bool
	overCap bool // over its kind's cap: stamped by its stat, never read
	// unread is an entry whose stat the cache did not vouch for and whose
	// hash its parse takes as it reads (hashAll); it has no hash until then.
	unread bool
}

// isDay reports whether s has the shape YYYY-MM-DD (ASCII digits).
func isDay(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := range len(s) {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// isSourceName reports whether s is a source name: an ASCII letter or
// digit, then letters, digits, '.', '_' and '-'.
func isSourceName(s string) bool {
	if s == "" || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// classifier decides what each path of the base is.
type classifier struct {
	layers model.Layers
	// off reports a path in a layer that is switched off.
	off func(p string) bool
	// A content file matches one of content and none of exclude.
	content, exclude []string
}

// newClassifier reads the configuration's content globs: a glob that
// starts with ! excludes, the others include, and order does not matter:
// the content is what the includes match minus what the exclusions
// match. Without an include, the include is **/*.md.
func newClassifier(cfg model.Config) classifier {
	c := classifier{layers: cfg.Layers, off: cfg.IsOff}
	for _, g := range cfg.Content {
		if ex, ok := strings.CutPrefix(g, "!"); ok {
			c.exclude = append(c.exclude, ex)
		} else {
			c.content = append(c.content, g)
		}
	}
	if len(c.content) == 0 {
		c.content = []string{"**/*.md"}
	}
	return c
}

// isContent reports whether the content globs take p.
func (c classifier) isContent(p string) bool {
	match := func(g string) bool { ok, _ := doublestar.Match(g, p); return ok }
	return slices.ContainsFunc(c.content, match) && !slices.ContainsFunc(c.exclude, match)
}

// inLayer reports whether p is a layer's folder, is inside one, or holds
// one: a folder whose files may be records, pages, bodies or governance.
func (c classifier) inLayer(p string) bool {
	l := c.layers
	for _, dir := range []string{l.Events, l.Index, l.Wiki, l.Projects, l.Tasks, l.Bodies, l.Governance} {
		if dir == "" {
			continue
		}
		if _, ok := under(p, dir); ok || p == dir || strings.HasPrefix(dir, p+"/") {
			return true
		}
	}
	return false
}

// under reports whether p is inside folder dir, and the rest of the path.
func under(p, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	return strings.CutPrefix(p, dir+"/")
}

// classify names the kind of p. Files inside a layer folder that are not of
// that layer's shape are reported, never silently dropped.
func (c classifier) classify(p string, ds *diag.List) fileKind {
	l := c.layers
	if IsConfigFile(p) {
		return kindConfig
	}
	if c.off(p) {
		return kindIgnored
	}
	// Rules files are output, never content nor input, wherever they sit:
	// a wiki/AGENTS.md is not a page and an events/CLAUDE.md is not a
	// stray record document.
	if artifacts.IsRulesFile(p) {
		return kindRules
	}
	if rest, ok := under(p, l.Events); ok {
		parts := strings.Split(rest, "/")
		if len(parts) == 2 && isDay(parts[0]) && strings.HasSuffix(parts[1], ".json") {
			return kindDocument
		}
		ds.Warnf(p, 0, 0, "stray-file", "not a record document, so cairn does not read it; record documents go in %s/YYYY-MM-DD/<source>.json", l.Events)
		return kindIgnored
	}
	if rest, ok := under(p, l.Index); ok {
		if !strings.Contains(rest, "/") && strings.HasSuffix(rest, ".json") {
			return kindDocument
		}
		ds.Warnf(p, 0, 0, "stray-file", "not a snapshot document, so cairn does not read it; snapshots go in %s/<source>.json", l.Index)
		return kindIgnored
	}
	for _, dir := range []string{l.Wiki, l.Projects} {
		if rest, ok := under(p, dir); ok {
			if strings.HasSuffix(rest, ".md") {
				return kindPage
			}
			ds.Warnf(p, 0, 0, "stray-file", "not a Markdown page, so cairn does not read it; pages in %s/ end in .md", dir)
			return kindIgnored
		}
	}
	if rest, ok := under(p, l.Tasks); ok {
		parts := strings.Split(rest, "/")
		if len(parts) == 3 && isDay(parts[0]) && parts[2] == "TASKS.md" {
			return kindPage
		}
		ds.Warnf(p, 0, 0, "stray-file", "not a task page, so cairn does not read it; task pages are %s/YYYY-MM-DD/<slug>/TASKS.md", l.Tasks)
		return kindIgnored
	}
	if rest, ok := under(p, l.Bodies); ok {
		if rest == "manifest.json" {
			return kindBodiesManifest
		}
		return kindBody // only bodies the manifest names are read
	}
	if rest, ok := under(p, l.Governance); ok {
		switch {
		case rest == "terms.yaml":
			return kindTerms
		case rest == "log.jsonl":
			return kindLog
		case strings.HasPrefix(rest, "voices/") && strings.HasSuffix(rest, ".yaml") && strings.Count(rest, "/") == 1:
			return kindVoice
		}
		ds.Warnf(p, 0, 0, "stray-file", "not a governance file, so cairn does not read it; governance holds voices/<name>.yaml, terms.yaml and log.jsonl")
		return kindIgnored
	}
	if c.isContent(p) {
		return kindContent
	}
	return kindIgnored
}

// walk lists every input file of the base with its stat, sorted by path.
// Hidden files and folders (.git, .cairn, ...) are not part of a base.
// A file that the base's .gitignore files ignore is not content; they
// change nothing else: a layer's files, governance and the rules files
// are what they are, ignored or not.
//
// A base opened as a Dir is walked through directory descriptors where the
// system allows (fastWalk); anything that needs judgement sends it to the
// os walk, which says what it finds.
func walk(fsys fs.FS, c classifier, ds *diag.List, folders *folderLog) []entry {
	var entries []entry
	walked := false
	if d, ok := fsys.(*Dir); ok {
		var fds diag.List
		if entries, fds, walked = fastWalk(d.root.Name(), c, nil, folders); walked {
			ds.Merge(fds.Sorted())
		}
	}
	if !walked {
		entries = walkOnly(fsys, c, ds, nil, folders)
	}
	ignores := slices.DeleteFunc(slices.Clone(entries), func(e entry) bool { return e.kind != kindGitignore })
	entries = slices.DeleteFunc(entries, func(e entry) bool { return e.kind == kindGitignore })
	if len(ignores) == 0 {
		return entries
	}
	g := loadGitignore(fsys, ignores, ds)
	return slices.DeleteFunc(entries, func(e entry) bool { return e.kind == kindContent && g.ignores(e.path) })
}

// walkOnly is walk limited, when top is not nil, to the top-level folders
// it names (and the configuration): what a reader that needs only one
// group of inputs lists.
//
// Each top-level folder is walked on a goroutine of its own: listing and
// statting are system calls, which two cores make in half the time. Every
// walk keeps its own entries and diagnostics; they are joined and sorted
// at the end, so the result does not depend on which walk ends first.
//
// folders, when not nil, logs the folders walked (see folderLog).
func walkOnly(fsys fs.FS, c classifier, ds *diag.List, top map[string]bool, folders *folderLog) []entry {
	roots, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return walkFrom(fsys, ".", c, ds, top, folders) // which reports the error
	}
	type walked struct {
		out []entry
		ds  diag.List
	}
	results := make([]walked, len(roots)+1)
	var wg sync.WaitGroup
	for i, d := range roots {
		if !d.IsDir() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].out = walkFrom(fsys, d.Name(), c, &results[i].ds, top, folders)
		}()
	}
	// The files at the top, and the root itself, on this goroutine.
	last := &results[len(roots)]
	for _, d := range roots {
		if !d.IsDir() {
			visit(fsys, c, &last.ds, top, &last.out, nil, d.Name(), d, nil)
		}
	}
	wg.Wait()
	var out []entry
	for i := range results {
		out = append(out, results[i].out...)
		ds.Merge(results[i].ds.Sorted())
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	return out
}

// walkFrom walks the tree at start (the root, or a top-level folder),
// returning its entries sorted by path.
func walkFrom(fsys fs.FS, start string, c classifier, ds *diag.List, top map[string]bool, folders *folderLog) []entry {
	var out []entry
	err := fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
		return visit(fsys, c, ds, top, &out, folders, p, d, err)
	})
	if err != nil {
		ds.Errorf(".", 0, 0, "read", "cannot walk the base: %v", err)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	return out
}

// visit takes one path the walk meets: it appends an input to out, or
// reports what is wrong with it, and says whether to skip a folder. A
// folder is logged in folders (when not nil) as it is met, before the
// walk lists it.
func visit(fsys fs.FS, c classifier, ds *diag.List, top map[string]bool, out *[]entry, folders *folderLog, p string, d fs.DirEntry, err error) error {
	if top != nil && err == nil && p != "." && !strings.Contains(p, "/") && !IsConfigFile(p) && !top[p] {
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if err != nil {
		if p != "." && !c.inLayer(p) {
			// Outside every layer, a folder cairn cannot list can hide
			// only content, whose files feed the usage counts: skip it,
			// and say so, rather than fail the whole base.
			ds.Warnf(p, 0, 0, "unreadable", "cannot list this path (%v), so cairn reads nothing below it and its content files are not counted; make it readable, or move it out of the base", unwrapPath(err))
		} else {
			ds.Errorf(p, 0, 0, "read", "cannot list this path: %v", unwrapPath(err))
		}
		if d != nil && d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if p == "." {
		return nil
	}
	if strings.HasPrefix(path.Base(p), ".") {
		if d.IsDir() {
			return fs.SkipDir
		}
		if path.Base(p) == GitignoreFile && d.Type().IsRegular() {
			*out = append(*out, entry{path: p, kind: kindGitignore})
		}
		return nil
	}
	if strings.ContainsAny(p, "\t\n\r\\") {
		var discard diag.List
		if d.IsDir() && !c.inLayer(p) || !d.IsDir() && c.classify(p, &discard) == kindIgnored {
			// Not an input, nor a folder of a layer: nothing cairn reads
			// is lost by leaving it.
			ds.Warnf(p, 0, 0, "bad-path", "the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; it is not an input, so cairn skips it")
		} else {
			ds.Errorf(p, 0, 0, "bad-path", "the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; rename it")
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	info, err := d.Info()
	if err != nil {
		ds.Errorf(p, 0, 0, "read", "cannot stat: %v", unwrapPath(err))
		return nil
	}
	symlink := d.Type()&fs.ModeSymlink != 0
	if symlink {
		// Follow the link only through fsys, which refuses links that
		// leave the base.
		target, err := fs.Stat(fsys, p)
		if err != nil {
			ds.Errorf(p, 0, 0, "path-escape", "the symlink cannot be followed inside the base (%v); replace it with the file itself", unwrapPath(err))
			return nil
		}
		if target.IsDir() {
			ds.Warnf(p, 0, 0, "symlink-dir", "cairn does not follow symlinked folders; move the folder into the base to have it read")
			return nil
		}
		info = target
	}
	if d.IsDir() && !symlink {
		folders.add(p, info.ModTime().UnixNano())
	}
	if d.IsDir() || !info.Mode().IsRegular() {
		c.notAFile(ds, p, info.Mode())
		return nil
	}
	c.add(ds, out, p, info.Size(), info.ModTime().UnixNano(), artifacts.ChangeNS(info), symlink)
	return nil
}

// expected names the inputs a path's place makes it: a folder or a
// special file there is a mistake worth a warning. Content and cached
// bodies are left out: their folders hold subfolders by design.
var expected = map[fileKind]string{
	kindDocument:       "a record document",
	kindPage:           "a page",
	kindBodiesManifest: "the bodies manifest",
	kindVoice:          "a voice profile",
	kindTerms:          "the terms store",
	kindLog:            "the notes log",
}

// notAFile warns about a folder, named pipe, socket or device where an
// input is expected, which the walk cannot read and must not skip in
// silence. A pipe is never opened: that would wait for a writer.
func (c classifier) notAFile(ds *diag.List, p string, mode fs.FileMode) {
	var discard diag.List
	what, ok := expected[c.classify(p, &discard)]
	if !ok {
		return
	}
	if mode.IsDir() {
		ds.Warnf(p, 0, 0, "not-a-file", "this is a folder where %s is expected, so cairn reads nothing here; replace it with the file, or rename it", what)
		return
	}
	ds.Warnf(p, 0, 0, "not-a-file", "this is %s where %s is expected, so cairn reads nothing here; replace it with a regular file", describeMode(mode), what)
}

// add takes a regular file the walk found: an input is appended to out,
// a file of no kind is left out, and a path cairn refuses is reported.
func (c classifier) add(ds *diag.List, out *[]entry, p string, size, mtimeNS, ctimeNS int64, symlink bool) {
	k := c.classify(p, ds)
	if k == kindIgnored {
		return
	}
	if (k == kindDocument || k == kindPage) && strings.Contains(p, "#") {
		ds.Errorf(p, 0, 0, "bad-path", "the path holds #, which in a URI starts a record id or a heading anchor; rename the file")
		return
	}
	*out = append(*out, entry{path: p, kind: k, size: size, mtimeNS: mtimeNS, ctimeNS: ctimeNS, symlink: symlink})
}

// hashAll fills each entry's hash, stat-first: an entry whose size and
// modification time match the stat cache keeps its cached hash; others are
// read and hashed (one that cannot be read is reported and keeps no
// hash), except those unread accepts: they are left for the parse that
// must follow to hash as it reads (see changed). It returns how many
// files it hashed.
func hashAll(fsys fs.FS, entries []entry, cache artifacts.StatLookup, ds *diag.List, unread func(*entry) bool) (hashed int) {
	var buf []byte // made on the first file hashed: a current base hashes none
	for i := range entries {
		e := &entries[i]
		if c, ok := cache.Lookup(e.path); ok && c.Vouches(e.size, e.mtimeNS, e.ctimeNS) && c.XXHash != "" {
			e.hash = c.XXHash
			continue
		}
		if e.size > capOf(e.kind) {
			// Refused unread: its reader reports it from the same stat.
			// The stamp still changes with the file, so the group's key
			// does too.
			e.hash, e.overCap = statStamp(e), true
			continue
		}
		if unread != nil && unread(e) {
			e.unread = true
			continue
		}
		if buf == nil {
			buf = make([]byte, 256<<10)
		}
		hashed++
		size, sum, err := hashFile(fsys, e.path, buf)
		if err != nil {
			ds.Errorf(e.path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
			continue
		}
		e.size, e.hash = size, sum
	}
	return hashed
}

// statStamp stands for the hash of a file too large to read: a hash of
// its size and modification time. It is not cached, so the file is
// looked at again next time.
func statStamp(e *entry) string {
	return artifacts.HashSum(xxhash.Sum64String("too-large\x00" + strconv.FormatInt(e.size, 10) + "\x00" + strconv.FormatInt(e.mtimeNS, 10)))
}

// statCacheOf is the stat cache of the hashed entries.
func statCacheOf(entries []entry) artifacts.StatCache {
	c := make(artifacts.StatCache, len(entries))
	for _, e := range entries {
		if e.hash != "" && !e.overCap {
			c[e.path] = artifacts.StatEntry{Bytes: e.size, MtimeNS: e.mtimeNS, CtimeNS: e.ctimeNS, XXHash: e.hash}
		}
	}
	return c
}

// hashFile streams a file through xxhash with a reused buffer, so hashing
// a large base never holds a whole file in memory.
func hashFile(fsys fs.FS, path string, buf []byte) (int64, string, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := xxhash.New()
	// Only the Reader: an *os.File is also a WriterTo, which CopyBuffer
	// would use instead of buf, allocating a buffer of its own per file.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	if err != nil {
		return 0, "", err
	}
	return n, artifacts.HashSum(h.Sum64()), nil
}
