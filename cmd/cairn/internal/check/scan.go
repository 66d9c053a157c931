package check

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/markdown"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/usage"
)

// check finds every finding of one file's text; masked is the text with
// its frontmatter and code blanked (maskCode), and bodyLine the line the
// text starts on after the frontmatter. It returns the findings and the
// rules they name.
func (s *ruleset) check(w *wordings, path, text, masked string, bodyLine int) ([]Finding, []Rule) {
	prose := maskDirectives(masked)
	pos := newPositions(text)
	var out []Finding
	var rules []Rule
	fired := map[string]bool{}
	add := func(rule Rule, start, end int, msg string) {
		f := Finding{File: path, Severity: rule.Severity, Message: msg, Rule: rule.ID}
		f.Line, f.Column = pos.at(start)
		f.EndLine, f.EndColumn = pos.at(end)
		if end > start {
			f.Match = display(text[start:end])
		}
		out = append(out, f)
		if !fired[rule.ID] {
			fired[rule.ID] = true
			rules = append(rules, rule)
		}
	}
	var matches []usage.Match
	if len(s.terms) > 0 {
		matches = w.finder.Find(prose)
	}
	var endorsed []usage.Match
	for _, m := range matches {
		if s.endorsed[m.Term] {
			endorsed = append(endorsed, m)
		}
	}
	for _, m := range matches {
		r, ok := s.terms[m.Term]
		if !ok {
			continue
		}
		if r.kind != kindName && insideLonger(m, endorsed) {
			continue // the file writes a longer wording the store asks for
		}
		found := text[m.Start:m.End]
		switch r.kind {
		case kindDiscouraged:
			msg := "do not write " + shown(found)
			if r.term.Replacement != "" {
				msg = "write " + quoted(r.term.Replacement) + ", not " + shown(found)
			}
			if r.term.Status != model.StatusForbidden {
				msg += " (" + r.term.Status + ")"
			}
			add(r.rule, m.Start, m.End, msg)
		case kindName:
			if !exactName(found, r.term.Term.Term, r.term.Pattern != "") {
				add(r.rule, m.Start, m.End, "write "+quoted(r.term.Term.Term)+" exactly as shown, not "+shown(found)+": it is a name")
			}
		case kindKeep:
			add(r.rule, m.Start, m.End, shown(found)+" renames "+quoted(r.term.Term.Term)+" only "+where(r)+"; here "+quoted(r.term.Term.Term)+" is correct")
		}
	}
	for _, p := range s.prohibited {
		for _, loc := range p.re.FindAllStringSubmatchIndex(prose, -1) {
			if start, end := wording(prose, loc); end > start {
				add(p.rule, start, end, "avoid "+shown(text[start:end])+": "+patternText(p))
			}
		}
	}
	for _, p := range s.required {
		if !p.re.MatchString(prose) {
			start := pos.lineStart(bodyLine)
			add(p.rule, start, start, "missing: "+patternText(p))
		}
	}
	return out, rules
}

// insideLonger reports whether m lies inside a longer match of spans.
func insideLonger(m usage.Match, spans []usage.Match) bool {
	for _, e := range spans {
		if e.Start <= m.Start && m.End <= e.End && e.End-e.Start > m.End-m.Start {
			return true
		}
	}
	return false
}

// wording is the part of a pattern's match a finding quotes and points
// at: the first group that matched, when the pattern has groups (in
// (?i)\b(simply|just)\b the word), else the match without the white space
// at its edges, so that the characters a pattern matches only as context
// are not shown as the wording to avoid.
func wording(prose string, loc []int) (start, end int) {
	for g := 2; g+1 < len(loc); g += 2 {
		if loc[g] >= 0 && loc[g+1] > loc[g] {
			return loc[g], loc[g+1]
		}
	}
	start, end = loc[0], loc[1]
	for start < end && isSpaceByte(prose[start]) {
		start++
	}
	for end > start && isSpaceByte(prose[end-1]) {
		end--
	}
	return start, end
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// where says where a kept rename holds, as the rules files say it.
func where(r termRule) string {
	line := r.rule.Short
	if _, rest, ok := strings.Cut(line, "That rename holds only "); ok {
		return strings.TrimSuffix(rest, ".")
	}
	return "elsewhere"
}

// patternText is what a pattern finding says: the pattern's description,
// or the pattern itself when it has none.
func patternText(p patternRule) string {
	_, desc, _ := strings.Cut(p.rule.Short, "): ")
	return strings.TrimSuffix(desc, ".")
}

// exactName reports whether found writes the name exactly: its wording
// with each run of white space as one space. A name with a pattern over
// its endings (Harbor, pattern s?) must start with the name as written.
func exactName(found, name string, pattern bool) bool {
	found, name = display(found), display(name)
	if pattern {
		return strings.HasPrefix(found, name)
	}
	return found == name
}

// shown is wording found in a file inside quotes, on one line.
func shown(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return `"` + display(s) + `"`
}

// positions maps byte offsets of a text to 1-based lines and rune columns.
type positions struct {
	text  string
	lines []int // byte offset of each line's start
}

func newPositions(text string) positions {
	p := positions{text: text, lines: []int{0}}
	for i := range len(text) {
		if text[i] == '\n' {
			p.lines = append(p.lines, i+1)
		}
	}
	return p
}

// at is the line and column of byte offset off.
func (p positions) at(off int) (line, col int) {
	i := sort.SearchInts(p.lines, off+1) - 1
	return i + 1, utf8.RuneCountInString(p.text[p.lines[i]:off]) + 1
}

// lineStart is the byte offset line starts at (the text's end past its
// last line).
func (p positions) lineStart(line int) int {
	if line < 1 {
		line = 1
	}
	if line > len(p.lines) {
		return len(p.text)
	}
	return p.lines[line-1]
}

// blank stands in for every byte of text a check does not read: not a
// word rune, not white space, so no term or pattern matches across it.
const blank = 0

// maskCode returns text with its frontmatter (the lines before bodyLine)
// and its code blanked, byte for byte: fenced and indented code blocks
// and inline code spans, as CommonMark reads them (package markdown).
// Line breaks are kept, so every offset is the text's.
func maskCode(text string, bodyLine int) string {
	b := []byte(text)
	blankRange := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = blank
			}
		}
	}
	body := 0
	for line := 1; line < bodyLine && body < len(text); line++ {
		end := strings.IndexByte(text[body:], '\n')
		if end < 0 {
			body = len(text)
			break
		}
		body += end + 1
	}
	blankRange(0, body)
	for _, c := range markdown.Code(text[body:]) {
		blankRange(body+c.From, body+c.To)
	}
	return string(b)
}
