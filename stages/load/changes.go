package load

import (
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// CorpusChanges is how the record documents and pages of a scanned base
// differ from what a previous build read: the units a build can replace in
// the previous index instead of indexing the whole corpus again.
type CorpusChanges struct {
	// Documents and Pages list, sorted, the paths whose bytes changed, that
	// are new, or that are gone.
	Documents, Pages []string
	// Bytes is how many bytes of record documents changed or are new.
	Bytes int64
}

// CorpusChanges compares the scanned corpus with the inputs of manifest
// prev. ok is false when anything else of the corpus group changed (the
// cached bodies or their manifest), or the configuration did, or prev was
// written by another format or ranking: then only a whole build is right.
func (s *Scanned) CorpusChanges(prev *artifacts.Manifest) (c CorpusChanges, ok bool) {
	if !s.ok || prev == nil || prev.Format != artifacts.FormatVersion || prev.RankingVersion != artifacts.RankingVersion ||
		prev.SemanticsDigest != s.out.SemanticsDigest {
		return c, false
	}
	old := make(map[string]artifacts.FileStamp, len(prev.Inputs))
	for _, in := range prev.Inputs {
		old[in.Path] = in
	}
	seen := make(map[string]bool, len(s.entries))
	for _, e := range s.entries {
		seen[e.path] = true
		was, had := old[e.path]
		same := had && !e.unread && was.Bytes == e.size && was.XXHash == e.hash
		switch {
		case same:
		case e.kind == kindDocument:
			c.Documents = append(c.Documents, e.path)
			c.Bytes += e.size
		case e.kind == kindPage:
			c.Pages = append(c.Pages, e.path)
		case e.kind == kindConfig || e.kind.group() == GroupCorpus:
			return c, false
		}
	}
	if cfg, had := old[s.out.Base.ConfigPath]; !had || s.cfgHash != cfg.XXHash {
		return c, false
	}
	// What is gone: an input of the previous build the walk did not find,
	// classified by its path as the walk would have (what it would say of
	// a stray path was said when that path was there).
	classify := newClassifier(s.out.Base.Config)
	var quiet diag.List
	for _, in := range prev.Inputs {
		if seen[in.Path] {
			continue
		}
		switch k := classify.classify(in.Path, &quiet); {
		case k == kindDocument:
			c.Documents = append(c.Documents, in.Path)
		case k == kindPage:
			c.Pages = append(c.Pages, in.Path)
		case k == kindConfig || k.group() == GroupCorpus:
			return c, false
		}
	}
	slices.Sort(c.Documents)
	slices.Sort(c.Pages)
	return c, true
}
