package provenance

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// Scopes of a by-location answer: what stands behind it.
const (
	ScopeProject = "project" // the base's governance at a point
	ScopeProfile = "profile" // one voice profile and nothing else
)

// Freshness is the state of the artifacts a by-location answer reads.
type Freshness struct {
	State  corpus.State
	Reason string
	usage  []byte         // usage.tsv, when current
	counts map[string]int // term id → uses in content, once countAll ran
}

// Uses is the govern.Governance.Usage hook: nil counts leave the
// standing's uses out.
func (f Freshness) Uses(termID string) (int, bool) {
	if f.counts == nil {
		return 0, false
	}
	return f.counts[termID], true // every term of the store has its total
}

// CountAll decodes every term's total uses, for an answer that weighs
// them all (the by-location standing).
func (f *Freshness) CountAll() {
	if f.usage == nil {
		return
	}
	terms, err := artifacts.DecodeUsage(f.usage)
	if err != nil {
		*f = Freshness{State: corpus.StateCorrupt, Reason: err.Error()}
		return
	}
	f.counts = make(map[string]int, len(terms))
	for _, t := range terms {
		f.counts[t.Term] = t.Total
	}
}

// Lookup finds one term's uses, its first limit files among them, by a
// binary search of usage.tsv; ok is false when the counts are not current.
func (f Freshness) Lookup(termID string, limit int) (sum artifacts.UsageSummary, counted, ok bool, err error) {
	if f.usage == nil {
		return sum, false, false, nil
	}
	sum, counted, err = artifacts.LookupUsage(f.usage, termID, limit)
	return sum, counted, err == nil, err
}

// Of says what stands behind an answer.
func Of(root string, g load.Governance, f Freshness) Provenance {
	p := Provenance{Project: Identity(root, g.Config), LogOperations: len(g.Log)}
	if n := len(g.Log); n > 0 {
		p.LogRevision = g.Log[n-1].Op
	}
	p.Artifacts = render.IndexState{Path: artifacts.ManifestPath, State: string(f.State), Reason: f.Reason}
	return p
}

// Identity is the project's identity: the name its configuration gives
// (cairn.yaml's or fkf.yaml's name), else the URL of its git remote
// origin without scheme, user and .git (github.com/acme/harbor), else
// the base folder's name. A name or a remote stays the same when the
// folder is renamed or cloned elsewhere, and tells apart two projects in
// folders of one name.
func Identity(root string, cfg model.Config) string {
	if cfg.Name != "" {
		return cfg.Name
	}
	if origin := gitOrigin(root); origin != "" {
		return origin
	}
	return path.Base(filepath.ToSlash(root))
}

// gitOrigin reads the URL of remote "origin" from the base's .git/config
// (a .git folder; a worktree's .git file is not followed), normalised;
// "" when there is none. It reads at most maxGitConfig bytes.
func gitOrigin(root string) string {
	f, err := os.Open(filepath.Join(root, ".git", "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGitConfig))
	if err != nil {
		return ""
	}
	inOrigin := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inOrigin = line == `[remote "origin"]`
			continue
		}
		if k, v, ok := strings.Cut(line, "="); inOrigin && ok && strings.TrimSpace(k) == "url" {
			return normaliseRemote(strings.TrimSpace(v))
		}
	}
	return ""
}

// maxGitConfig bounds what gitOrigin reads of .git/config.
const maxGitConfig = 1 << 20

// normaliseRemote writes a remote URL as host/path: without scheme,
// user and .git, an scp-like host:path as host/path.
func normaliseRemote(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
	} else if host, p, ok := strings.Cut(u, ":"); ok && !strings.Contains(host, "/") {
		u = host + "/" + p // git@github.com:acme/harbor.git
	}
	if _, rest, ok := strings.Cut(u, "@"); ok && !strings.Contains(u[:strings.Index(u, "@")], "/") {
		u = rest
	}
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	if strings.ContainsFunc(u, unicode.IsControl) {
		return ""
	}
	return u
}

// SearchTopUses is how many of a term's most frequent uses a search hit
// shows beside its count (a term read shows readTopUses).
const SearchTopUses = 3

// usageStage is the build stage whose output holds the usage counts.
const usageStage = "usage"

// Usage checks the build behind usage.tsv without walking the
// base (SPEC §6.6: artifact freshness, stat-first, hashing only what
// changed) and, when it is current, reads the file, whose terms are
// looked up as an answer needs them.
func Usage(ctx context.Context, root string, cfg model.Config) Freshness {
	m, err := artifacts.ReadPrevious(root)
	var linked *artifacts.LinkError
	switch {
	case errors.As(err, &linked):
		return Freshness{State: corpus.StateCorrupt, Reason: corpus.LinkedDirReason}
	case err != nil:
		return Freshness{State: corpus.StateCorrupt, Reason: err.Error()}
	case m == nil:
		return Freshness{State: corpus.StateMissing, Reason: "no manifest; run cairn build"}
	}
	// The counts depend on the content files, the terms store and the
	// configuration, and on nothing else the manifest records.
	cache := artifacts.ReadStatFile(root)
	counted := *m
	counted.Inputs = slices.DeleteFunc(slices.Clone(m.Inputs), func(in artifacts.FileStamp) bool {
		return !load.IsConfigFile(in.Path) && in.Path != path.Join(cfg.Layers.Governance, "terms.yaml") && !load.IsContent(cfg, in.Path)
	})
	if p, why := artifacts.FirstChangedInput(root, &counted, cache); p != "" {
		return Freshness{State: corpus.StateStale, Reason: p + " " + why}
	}
	st, ok := m.Stage(usageStage)
	if !ok {
		return Freshness{State: corpus.StateStale, Reason: "the build holds no usage counts; run cairn build"}
	}
	if reason := corpus.BrokenOutput(root, m, st, cache); reason != "" {
		return Freshness{State: corpus.StateCorrupt, Reason: reason}
	}
	data, err := corpus.LoadArtifact(root, artifacts.UsagePath, func(b []byte) ([]byte, error) { return b, nil }, nil)
	if err != nil {
		return Freshness{State: corpus.StateCorrupt, Reason: err.Error()}
	}
	return Freshness{State: corpus.StateUsed, usage: data}
}

// Standing is a term suggestion's evidence as plain counts; Uses is
// absent when the usage counts are not current.
type Standing struct {
	Sessions    int      `json:"sessions"`
	Corrections int      `json:"corrections"`
	Merges      int      `json:"merges"`
	MergedIn    []string `json:"merged_in,omitempty"`
	Uses        *int     `json:"uses,omitempty"`
}

// Coverage grades the answer.
type Coverage struct {
	Grade   string   `json:"grade"`
	Kinds   []string `json:"kinds"`
	Missing []string `json:"missing"`
	Pending int      `json:"pending"`
}

// Provenance is what stands behind an answer.
type Provenance struct {
	// Project names the base (its folder).
	Project string `json:"project"`
	// LogRevision is the newest operation of the notes log, which ids
	// every state of it; LogOperations counts them.
	LogRevision   string `json:"log_revision"`
	LogOperations int    `json:"log_operations"`
	// Artifacts is the state of the build the usage counts come from.
	Artifacts render.IndexState `json:"artifacts"`
}

// RecordLine is how every answer invites an observation: by the command,
// or by the MCP tool an agent connected over MCP calls instead.
const RecordLine = "To record a name, a spelling or a point of style this answer does not hold, run `cairn note suggest note:<slug> \"what you noticed\" --actor agent:<you>` or call the MCP tool `context_note`; a person decides whether it becomes a rule."
