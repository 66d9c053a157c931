package artifacts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// RulesPath is the resolved rules table.
const RulesPath = Dir + "/rules.json"

// rulesLayout names the layout of rules.json in the Fingerprint.
const rulesLayout = "cairn-rules: holds voices terms notes suggestions places files"

// RulesTable is rules.json: the governance resolved at the project's
// default point and at every folder holding content files, for the day
// range Holds, with the terms, notes, suggestions and voice briefs those
// places refer to. See the package documentation for the layout.
type RulesTable struct {
	Holds       RulesSpan         `json:"holds"`
	Voices      []RulesVoice      `json:"voices,omitempty"`
	Terms       []RulesTerm       `json:"terms,omitempty"`
	Notes       []RulesNote       `json:"notes,omitempty"`
	Suggestions []RulesSuggestion `json:"suggestions,omitempty"`
	Places      []RulesPlace      `json:"places,omitempty"`
	// Files are the rules files that hold cairn's section after the build.
	Files []string `json:"files,omitempty"`
}

// RulesSpan is a range of days, both ends inclusive; "" is unbounded.
type RulesSpan struct {
	From  string `json:"from,omitempty"`
	Until string `json:"until,omitempty"`
}

// RulesVoice is a voice profile with its rendered writing brief.
type RulesVoice struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Brief       []string `json:"brief,omitempty"`
	ValidFrom   string   `json:"valid_from,omitempty"`
	ValidUntil  string   `json:"valid_until,omitempty"`
}

// RulesTerm is a term of the store as it is in force.
type RulesTerm struct {
	ID            string            `json:"id"`
	Term          string            `json:"term"`
	Status        string            `json:"status"`
	Kind          string            `json:"kind,omitempty"`
	Replacement   string            `json:"replacement,omitempty"`
	Pattern       string            `json:"pattern,omitempty"`
	Definition    string            `json:"definition,omitempty"`
	Language      string            `json:"language,omitempty"`
	Note          string            `json:"note,omitempty"`
	Paths         []string          `json:"paths,omitempty"`
	Axes          map[string]string `json:"axes,omitempty"`
	ValidFrom     string            `json:"valid_from,omitempty"`
	ValidUntil    string            `json:"valid_until,omitempty"`
	EstablishedBy string            `json:"established_by,omitempty"`
}

// RulesNote is a note a person kept.
type RulesNote struct {
	Target     string            `json:"target"`
	Text       string            `json:"text"`
	Op         string            `json:"op"`
	Actor      string            `json:"actor"`
	Evidence   []string          `json:"evidence,omitempty"`
	Paths      []string          `json:"paths,omitempty"`
	Axes       map[string]string `json:"axes,omitempty"`
	ValidFrom  string            `json:"valid_from,omitempty"`
	ValidUntil string            `json:"valid_until,omitempty"`
}

// RulesSuggestion is a position nobody has decided on.
type RulesSuggestion struct {
	Op          string            `json:"op"`
	Target      string            `json:"target"`
	Kind        string            `json:"kind"`
	Status      string            `json:"status"`
	Text        string            `json:"text,omitempty"`
	Actor       string            `json:"actor"`
	Session     string            `json:"session,omitempty"`
	Evidence    []string          `json:"evidence,omitempty"`
	ContestedBy []string          `json:"contested_by,omitempty"`
	Standing    *RulesStanding    `json:"standing,omitempty"`
	Paths       []string          `json:"paths,omitempty"`
	Axes        map[string]string `json:"axes,omitempty"`
	ValidFrom   string            `json:"valid_from,omitempty"`
	ValidUntil  string            `json:"valid_until,omitempty"`
}

// RulesStanding is a term suggestion's standing. Uses in content are not
// here: they come from the usage artifact when a question is answered.
type RulesStanding struct {
	Sessions    int      `json:"sessions"`
	Corrections int      `json:"corrections"`
	Merges      int      `json:"merges"`
	MergedIn    []string `json:"merged_in,omitempty"`
}

