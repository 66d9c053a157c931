package pack

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/lex"
)

// pastAuxiliaries follow "when" in a question about something that
// happened: "when did", "when was", "when has". "when is" and "when
// should" ask about a rule or a state, and are not among them.
var pastAuxiliaries = map[string]bool{"did": true, "was": true, "were": true, "has": true, "have": true, "had": true}

// eventQuestion reports whether a question asks for an event: it opens
// with "when" and a past or perfect auxiliary ("when did the docs build
// switch"), or with "which" or "what" and a word that names a source of
// the base ("which commit dropped", where a source is git-commits). The
// answer to such a question is a record: among items that match as many
// meaningful terms, records come first (see standing), as "last" puts
// dated evidence first. sources gives the base's source names; it is
// called only for a question that opens with which or what.
func eventQuestion(text string, sources func() ([]string, error)) (bool, error) {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) < 3 {
		return false, nil // a question needs a subject besides its opening
	}
	switch words[0] {
	case "when":
		return pastAuxiliaries[words[1]], nil
	case "which", "what":
		w := lex.Fold(words[1])
		if len(w) < lex.MinPlainRunes {
			return false, nil
		}
		names, err := sources()
		if err != nil {
			return false, err
		}
		return namesSource(w, names), nil
	}
	return false, nil
}

// namesSource reports whether the folded word w is, folded, a word of
// one of the source names ("commit" for git-commits, "ticket" for
// tickets).
func namesSource(w string, sources []string) bool {
	for _, s := range sources {
		for part := range strings.FieldsFuncSeq(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if lex.Fold(part) == w {
				return true
			}
		}
	}
	return false
}

// sourceNames lists the configured sources and those of the pool's
// records (a base may hold record documents of sources it does not
// configure), reading one row per distinct source.
func (e *engine) sourceNames() ([]string, error) {
	names := slices.Sorted(maps.Keys(e.Corpus.Config().Sources))
	seen := map[uint32]bool{}
	for _, s := range e.Pool {
		if s.Key.Flags&artifacts.KeyRecord == 0 || seen[s.Key.Source] {
			continue
		}
		seen[s.Key.Source] = true
		row, err := e.RowOf(s)
		if err != nil {
			return nil, err
		}
		names = append(names, row.Source)
	}
	return names, nil
}

// The orders a receipt names (Receipt.Order).
const (
	orderRelevance = "relevance"
	orderLast      = "last"
	orderEvent     = "event"
)

// orderName is the order the engine ranks by.
func (e *engine) orderName() string {
	switch {
	case e.Parsed.Last:
		return orderLast
	case e.Event:
		return orderEvent
	}
	return orderRelevance
}
