package load

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cespare/xxhash/v2"
	"go.yaml.in/yaml/v3"
)

// Input is what the load stage reads.
type Input struct {
	// FS is the base root. Production passes an os.Root's FS, which refuses
	// symlinks that leave the base.
	FS fs.FS
	// Stat is this machine's stat cache from the previous build; nil is an
	// empty cache (every input gets hashed).
	Stat artifacts.StatCache
	// Previous is the last build's manifest, nil when there is none. When
	// the content group is parsed, the content files it records with the
	// bytes they have now are not read again: their counts come from the
	// usage.tsv it names, if that file and the terms store are as they were.
	Previous *artifacts.Manifest
	// Unhashed skips hashing the inputs, for a caller that reads only the
	// parsed base (the query's scan): Inputs, Stat and Keys stay empty.
	// Every input is still opened, so
	// one that cannot be read is the same diagnostic as when hashing.
	Unhashed bool
	// Progress, when set, is called as each record document, page and
	// content file is parsed, with how many are parsed so far and how many
	// are to be. It is never called from two goroutines at once.
	Progress func(done, total int)
}

// Output is the loaded base with what the build needs to decide and record.
type Output struct {
	// Base holds the configuration always, and each group that was parsed.
	Base model.Base
	// Inputs lists every input file of the base, sorted by path.
	Inputs []artifacts.FileStamp
	// Stat is the refreshed stat cache, to be saved after a good build.
	Stat artifacts.StatCache
	// Keys maps each group to its input key.
	Keys map[string]string
	// RulesKey is the rules stage's key: the content key (which covers
	// governance and the configuration too) and the shape of the rules
	// files on disk.
	RulesKey string
	// Parsed lists the groups that were parsed, sorted.
	Parsed []string
	// KeptContent lists, sorted, the content files that were not read
	// because the previous build counted them with the bytes they have
	// now, each with the point that build recorded and no text;
	// Base.Content holds the others. KeptUsage is the previous usage.tsv,
	// limited to the files of KeptContent.
	KeptContent []model.ContentFile
	KeptUsage   []artifacts.TermUsage
	// SemanticsDigest covers every configuration value that changes ranking.
	SemanticsDigest string
	// Diagnostics found while loading, sorted.
	Diagnostics []diag.Diagnostic
}

// Inventory is the base's input files, stat-first hashed, with each
// group's key: what a reader needs to tell whether artifacts are current
// without parsing anything.
type Inventory struct {
	Config model.Config
	Inputs []artifacts.FileStamp
	// Groups names the group of each input, parallel to Inputs ("" for
	// the configuration).
	Groups []string
	// Stat is the stats taken, as a stat cache, when Hashed is not zero or
	// the corpus trees were walked (with their folders' rows, so that the
	// next reader need not walk: see folders.go); nil when the cache
	// vouched for every input and listed them, and has nothing to add.
	Stat artifacts.StatCache
	// Hashed counts the inputs read and hashed because the stat cache
	// could not vouch for them.
	Hashed          int
	Keys            map[string]string
	SemanticsDigest string
	Diagnostics     []diag.Diagnostic
}

