package model

// Voice is a voice profile: governance/voices/<name>.yaml.
type Voice struct {
	Path        string    `yaml:"-"`
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tone        Tone      `yaml:"tone"`
	Style       Style     `yaml:"style"`
	Patterns    Patterns  `yaml:"patterns"`
	Comments    Comments  `yaml:"comments"`
	Examples    []Example `yaml:"examples"`
	Constraints []string  `yaml:"constraints"`
	ValidFrom   string    `yaml:"valid_from"`
	ValidUntil  string    `yaml:"valid_until"`
}

// Tone is the register a voice writes in.
type Tone struct {
	Formality   string   `yaml:"formality"`
	Personality string   `yaml:"personality"`
	Guidelines  []string `yaml:"guidelines"`
}

// Style is the sentence-level shape of a voice.
type Style struct {
	SentenceLength string `yaml:"sentence_length"`
	PersonPOV      string `yaml:"person_pov"`
	Contractions   string `yaml:"contractions"`
	ActiveVoice    string `yaml:"active_voice"`
}

// Patterns are the regular expressions a voice forbids or requires.
type Patterns struct {
	Prohibited []Pattern `yaml:"prohibited"`
	Required   []Pattern `yaml:"required"`
}

// Pattern is one voice pattern; Regex is validated at load.
type Pattern struct {
	Regex       string `yaml:"regex"`
	Description string `yaml:"description"`
	Severity    string `yaml:"severity"`
	Line        int    `yaml:"-"`
}

// Comments limits code comments written in a voice.
type Comments struct {
	MaxLines      int    `yaml:"max_lines"`
	MaxLineLength int    `yaml:"max_line_length"`
	Language      string `yaml:"language"`
}

// Example is a before/after rewrite that shows a voice.
type Example struct {
	Before string `yaml:"before"`
	After  string `yaml:"after"`
	Why    string `yaml:"why"`
}

// Term statuses, from most to least endorsed.
const (
	StatusPreferred  = "preferred"
	StatusApproved   = "approved"
	StatusAdmitted   = "admitted"
	StatusProposed   = "proposed"
	StatusDeprecated = "deprecated"
	StatusForbidden  = "forbidden"
)

// TermStatuses lists every valid term status.
var TermStatuses = []string{StatusPreferred, StatusApproved, StatusAdmitted, StatusProposed, StatusDeprecated, StatusForbidden}

// Term kinds.
const (
	KindTerm = "term" // a wording
	KindName = "name" // a capitalised name to write exactly
	KindKeep = "keep" // never translated
)

// Term is one entry of governance/terms.yaml.
type Term struct {
	ID          string            `yaml:"id"`
	Term        string            `yaml:"term"`
	Status      string            `yaml:"status"`
	Replacement string            `yaml:"replacement"`
	Kind        string            `yaml:"kind"`
	Pattern     string            `yaml:"pattern"`
	Definition  string            `yaml:"definition"`
	Language    string            `yaml:"language"`
	Paths       []string          `yaml:"paths"`
	Axes        map[string]string `yaml:"axes"`
	ValidFrom   string            `yaml:"valid_from"`
	ValidUntil  string            `yaml:"valid_until"`
	Note        string            `yaml:"note"`
	Line        int               `yaml:"-"`
}

// Discouraged reports whether the term rules its wording out.
func (t Term) Discouraged() bool {
	return t.Status == StatusForbidden || t.Status == StatusDeprecated
}

// Operation kinds of the notes log.
const (
	OpSuggest = "suggest"
	OpKeep    = "keep"
	OpDrop    = "drop"
	OpWiden   = "widen"
	OpReset   = "reset"
	OpCorrect = "correct"
	OpMerge   = "merge"
)

// OpKinds lists every valid operation kind.
var OpKinds = []string{OpSuggest, OpKeep, OpDrop, OpWiden, OpReset, OpCorrect, OpMerge}

// LogOp is one line of governance/log.jsonl.
type LogOp struct {
	Op         string            `json:"op"`
	At         string            `json:"at"`
	Actor      string            `json:"actor"`
	Session    string            `json:"session,omitempty"`
	Kind       string            `json:"kind"`
	Target     string            `json:"target"`
	Text       string            `json:"text,omitempty"`
	Paths      []string          `json:"paths,omitempty"`
	Axes       map[string]string `json:"axes,omitempty"`
	Evidence   []string          `json:"evidence,omitempty"`
	ValidFrom  string            `json:"valid_from,omitempty"`
	ValidUntil string            `json:"valid_until,omitempty"`
	Ref        string            `json:"ref,omitempty"`
	Line       int               `json:"-"`
}
