// Package model holds the decoded base: configuration, record documents,
// pages, cached bodies, governance and content files. It is plain data
// shared by the build stages and the query stage, with no I/O.
package model

// Layer names as they appear in docs.tsv and receipts.
const (
	LayerEvents   = "events"
	LayerIndex    = "index"
	LayerWiki     = "wiki"
	LayerProjects = "projects"
	LayerTasks    = "tasks"
)

// Base is everything the loader read, in a deterministic order: each slice
// is sorted by path (and records keep their order within a document).
type Base struct {
	Config     Config
	Documents  []Document
	Pages      []Page
	Bodies     []Body
	Voices     []Voice
	Terms      []Term
	Log        []LogOp
	Content    []ContentFile
	ConfigPath string

	// RulesFiles are the AGENTS.md and CLAUDE.md files of the base, read
	// on every build: never content nor input, but the rules stage keeps
	// the text around its section.
	RulesFiles []RulesFile
}

// Document is one record document: events/<day>/<source>.json or
// index/<source>.json.
type Document struct {
	Path   string
	Bytes  int64  // the file's size
	Layer  string // LayerEvents or LayerIndex
	Marker string // "cairn" or "fkf"
	Source string
	Date   string // YYYY-MM-DD for events, empty for index documents
	// Schema is the document's own field declarations (relation flags and
	// cardinality); the root schema still decides weights.
	Schema map[string]FieldSpec
	// Fields maps a schema field to its jq-subset paths, in the order given.
	Fields      []FieldMap
	Records     []Record
	WindowStart string
	WindowEnd   string
	CollectedAt string
	// Body describes, in a cairn document, the bodies its records may
	// have; BodyDeclared says, in an fkf document, that its source
	// declares a body command.
	Body         string
	BodyDeclared bool
}

// FieldMap is one entry of a document's fields map.
type FieldMap struct {
	Field string
	Paths []string
}

// Record is one collected record, kept raw: projection happens later.
type Record struct {
	// Raw is the record's JSON object exactly as it appears in the document
	// (a string sharing the document's one copy of its text).
	Raw string
	// Line and Col locate the record's opening brace (1-based).
	Line int
	Col  int
	// Offset and Length locate Raw inside the document file.
	Offset int64
	Length int64
}

// Page is an authored Markdown page: wiki, project or task.
type Page struct {
	Path     string
	Layer    string // LayerWiki, LayerProjects or LayerTasks
	Slug     string
	Date     string // tasks: the day in their path; others: frontmatter date
	Front    Frontmatter
	Body     string // Markdown after the frontmatter
	BodyLine int    // 1-based line where Body starts
	Headings []Heading
	// Links are the destinations of the body's Markdown links, images and
	// autolinks, as written (see package markdown).
	Links       []string
	FrontExtras map[string]any // frontmatter keys cairn does not interpret, kept for read
}

// Frontmatter is the interpreted part of a page's YAML frontmatter.
type Frontmatter struct {
	Title        string              `yaml:"title"`
	Description  string              `yaml:"description"`
	Type         string              `yaml:"type"`
	Status       string              `yaml:"status"`
	Tags         []string            `yaml:"tags"`
	Aliases      []string            `yaml:"aliases"`
	Relations    map[string][]string `yaml:"relations"`
	Date         string              `yaml:"date"`
	ValidFrom    string              `yaml:"valid_from"`
	ValidUntil   string              `yaml:"valid_until"`
	NextAction   string              `yaml:"next_action"`
	Blocker      string              `yaml:"blocker"`
	Reviewed     string              `yaml:"reviewed"`
	Due          string              `yaml:"due"`
	Category     string              `yaml:"category"`
	Visibility   string              `yaml:"visibility"`
	Point        string              `yaml:"point"`
	Supersedes   []string            `yaml:"supersedes"`
	SupersededBy string              `yaml:"superseded_by"`
}

// Heading is one Markdown heading with its GitHub-style anchor.
type Heading struct {
	Level  int
	Text   string
	Anchor string
	Line   int
}

// Body is a verified cached body of a record.
type Body struct {
	URI    string // the record it belongs to
	Path   string // base-relative path of the body file
	SHA256 string
	Bytes  int64
	Text   string
}

// ContentFile is one of the project's own content files, where rules apply
// and term use is counted.
type ContentFile struct {
	Path  string
	Point string // frontmatter point:, if any
	Text  string
}

// RulesFile is an AGENTS.md or CLAUDE.md as it is on disk.
type RulesFile struct {
	Path string
	Text string
	// Symlink reports that the path is a symbolic link. cairn never
	// writes through one: an atomic write would replace the link itself.
	Symlink bool
	// SameAsAgents reports, for a CLAUDE.md, that the AGENTS.md beside it
	// is the same file (through a symbolic or a hard link).
	SameAsAgents bool
}