// Take lists and hashes the inputs of the corpus group (record documents,
// pages, bodies, and the configuration) and computes the corpus key,
// reading only the configuration and the files whose stat changed: what a
// query needs to know whether the index is current. Content and
// governance folders are not walked.
//
// dir is the base's folder on disk, which fsys reads: the walk lists it
// through directory descriptors where it can (fastWalk). cached is the
// configuration the last good build decoded: when cairn.yaml's stat and
// hash still match it, it stands in for decoding the YAML again, which
// would cost a query more than the rest of this check. memo, when not nil,
// remembers that decoding for the next call (see ConfigMemo).
func Take(ctx context.Context, dir string, fsys fs.FS, stat artifacts.StatLookup, cached artifacts.ConfigCache, memo *ConfigMemo) (Inventory, error) {
	var ds diag.List
	inv := Inventory{}
	cfg, cfgHash, ok := cachedConfig(fsys, stat, cached, memo)
	if !ok {
		cfg, _, cfgHash, ok = loadConfig(fsys, &ds)
	}
	inv.Config = cfg
	if ok {
		top := map[string]bool{}
		for _, dir := range TakenFolders(cfg) {
			top[dir] = true
		}
		c := newClassifier(cfg)
		// The stat cache's rows stand for the walk while every folder
		// keeps its stamp (folders.go); else the walk logs the folders,
		// for the cache to hold them next time.
		walked, unwalked := statTake(dir, c, top, stat)
		var folders *folderLog
		if !unwalked {
			folders = newFolderLog()
			fast, fastDiags, fastOK := fastWalk(dir, c, top, folders)
			if walked = fast; fastOK {
				ds.Merge(fastDiags.Sorted())
			} else {
				walked = walkOnly(fsys, c, &ds, top, folders)
			}
		}
		entries := make([]entry, 0, len(walked))
		for _, e := range walked {
			if e.kind == kindConfig || e.kind.group() == GroupCorpus {
				entries = append(entries, e)
			}
		}
		if inv.Hashed = hashAll(fsys, entries, stat, &ds, nil); inv.Hashed > 0 || !unwalked {
			// Only then does anyone read it (see Inventory.Stat).
			inv.Stat = statCacheOf(entries)
			addFolderRows(inv.Stat, entries, folders, cfg)
		}
		inv.Inputs = make([]artifacts.FileStamp, 0, len(entries))
		inv.Groups = make([]string, 0, len(entries))
		for _, e := range entries {
			inv.Inputs = append(inv.Inputs, artifacts.FileStamp{Path: e.path, Bytes: e.size, XXHash: e.hash})
			inv.Groups = append(inv.Groups, e.kind.group())
		}
		inv.SemanticsDigest = SemanticsDigest(cfg)
		inv.Keys = groupKeys(entries, cfgHash, inv.SemanticsDigest)
	}
	inv.Diagnostics = ds.Sorted()
	return inv, ctx.Err()
}

