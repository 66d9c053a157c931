package check

import (
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// A file may leave findings out where a rule's wording is meant, as in a
// style guide quoting the words it bans, with directives in comments,
// markdownlint's way:
//
//	<!-- cairn-disable-next-line terms.forbidden:sprint -->
//	<!-- cairn-disable-line -->
//	<!-- cairn-disable voice -->  …  <!-- cairn-enable voice -->
//
// A directive names rules by id or by the start of one up to a . : or #
// (terms, voice.prohibited:docs), and every rule when it names none. A
// block left open runs to the end of the file. Directives are read from
// the file's prose: one inside a code span or block is an example.
var directive = regexp.MustCompile(`cairn-(disable-next-line|disable-line|disable|enable)\b([^\n]*)`)

// suppression says which rules are left out on each line of a file.
type suppression struct {
	lines map[int][]string // 1-based line → selectors; "" selects every rule
}

// suppressions reads the directives of prose, the file's text with its
// code masked.
func suppressions(prose string) suppression {
	s := suppression{lines: map[int][]string{}}
	if !strings.Contains(prose, "cairn-") {
		return s
	}
	var open []string // the selectors of the blocks open
	for i, line := range strings.Split(prose, "\n") {
		n := i + 1
		s.lines[n] = append(s.lines[n], open...)
		for _, m := range directive.FindAllStringSubmatch(line, -1) {
			sels := selectors(m[2])
			switch m[1] {
			case "disable-next-line":
				s.lines[n+1] = append(s.lines[n+1], sels...)
			case "disable-line":
				s.lines[n] = append(s.lines[n], sels...)
			case "disable":
				open = append(open, sels...)
				s.lines[n] = append(s.lines[n], sels...)
			case "enable":
				if sels[0] == "" {
					open = nil
					continue
				}
				kept := open[:0:0]
				for _, o := range open {
					if !matchesAny(o, sels) {
						kept = append(kept, o)
					}
				}
				open = kept
			}
		}
	}
	return s
}

// maskDirectives blanks the directives of prose, each from its keyword to
// the end of its comment: the rule names a directive gives are not
// wording of the file's.
func maskDirectives(prose string) string {
	if !strings.Contains(prose, "cairn-") {
		return prose
	}
	b := []byte(prose)
	for _, m := range directive.FindAllStringIndex(prose, -1) {
		end := m[1]
		for _, close := range []string{"-->", "*/"} {
			if i := strings.Index(prose[m[0]:m[1]], close); i >= 0 && m[0]+i < end {
				end = m[0] + i
			}
		}
		for i := m[0]; i < end; i++ {
			b[i] = blank
		}
	}
	return string(b)
}

// selectors are the rule names after a directive, up to the comment's
// end; none is [""], every rule.
func selectors(rest string) []string {
	for _, end := range []string{"-->", "*/"} {
		if i := strings.Index(rest, end); i >= 0 {
			rest = rest[:i]
		}
	}
	words := strings.Fields(strings.ReplaceAll(rest, ",", " "))
	if len(words) == 0 {
		return []string{""}
	}
	return words
}

// matchesAny reports whether a selector of an open block falls under one
// of sels an enable names.
func matchesAny(sel string, sels []string) bool {
	for _, s := range sels {
		if s == "" || sel == s || selects(s, sel) {
			return true
		}
	}
	return false
}

// selects reports whether selector sel names rule id: every rule, the id
// itself, or a start of it that ends where the id has a . : or #.
func selects(sel, id string) bool {
	if sel == "" || sel == id {
		return true
	}
	return strings.HasPrefix(id, sel) && strings.ContainsRune(".:#", rune(id[len(sel)]))
}

// leaves reports whether the suppression leaves out a finding of rule id
// on line.
func (s suppression) leaves(line int, id string) bool {
	for _, sel := range s.lines[line] {
		if selects(sel, id) {
			return true
		}
	}
	return false
}

// ignoredRules are the selectors cairn.yaml's check.ignore gives the file
// at p, nil when none of its entries matches p.
func ignoredRules(ignores []model.CheckIgnore, p string) []string {
	var out []string
	for _, ig := range ignores {
		for _, g := range ig.Paths {
			if ok, _ := doublestar.Match(g, p); ok {
				if len(ig.Rules) == 0 {
					return []string{""}
				}
				out = append(out, ig.Rules...)
				break
			}
		}
	}
	return out
}
