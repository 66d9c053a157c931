package artifacts

import (
	"strconv"
	"strings"
)

// Dir is the folder of the build artifacts, relative to the base root.
const Dir = ".cairn"

// Artifact paths, relative to the base root.
const (
	DocsPath      = Dir + "/docs.tsv"
	DocsKeyPath   = Dir + "/docs.key"
	FieldsPath    = Dir + "/fields.tsv"
	TermsPath     = Dir + "/terms.tsv"
	PostingsPath  = Dir + "/postings.tsv"
	EdgesPath     = Dir + "/edges.tsv"
	EdgesDstPath  = Dir + "/edges.dst.tsv"
	ManifestPath  = Dir + "/manifest.json"
	DocumentsPath = Dir + "/documents.tsv"
	BodiesPath    = Dir + "/bodies.tsv"
	UsagePath     = Dir + "/usage.tsv"
	ContentPath   = Dir + "/content.tsv"
	LockPath      = Dir + "/lock"
	// LogLockPath is the lock file of the notes log (see LockLog).
	LogLockPath = Dir + "/log.lock"
)

// FormatVersion is the version of every artifact layout in this package.
// Any change to a byte layout bumps it; readers reject other versions.
const FormatVersion = 7

// Header names of the TSV artifacts.
const (
	docsName      = "docs"
	docsKeyName   = "docs.key"
	fieldsName    = "fields"
	termsName     = "terms"
	postingsName  = "postings"
	edgesName     = "edges"
	documentsName = "documents"
	bodiesName    = "bodies"
	edgesDstName  = "edges.dst"
	usageName     = "usage"
	contentName   = "content"
)

// RankingVersion is the version of the ranking arithmetic. It is part of
// the semantics digest, so a change makes every index stale.
const RankingVersion = 3

// Fingerprint identifies every artifact layout at once: a hash of the
// format version and each TSV's header, which names its columns. Build
// keys include it, so a cairn whose layouts differ rebuilds instead of
// trusting artifacts it would read as corrupt.
var Fingerprint = func() string {
	return Hash([]byte(strings.Join([]string{
		strconv.Itoa(FormatVersion), docsHeader, KeysHeader(0), fieldsHeader, termsHeader, postingsHeader,
		edgesHeader, edgesDstHeader, documentsHeader, bodiesHeader, usageHeader, contentHeader, statCacheHeader, rulesLayout,
	}, "\x1e")))
}()
