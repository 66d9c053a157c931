package load

import (
	"slices"
	"strings"

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

// KeptCorpusError is why a build that refreshes only the rules files
// cannot leave the index as the previous build made it.
type KeptCorpusError struct{ Reason string }

func (e *KeptCorpusError) Error() string {
	return "cannot refresh the rules files alone: " + e.Reason + "; run cairn build"
}

// KeepCorpus makes Parse leave the corpus group unparsed, even where a
// changed document has no hash yet, and returns the inputs to record when
// the corpus stages are kept as the build of manifest prev made them,
// however their inputs changed since: the governance and content inputs
// as scanned now, the record documents, pages and bodies as prev recorded
// them. The manifest then says what the kept index was built from, so a
// query finds what changed since and reads it anew, and the next build
// replaces it. Both read the configuration as it is now, so it must be
// the one prev was built with: a *KeptCorpusError says so when it is not,
// or when prev was written by another format or ranking.
func (s *Scanned) KeepCorpus(prev *artifacts.Manifest) ([]artifacts.FileStamp, error) {
	if prev == nil {
		return nil, &KeptCorpusError{Reason: "there is no previous build whose index it could keep"}
	}
	switch cfg, had := prev.Input(s.out.Base.ConfigPath); {
	case !s.ok:
		return nil, &KeptCorpusError{Reason: "the configuration does not load"}
	case prev.Format != artifacts.FormatVersion || prev.RankingVersion != artifacts.RankingVersion:
		return nil, &KeptCorpusError{Reason: "the last build was made by another version of cairn"}
	case !had || cfg.XXHash != s.cfgHash || prev.SemanticsDigest != s.out.SemanticsDigest:
		return nil, &KeptCorpusError{Reason: s.out.Base.ConfigPath + " changed since the last build, and the index depends on it"}
	}
	s.corpusKept = true
	var inputs []artifacts.FileStamp
	for _, e := range s.entries {
		if e.kind.group() != GroupCorpus {
			inputs = append(inputs, artifacts.FileStamp{Path: e.path, Bytes: e.size, XXHash: e.hash})
		}
	}
	classify := newClassifier(s.out.Base.Config)
	var quiet diag.List // what the walk says of a stray path it said when it was there
	for _, in := range prev.Inputs {
		if classify.classify(in.Path, &quiet).group() == GroupCorpus {
			inputs = append(inputs, in)
		}
	}
	slices.SortFunc(inputs, func(a, b artifacts.FileStamp) int { return strings.Compare(a.Path, b.Path) })
	return inputs, nil
}