// TakenFolders are the top-level folders of the base whose trees Take
// walks under configuration cfg: those holding the layers an index is
// built from. Take also lists the base's root; it walks nothing else.
func TakenFolders(cfg model.Config) []string {
	l := cfg.WithDefaults().Layers
	var out []string
	for _, layer := range []string{l.Events, l.Index, l.Wiki, l.Projects, l.Tasks, l.Bodies} {
		if dir := strings.SplitN(layer, "/", 2)[0]; !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// Scanned is a base whose files are found and hashed, and whose
// configuration and rules files are read, but whose groups are not yet
// parsed: enough to decide which groups to parse.
type Scanned struct {
	// Keys maps each group to its input key.
	Keys map[string]string
	// RulesKey is the rules stage's key (see Output.RulesKey).
	RulesKey string

	in      Input
	ok      bool // the configuration is valid, so the groups can be parsed
	cfgRoot *yaml.Node
	cfgHash string
	entries []entry
	folders *folderLog
	out     Output
	ds      diag.List
	// documents, when set, names the only record documents Parse reads
	// (see Narrow).
	documents map[string]bool
	// corpusKept makes Parse leave the corpus unparsed (see KeepCorpus).
	corpusKept bool
	// pages, when set, names the only pages Parse reads (NarrowPages).
	pages map[string]bool
	// deferred makes Parse list the record documents it would read
	// without reading them (DeferDocuments); deferredRead holds the
	// stamps ReadDocument took, until Settle.
	deferred     bool
	deferredMu   sync.Mutex
	deferredRead []artifacts.FileStamp
	entryAt      map[string]int // a document's entry, by path, once deferred
}

// DeferDocuments makes Parse list the record documents it would read,
// each by its path and size alone, instead of reading them: a build that
// indexes the whole corpus reads each in turn as it projects it
// (ReadDocument), so the base's text is never all in memory, and each
// file is read once. Settle then gives the stamps those reads took.
func (s *Scanned) DeferDocuments() {
	s.deferred = true
	s.entryAt = map[string]int{}
	for i, e := range s.entries {
		if e.kind == kindDocument {
			s.entryAt[e.path] = i
		}
	}
}

// ReadDocument reads and parses a record document Parse deferred, given
// as Parse listed it, hashing it as it reads when the stat cache did not
// vouch for it; its mistakes go to ds. It may be called from several
// goroutines at once, each document once.
func (s *Scanned) ReadDocument(d model.Document, ds *diag.List) (model.Document, bool) {
	i, ok := s.entryAt[d.Path]
	if !ok {
		return d, false
	}
	e := s.entries[i]
	raw, ok := readFileRaw(s.in.FS, e.path, capOf(e.kind), ds)
	if !ok {
		return d, false
	}
	if e.unread {
		s.deferredMu.Lock()
		s.deferredRead = append(s.deferredRead, artifacts.FileStamp{Path: e.path, Bytes: int64(len(raw)), XXHash: artifacts.HashSum(xxhash.Sum64(raw))})
		s.deferredMu.Unlock()
	}
	doc, ok := parseDocument(s.out.Base.Config, e.path, asString(raw), ds)
	doc.Bytes = int64(len(raw))
	return doc, ok
}

// Settle gives the deferred documents the stamps their reads took and
// returns the stat cache, the inputs and the groups' keys with them:
// what Parse returns when it reads every document itself. It is called
// once every deferred document was read (or could not be).
func (s *Scanned) Settle() (artifacts.StatCache, []artifacts.FileStamp, map[string]string) {
	s.deferred = false
	if s.took(s.deferredRead, GroupCorpus) {
		s.stamp()
	}
	s.deferredRead = nil
	return s.out.Stat, s.out.Inputs, s.out.Keys
}

// Narrow makes Parse read only the record documents named, and every
// page: a build that replaces a few units of the previous index needs the
// changed documents, and the pages for what they say of other items
// (supersedes). Base.Documents then holds only those documents.
func (s *Scanned) Narrow(documents []string) {
	s.documents = make(map[string]bool, len(documents))
	for _, d := range documents {
		s.documents[d] = true
	}
}

// NarrowPages makes Parse read only the pages named, once Narrow has
// named the documents: a reader that lays changed units over the index
// needs no other page (Base.Pages then holds only those).
func (s *Scanned) NarrowPages(pages []string) {
	s.pages = make(map[string]bool, len(pages))
	for _, p := range pages {
		s.pages[p] = true
	}
}

// reads reports whether Parse reads the corpus entry e.
func (s *Scanned) reads(e entry) bool {
	return e.kind == kindPage && (s.pages == nil || s.pages[e.path] || e.unread) ||
		e.kind == kindDocument && (s.documents == nil || s.documents[e.path] || e.unread)
}

// Scan finds the base's files, hashes them stat-first, computes each
// group's key, and reads the configuration and the rules files.
func Scan(ctx context.Context, in Input) (*Scanned, error) {
	s := &Scanned{in: in}
	out := &s.out
	cfg, cfgRoot, cfgHash, cfgOK := loadConfig(in.FS, &s.ds)
	out.Base.Config = cfg
	out.Base.ConfigPath = configName(in.FS)
	if !cfgOK {
		// Without a valid configuration the layer folders are unknown, so
		// nothing else can be classified reliably.
		return s, nil
	}
	s.ok, s.cfgRoot, s.cfgHash = true, cfgRoot, cfgHash
	folders := newFolderLog()
	entries := walk(in.FS, newClassifier(cfg), &s.ds, folders)
	if err := ctx.Err(); err != nil {
		return s, err
	}
	rulesEntries := slices.DeleteFunc(slices.Clone(entries), func(e entry) bool { return e.kind != kindRules })
	entries = slices.DeleteFunc(entries, func(e entry) bool { return e.kind == kindRules })
	out.SemanticsDigest = SemanticsDigest(cfg)
	s.entries, s.folders = entries, folders
	if in.Unhashed {
		openAll(in.FS, entries, &s.ds)
	} else {
		hashAll(in.FS, entries, in.Stat, &s.ds, changed(in.Previous))
		s.stamp()
	}
	// Rules files are read on every build, however current the rest is:
	// their shape (which exist, which import AGENTS.md, which hold a
	// section) is part of the rules key.
	out.Base.RulesFiles = loadRulesFiles(in.FS, rulesEntries, &s.ds)
	out.RulesKey = RulesKey(out.Keys[GroupGovernance], out.Keys[GroupContent], out.Base.RulesFiles)
	s.Keys, s.RulesKey = out.Keys, out.RulesKey
	return s, ctx.Err()
}

// changed accepts, for hashAll to leave unread, a record document, page
// or content file that is sure to have changed since the build of
// manifest prev: one that build did not read, or read at another size.
// Its group's stages must run, so its parse hashes it as it reads it, and
// each is read once (all of them, in a first build). A
// file of the same size is hashed first, as it may be the same bytes with
// a new time (a checkout, a copy): then nothing is parsed at all.
func changed(prev *artifacts.Manifest) func(e *entry) bool {
	sizes := map[string]int64{}
	if prev != nil {
		for _, in := range prev.Inputs {
			sizes[in.Path] = in.Bytes
		}
	}
	return func(e *entry) bool {
		size, ok := sizes[e.path]
		return (e.kind == kindDocument || e.kind == kindPage || e.kind == kindContent) && (!ok || size != e.size)
	}
}

// stamp sets the inputs' stamps, the stat cache and each group's key from
// the entries' hashes. A group with an unread entry (see hashAll) has no
// key until its parse has read it: "" is never a key a build recorded, so
// the stages of the group run, and Parse stamps again.
func (s *Scanned) stamp() {
	out := &s.out
	out.Stat = statCacheOf(s.entries)
	addFolderRows(out.Stat, s.entries, s.folders, out.Base.Config)
	out.Inputs = make([]artifacts.FileStamp, 0, len(s.entries))
	for _, e := range s.entries {
		out.Inputs = append(out.Inputs, artifacts.FileStamp{Path: e.path, Bytes: e.size, XXHash: e.hash})
	}
	out.Keys = groupKeys(s.entries, s.cfgHash, out.SemanticsDigest)
	for _, e := range s.entries {
		if e.unread {
			out.Keys[e.kind.group()] = ""
		}
	}
	s.Keys = out.Keys
}

// Parse parses the groups named, and governance too when content is
// named: counting needs the terms store, and content validation the
// points, which governance checks. A corpus whose key is "" is parsed
// whether named or not: its key is known once its unread files are; the
// unread content files of a parse that does not name content are hashed
// alone. It is called once.
func (s *Scanned) Parse(ctx context.Context, groups []string) (Output, error) {
	out, ds, in := s.out, &s.ds, s.in
	if !s.ok {
		out.Diagnostics = ds.Sorted()
		return out, nil
	}
	cfg := out.Base.Config
	byGroup := map[string][]entry{}
	var unreadContent []*entry
	for i := range s.entries {
		e := &s.entries[i]
		if g := e.kind.group(); g != "" {
			byGroup[g] = append(byGroup[g], *e)
			switch {
			case !e.unread || slices.Contains(groups, g) || g == GroupCorpus && s.corpusKept:
			case g == GroupContent:
				unreadContent = append(unreadContent, e)
			default:
				groups = append(groups, g)
			}
		}
	}
	if len(unreadContent) > 0 && !slices.Contains(groups, GroupContent) {
		var read []artifacts.FileStamp
		for _, e := range unreadContent {
			if data, ok := readFileRaw(in.FS, e.path, MaxContentBytes, ds); ok {
				read = append(read, artifacts.FileStamp{Path: e.path, Bytes: int64(len(data)), XXHash: artifacts.Hash(data)})
			}
		}
		s.took(read, GroupContent)
		s.stamp()
		out.Stat, out.Inputs, out.Keys = s.out.Stat, s.out.Inputs, s.out.Keys
		out.RulesKey = RulesKey(out.Keys[GroupGovernance], out.Keys[GroupContent], out.Base.RulesFiles)
	}
	parse := func(g string) bool { return slices.Contains(groups, g) }
	var prev *counted
	if parse(GroupContent) {
		prev = previousCounts(in.FS, in.Previous, s.cfgHash, s.entries, cfg)
	}
	p := &progress{report: in.Progress}
	if parse(GroupCorpus) {
		p.plan(byGroup[GroupCorpus], func(e entry) bool { return s.reads(e) && !(s.deferred && e.kind == kindDocument) })
	}
	if parse(GroupContent) {
		p.plan(byGroup[GroupContent], func(e entry) bool { return e.kind == kindContent && !prev.unchanged(e) })
	}
	if parse(GroupGovernance) || parse(GroupContent) {
		walked := map[string]bool{}
		for _, e := range byGroup[GroupGovernance] {
			walked[e.path] = true
		}
		out.Base.Voices, out.Base.Terms, out.Base.Log = loadGovernance(in.FS, cfg, func(p string) bool { return walked[p] }, ds)
		validateGovernanceConfig(out.Base.ConfigPath, s.cfgRoot, cfg, out.Base.Voices, ds)
		out.Parsed = append(out.Parsed, GroupGovernance)
	}
	if parse(GroupCorpus) {
		var read []artifacts.FileStamp
		out.Base.Documents, out.Base.Pages, out.Base.Bodies, read = loadCorpus(ctx, in.FS, cfg, byGroup[GroupCorpus], s.reads, s.deferred, p, ds)
		out.Parsed = append(out.Parsed, GroupCorpus)
		if s.took(read, GroupCorpus) {
			s.stamp()
			out.Stat, out.Inputs, out.Keys = s.out.Stat, s.out.Inputs, s.out.Keys
		}
	}
	if parse(GroupContent) {
		var read []artifacts.FileStamp
		out.Base.Content, out.KeptContent, read = loadContent(in.FS, cfg, byGroup[GroupContent], prev, p, ds)
		out.KeptUsage = prev.usageOf(out.KeptContent)
		out.Parsed = append(out.Parsed, GroupContent)
		if s.took(read, GroupContent) {
			s.stamp()
			out.Stat, out.Inputs, out.Keys = s.out.Stat, s.out.Inputs, s.out.Keys
			out.RulesKey = RulesKey(out.Keys[GroupGovernance], out.Keys[GroupContent], out.Base.RulesFiles)
		}
	}
	slices.Sort(out.Parsed)
	out.Diagnostics = ds.Sorted()
	return out, ctx.Err()
}

// took gives the unread entries of group the stamps their parse read; it
// reports whether there were any.
func (s *Scanned) took(read []artifacts.FileStamp, group string) bool {
	at := map[string]artifacts.FileStamp{}
	for _, r := range read {
		at[r.Path] = r
	}
	any := false
	for i := range s.entries {
		e := &s.entries[i]
		if !e.unread || e.kind.group() != group || s.deferred && e.kind == kindDocument {
			continue // another group's, or a deferred document, read later (Settle)
		}
		any = true
		if r, ok := at[e.path]; ok {
			e.size, e.hash = r.Bytes, r.XXHash
		}
		// One that could not be read keeps no hash, as with hashAll; its
		// parse reported it.
		e.unread = false
	}
	return any
}

// Run scans the base and parses the groups named, every group when none
// is. A caller that decides what to parse from the keys Scan computes
// (Build) calls Scan and Parse instead.
func Run(ctx context.Context, in Input, groups ...string) (Output, error) {
	s, err := Scan(ctx, in)
	if err != nil {
		return s.out, err
	}
	if len(groups) == 0 {
		groups = []string{GroupCorpus, GroupGovernance, GroupContent}
	}
	return s.Parse(ctx, groups)
}

// progress counts the files parsed, for Input.Progress.
type progress struct {
	report      func(done, total int)
	mu          sync.Mutex
	done, total int
}

// plan adds the entries that will be parsed to the total.
func (p *progress) plan(entries []entry, parsed func(entry) bool) {
	for _, e := range entries {
		if parsed(e) {
			p.total++
		}
	}
}

// step counts one file parsed. It may be called from many goroutines.
func (p *progress) step() {
	if p.report == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.report(p.done, p.total)
}

// openAll opens and closes every input, reporting one that cannot be
// opened with hashAll's diagnostic.
func openAll(fsys fs.FS, entries []entry, ds *diag.List) {
	for _, e := range entries {
		f, err := fsys.Open(e.path)
		if err != nil {
			ds.Errorf(e.path, 0, 0, "read", "cannot read the file: %v", unwrapPath(err))
			continue
		}
		f.Close()
	}
}

// groupKeys hashes, for each group, the configuration, the artifact format
// and ranking versions, and the path and hash of every file in the group.
// The content key also covers the terms store, since usage counts depend
// on both, and nothing else of governance: editing a voice or the notes
// log does not make the counts stale.
func groupKeys(entries []entry, cfgHash, semantics string) map[string]string {
	hs := map[string]*xxhash.Digest{}
	for _, g := range []string{GroupCorpus, GroupGovernance, GroupContent} {
		h := xxhash.New()
		h.WriteString("cairn/" + g + "/format=" + artifacts.Fingerprint +
			"/ranking=" + strconv.Itoa(artifacts.RankingVersion) + "\n" + cfgHash + "\n" + semantics + "\n")
		hs[g] = h
	}
	for _, e := range entries {
		line := e.path + "\t" + e.hash + "\n"
		switch g := e.kind.group(); g {
		case GroupGovernance:
			hs[GroupGovernance].WriteString(line)
			if e.kind == kindTerms {
				hs[GroupContent].WriteString(line)
			}
		case "":
		default:
			hs[g].WriteString(line)
		}
	}
	keys := make(map[string]string, len(hs))
	for g, h := range hs {
		keys[g] = artifacts.HashSum(h.Sum64())
	}
	return keys
}

// loadCorpus parses the record documents and pages reads accepts, and
// the cached bodies. Documents
// and pages are parsed in parallel; each worker writes only its own slot,
// so the result is in input order whatever the scheduling.
// With deferred set, the record documents it would read are listed, each
// by its path and size, and not read (see Scanned.DeferDocuments).
func loadCorpus(ctx context.Context, fsys fs.FS, cfg model.Config, entries []entry, reads func(entry) bool, deferred bool, p *progress, ds *diag.List) ([]model.Document, []model.Page, []model.Body, []artifacts.FileStamp) {
	type result struct {
		doc   *model.Document
		page  *model.Page
		read  artifacts.FileStamp // an unread entry's stamp, as read
		diags diag.List
	}
	var bodiesManifest string
	var work []entry
	var listed []model.Document
	bodyFiles := map[string]int64{}
	for _, e := range entries {
		switch e.kind {
		case kindDocument, kindPage:
			if reads(e) && deferred && e.kind == kindDocument {
				listed = append(listed, model.Document{Path: e.path, Bytes: e.size})
			} else if reads(e) {
				work = append(work, e)
			}
		case kindBodiesManifest:
			bodiesManifest = e.path
		case kindBody:
			bodyFiles[e.path] = e.size
		}
	}
	results := make([]result, len(work))
	parallel(ctx, len(work), func(i int) {
		e, r := work[i], &results[i]
		defer p.step()
		raw, ok := readFileRaw(fsys, e.path, capOf(e.kind), &r.diags)
		if !ok {
			return
		}
		if e.unread {
			r.read = artifacts.FileStamp{Path: e.path, Bytes: int64(len(raw)), XXHash: artifacts.HashSum(xxhash.Sum64(raw))}
		}
		if e.kind == kindDocument {
			if d, ok := parseDocument(cfg, e.path, asString(raw), &r.diags); ok {
				d.Bytes = int64(len(raw))
				r.doc = &d
			}
		} else if pg, ok := parsePage(cfg, e.path, bytes.TrimPrefix(raw, []byte(bom)), &r.diags); ok {
			r.page = &pg
		}
	})
	docs := listed
	var pages []model.Page
	var read []artifacts.FileStamp
	for i := range results {
		r := &results[i]
		ds.Merge(r.diags.Sorted())
		if r.doc != nil {
			docs = append(docs, *r.doc)
		}
		if r.page != nil {
			pages = append(pages, *r.page)
		}
		if r.read.Path != "" {
			read = append(read, r.read)
		}
	}
	var bodies []model.Body
	if bodiesManifest != "" {
		bodies = loadBodies(fsys, cfg, bodiesManifest, bodyFiles, ds)
	}
	return docs, pages, bodies, read
}

// parallel runs fn(0..n-1) on GOMAXPROCS workers.
func parallel(ctx context.Context, n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= n {
					return
				}
				fn(j)
			}
		})
	}
	wg.Wait()
}

