package query

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/project"
)

// maxExcerptBytes bounds an excerpt.
const maxExcerptBytes = 280

// excerptSkip are fields whose text never makes an excerpt: they are on
// the metadata line already, or are not prose.
var excerptSkip = map[string]bool{project.FieldID: true, project.FieldTitle: true, project.FieldSlug: true, project.FieldURL: true}

// excerpt picks the passage of an item with the densest coverage of the
// query's terms: the sentence holding the most distinct terms (ties: the
// heavier field, then the earlier passage), not the first mention. An
// active project found by its exact identity keeps its commitment wording.
func (e *engine) excerpt(s *scored, it *project.Item) string {
	if len(e.terms) == 1 && s.direct && it.HasFlag(project.FlagActive) {
		var parts []string
		for _, name := range []string{"next_action", "blocker", "due"} {
			if f, ok := it.Field(name); ok && len(f.Values) > 0 {
				parts = append(parts, name+": "+f.Values[0])
			}
		}
		if len(parts) > 0 {
			return cut(strings.Join(parts, "; "))
		}
	}
	weight := map[string]int{}
	for _, f := range e.c.Fields() {
		weight[f.Name] = f.Weight
	}
	best, bestHits, bestWeight := "", 0, -1
	for _, f := range it.Fields {
		if excerptSkip[f.Name] || slices.ContainsFunc(it.Relations, func(r project.Relation) bool { return r.Field == f.Name }) {
			continue
		}
		for _, v := range f.Values {
			for _, passage := range passages(v) {
				hits := e.coverage(passage)
				if hits > bestHits || hits == bestHits && hits > 0 && weight[f.Name] > bestWeight || best == "" && hits == 0 && bestWeight < 0 {
					best, bestHits, bestWeight = passage, hits, weight[f.Name]
				}
			}
		}
	}
	return cut(best)
}

// coverage counts the distinct query terms a passage holds.
func (e *engine) coverage(passage string) int {
	words := queryWords(passage)
	lower := strings.ToLower(passage)
	n := 0
	for _, t := range e.parsed.Terms {
		if project.IsIdentifierShaped(t) {
			if strings.Contains(lower, t) {
				n++
			}
		} else if slices.Contains(words, t) {
			n++
		}
	}
	return n
}

// passages splits text into sentences and lines.
func passages(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if (line[i] == '.' || line[i] == '!' || line[i] == '?' || line[i] == ';') && (i+1 == len(line) || line[i+1] == ' ') {
				if p := strings.TrimSpace(line[start : i+1]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
		if p := strings.TrimSpace(line[start:]); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// cut trims a passage to maxExcerptBytes on a word boundary.
func cut(s string) string {
	s = strings.Join(strings.Fields(clean(s)), " ")
	if len(s) <= maxExcerptBytes {
		return s
	}
	i := maxExcerptBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if j := strings.LastIndexByte(s[:i], ' '); j > maxExcerptBytes/2 {
		i = j
	}
	return s[:i] + " …"
}
