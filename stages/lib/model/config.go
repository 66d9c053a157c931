package model

import "go.yaml.in/yaml/v3"

// Config is a decoded cairn.yaml. Every key is optional; Defaults fills the
// gaps so that later stages never see a zero value where a default applies.
type Config struct {
	// Name is the project's identity in an answer's provenance (fkf.yaml's
	// name too); without it the identity is the git remote's, else the
	// base folder's name.
	Name string `yaml:"name"`
	// Schema maps a field name to how it ranks and relates. The root schema
	// decides weights; a document's own schema can only add relation flags.
	Schema map[string]FieldSpec `yaml:"schema"`
	// Sources maps a source name to its ranking and policy defaults.
	Sources map[string]SourcePolicy `yaml:"sources"`
	// Identities maps an identity name to its canonical URI and aliases.
	Identities map[string]Identity `yaml:"identities"`
	// Content lists doublestar globs of the project's own content files.
	Content []string `yaml:"content"`
	// Layers renames the layer folders.
	Layers Layers `yaml:"layers"`
	// Governance configures voices, points, axes and rules-file caps.
	Governance GovernanceConfig `yaml:"governance"`
	// Check configures `cairn check`: the findings it leaves out by path.
	Check CheckConfig `yaml:"check"`
	// LayersOff names the layers switched off (an fkf.yaml `layers` entry
	// set to false): their folders are not read. cairn.yaml has no key for
	// it.
	LayersOff []string `yaml:"-"`
}

// FieldSpec declares one schema field.
type FieldSpec struct {
	Weight      int      `yaml:"weight"      json:"weight,omitempty"`
	Relation    bool     `yaml:"relation"    json:"relation,omitempty"`
	Cardinality string   `yaml:"cardinality" json:"cardinality,omitempty"`
	Description string   `yaml:"description" json:"description,omitempty"`
	Examples    []string `yaml:"examples"    json:"examples,omitempty"`
}

// SourcePolicy is a source's recency model and the policy roles its records
// get when their own fields say nothing, and how `cairn collect` gathers it.
// The collection keys (Run to Path) never change ranking: SemanticsDigest
// leaves them out, so editing a command does not make an index stale.
type SourcePolicy struct {
	Recency    Recency `yaml:"recency"`
	Category   string  `yaml:"category"`
	Visibility string  `yaml:"visibility"`
	// Run is the command `cairn collect` runs for the source, as an argv
	// (no shell); empty for a source that is only read.
	Run []string `yaml:"run"`
	// Fields is the fields map the collector writes into each document:
	// schema field → the jq-subset paths of its values in a record.
	Fields map[string]FieldPaths `yaml:"fields"`
	// Layer is where collected documents go: LayerEvents (one document a
	// day, the default) or LayerIndex (one snapshot).
	Layer string `yaml:"layer"`
	// Timeout bounds one run of the command, as a Go duration ("90s",
	// "5m"); empty is the collector's default.
	Timeout string `yaml:"timeout"`
	// Collector names a built-in collector ("git", "markdown") for a source
	// with no Run; a source named like one uses it without saying so.
	Collector string `yaml:"collector"`
	// Path is what a built-in collector reads: the git repository, or the
	// folder of notes, relative to the base.
	Path string `yaml:"path"`

	// The keys below come from fkf.yaml alone (cairn.yaml has none).

	// Disabled is an fkf source that fkf.yaml does not enable: its
	// documents are read, but collect never runs its command.
	Disabled bool `yaml:"-"`
	// Placeholders says Run is written the fkf way: its words may hold
	// {{date}}, {{next_date}}, {{start}}, {{end}}, {{base}} and {{home}},
	// which collect fills in, and nothing is appended to it.
	Placeholders bool `yaml:"-"`
	// Format is how the command prints its records: "json" (one array, or
	// an object holding them; the default) or "ndjson" (one record a line).
	Format string `yaml:"-"`
	// Records is the path to the records array inside the object a JSON
	// command prints, when it is not "records".
	Records string `yaml:"-"`
	// BodyDeclared says fkf.yaml gives the source a body command, which
	// the documents collect writes for it say (cairn never runs it).
	BodyDeclared bool `yaml:"-"`
}

// FieldPaths is one field's paths: a YAML string or a list of strings, as
// a record document's fields map holds them.
type FieldPaths []string

// UnmarshalYAML reads one path or a list of paths.
func (f *FieldPaths) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var s string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*f = FieldPaths{s}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*f = list
	return nil
}

// Recency is a source's recency model; zero means no recency bonus.
type Recency struct {
	HalfLifeDays int `yaml:"half_life_days"`
}

// Identity is one person, repository or other entity known by several URIs.
type Identity struct {
	Canonical string   `yaml:"canonical"`
	Aliases   []string `yaml:"aliases"`
}