// SemanticsDigest hashes the configuration values that change ranking:
// schema weights and relation flags, source policies, identities and the
// ranking version. Descriptions, examples, content globs and governance do
// not change a pack, so editing them does not make the index stale.
func SemanticsDigest(cfg model.Config) string {
	h := xxhash.New()
	w := func(parts ...string) {
		h.WriteString(strings.Join(parts, "\x1f"))
		h.WriteString("\x1e")
	}
	w("ranking", strconv.Itoa(artifacts.RankingVersion))
	for _, name := range slices.Sorted(maps.Keys(cfg.Schema)) {
		f := cfg.Schema[name]
		w("field", name, strconv.Itoa(cfg.Weight(name)), strconv.FormatBool(f.Relation), f.Cardinality)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
		s := cfg.Sources[name]
		w("source", name, strconv.Itoa(s.Recency.HalfLifeDays), s.Category, s.Visibility)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Identities)) {
		id := cfg.Identities[name]
		w(append([]string{"identity", name, id.Canonical}, id.Aliases...)...)
	}
	l := cfg.Layers
	w("layers", l.Events, l.Index, l.Wiki, l.Projects, l.Tasks, l.Bodies)
	if len(cfg.LayersOff) > 0 {
		w(append([]string{"layers-off"}, cfg.LayersOff...)...)
	}
	return artifacts.HashSum(h.Sum64())
}