// RulesPlace is the answer for some content files of one folder (or, with
// no files, for the default point itself).
type RulesPlace struct {
	Folder      string            `json:"folder"`
	Files       []string          `json:"files,omitempty"`
	Point       string            `json:"point,omitempty"`
	Binding     string            `json:"binding"`
	Glob        string            `json:"glob,omitempty"`
	Axes        map[string]string `json:"axes,omitempty"`
	Voice       string            `json:"voice,omitempty"`
	VoiceFrom   string            `json:"voice_from,omitempty"`
	Transitions []RulesTransition `json:"transitions,omitempty"`
	Terms       []string          `json:"terms,omitempty"`
	KeepAsIs    []string          `json:"keep_as_is,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
	Suggestions []string          `json:"suggestions,omitempty"`
	Coverage    string            `json:"coverage"`
	Missing     []string          `json:"missing,omitempty"`
	// RulesFiles are the rules files that carry this folder's section;
	// none when the nearest ruled folder above (or the root) speaks for it.
	RulesFiles []string `json:"rules_files,omitempty"`
}

// RulesTransition is a binding skipped because of its window.
type RulesTransition struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	ValidFrom  string `json:"valid_from,omitempty"`
	ValidUntil string `json:"valid_until,omitempty"`
	Closed     bool   `json:"closed"`
	Now        string `json:"now,omitempty"`
}

type rulesFile struct {
	Kind   int `json:"cairn-rules"`
	Format int `json:"format"`
	RulesTable
}

// EncodeRules renders rules.json: indented, LF-terminated, every list in
// the order DecodeRules checks.
func EncodeRules(t RulesTable) ([]byte, error) {
	if err := checkRules(t); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rulesFile{Kind: 1, Format: FormatVersion, RulesTable: t}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DecodeRules parses rules.json, refusing unknown keys, another format,
// trailing bytes, lists out of order and references to entries the table
// does not hold.
func DecodeRules(data []byte) (RulesTable, error) {
	var f rulesFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return RulesTable{}, &CorruptError{Path: RulesPath, Msg: err.Error()}
	}
	if rest := data[dec.InputOffset():]; string(rest) != "\n" {
		return RulesTable{}, &CorruptError{Path: RulesPath, Msg: "rules.json must be one JSON object followed by one LF; the file is truncated or has extra bytes"}
	}
	switch {
	case f.Kind != 1:
		return RulesTable{}, &CorruptError{Path: RulesPath, Msg: "not a cairn rules table"}
	case f.Format != FormatVersion:
		return RulesTable{}, &CorruptError{Path: RulesPath, Msg: fmt.Sprintf("format %d, this cairn reads %d; run cairn build", f.Format, FormatVersion)}
	}
	if err := checkRules(f.RulesTable); err != nil {
		return RulesTable{}, err
	}
	return f.RulesTable, nil
}

// checkRules requires every list sorted by its unique key and every
// reference to name an entry of the table.
func checkRules(t RulesTable) error {
	bad := func(format string, args ...any) error {
		return &CorruptError{Path: RulesPath, Msg: fmt.Sprintf(format, args...)}
	}
	sortedBy := func(what string, n int, key func(int) string) (map[string]bool, error) {
		keys := make(map[string]bool, n)
		for i := range n {
			k := key(i)
			if i > 0 && key(i-1) >= k {
				return nil, bad("%s %q is out of order or repeated; entries are sorted by their key", what, k)
			}
			keys[k] = true
		}
		return keys, nil
	}
	voices, err := sortedBy("voice", len(t.Voices), func(i int) string { return t.Voices[i].Name })
	if err != nil {
		return err
	}
	terms, err := sortedBy("term", len(t.Terms), func(i int) string { return t.Terms[i].ID })
	if err != nil {
		return err
	}
	notes, err := sortedBy("note", len(t.Notes), func(i int) string { return t.Notes[i].Target })
	if err != nil {
		return err
	}
	suggestions, err := sortedBy("suggestion", len(t.Suggestions), func(i int) string { return t.Suggestions[i].Op })
	if err != nil {
		return err
	}
	if _, err := sortedBy("rules file", len(t.Files), func(i int) string { return t.Files[i] }); err != nil {
		return err
	}
	for i, p := range t.Places {
		if i > 0 && comparePlaces(t.Places[i-1], p) >= 0 {
			return bad("place %q %v is out of order or repeated; places are sorted by folder, then files", p.Folder, p.Files)
		}
		if p.Voice != "" && !voices[p.Voice] {
			return bad("place %q names voice %q, which the table does not hold", p.Folder, p.Voice)
		}
		for _, ref := range []struct {
			what string
			ids  []string
			in   map[string]bool
		}{{"term", p.Terms, terms}, {"term", p.KeepAsIs, terms}, {"note", p.Notes, notes}, {"suggestion", p.Suggestions, suggestions}} {
			for _, id := range ref.ids {
				if !ref.in[id] {
					return bad("place %q names %s %q, which the table does not hold", p.Folder, ref.what, id)
				}
			}
		}
	}
	return nil
}

// comparePlaces orders places by folder, then by their file lists (the
// default point's empty list first).
func comparePlaces(a, b RulesPlace) int {
	return cmp.Or(strings.Compare(a.Folder, b.Folder), slices.Compare(a.Files, b.Files))
}

// SortRulesPlaces puts places in the order EncodeRules requires.
func SortRulesPlaces(ps []RulesPlace) { slices.SortFunc(ps, comparePlaces) }