// Layers names the folders of each layer, relative to the base root.
type Layers struct {
	Events     string `yaml:"events"`
	Index      string `yaml:"index"`
	Wiki       string `yaml:"wiki"`
	Projects   string `yaml:"projects"`
	Tasks      string `yaml:"tasks"`
	Bodies     string `yaml:"bodies"`
	Governance string `yaml:"governance"`
}

// GovernanceConfig is the governance block of cairn.yaml.
type GovernanceConfig struct {
	DefaultVoice string          `yaml:"default_voice"`
	Points       []Point         `yaml:"points"`
	Axes         map[string]Axis `yaml:"axes"`
	Caps         RulesCaps       `yaml:"caps"`
}

// CheckConfig is the check block of cairn.yaml.
type CheckConfig struct {
	// Ignore leaves out findings by path: a style guide that quotes the
	// words it bans, a changelog that keeps old names.
	Ignore []CheckIgnore `yaml:"ignore"`
}

// CheckIgnore leaves out, in the files its doublestar globs match, the
// findings of the rules it names: a rule id (terms.forbidden:sprint) or
// the start of one up to a . : or # (terms, voice.prohibited:docs);
// every rule when it names none.
type CheckIgnore struct {
	Paths []string `yaml:"paths"`
	Rules []string `yaml:"rules"`
	Line  int      `yaml:"-"`
}

// Point is a named place in the content tree with its own voice and axes.
type Point struct {
	Name       string            `yaml:"name"`
	Paths      []string          `yaml:"paths"`
	Voice      string            `yaml:"voice"`
	Axes       map[string]string `yaml:"axes"`
	ValidFrom  string            `yaml:"valid_from"`
	ValidUntil string            `yaml:"valid_until"`
	Line       int               `yaml:"-"`
}

// Axis is a typed axis: each value may contain other values (region emea
// contains countries fr and de), and containment is transitive.
type Axis struct {
	Contains map[string][]string `yaml:"contains"`
}

// RulesCaps bounds the lists written into rules files.
type RulesCaps struct {
	Rules     int `yaml:"rules"`
	Notes     int `yaml:"notes"`
	LineRunes int `yaml:"line_runes"`
}

// Default values of cairn.yaml.
const (
	DefaultWeight      = 1
	DefaultIDWeight    = 10
	DefaultTitleWeight = 5
	DefaultRulesCap    = 40
	DefaultNotesCap    = 20
	DefaultLineRunes   = 200
)

// DefaultLayers are the layer folders when cairn.yaml names none.
var DefaultLayers = Layers{
	Events:     "events",
	Index:      "index",
	Wiki:       "wiki",
	Projects:   "projects",
	Tasks:      "tasks",
	Bodies:     "bodies",
	Governance: "governance",
}

// WithDefaults returns c with every unset value replaced by its default.
func (c Config) WithDefaults() Config {
	fill := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	fill(&c.Layers.Events, DefaultLayers.Events)
	fill(&c.Layers.Index, DefaultLayers.Index)
	fill(&c.Layers.Wiki, DefaultLayers.Wiki)
	fill(&c.Layers.Projects, DefaultLayers.Projects)
	fill(&c.Layers.Tasks, DefaultLayers.Tasks)
	fill(&c.Layers.Bodies, DefaultLayers.Bodies)
	fill(&c.Layers.Governance, DefaultLayers.Governance)
	if c.Governance.Caps.Rules == 0 {
		c.Governance.Caps.Rules = DefaultRulesCap
	}
	if c.Governance.Caps.Notes == 0 {
		c.Governance.Caps.Notes = DefaultNotesCap
	}
	if c.Governance.Caps.LineRunes == 0 {
		c.Governance.Caps.LineRunes = DefaultLineRunes
	}
	return c
}

// Weight returns the ranking weight of a field under the root schema.
func (c Config) Weight(field string) int {
	if spec, ok := c.Schema[field]; ok && spec.Weight > 0 {
		return spec.Weight
	}
	switch field {
	case "id":
		return DefaultIDWeight
	case "title":
		return DefaultTitleWeight
	}
	return DefaultWeight
}

// IsOff reports whether p, a base-relative path, lies in a layer that is
// switched off.
func (c Config) IsOff(p string) bool {
	for _, name := range c.LayersOff {
		if dir := c.Layers.folder(name); dir != "" && len(p) > len(dir) && p[:len(dir)+1] == dir+"/" {
			return true
		}
	}
	return false
}

// folder is the folder of the layer named name.
func (l Layers) folder(name string) string {
	switch name {
	case LayerEvents:
		return l.Events
	case LayerIndex:
		return l.Index
	case "wiki":
		return l.Wiki
	case "projects":
		return l.Projects
	case "tasks":
		return l.Tasks
	case "bodies":
		return l.Bodies
	case "governance":
		return l.Governance
	}
	return ""
}
