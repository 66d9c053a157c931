package collect

import "strings"

// gitMessage is a commit message split as git splits it for
// `git log --format`: the subject is the first paragraph, its lines
// joined by spaces (%s), rawBody the rest (%b), and trailers the
// "Key: value" lines of the last paragraph when git would read it as
// trailers, continuation lines unfolded (%(trailers:only,unfold)). body
// is rawBody without that paragraph when it holds trailers alone, since
// they are kept on their own.
type gitMessage struct {
	subject, body, rawBody string
	trailers               []string
}

// gitGeneratedPrefixes start the trailer lines git itself writes; one of
// them lets a last paragraph that is only a quarter trailers count as
// trailers.
var gitGeneratedPrefixes = []string{"Signed-off-by: ", "(cherry picked from commit "}

// splitMessage splits a commit message the way git does (pretty.c and
// trailer.c), for the fields `git log` printed before cairn read commit
// objects itself.
func splitMessage(msg string) gitMessage {
	lines := strings.SplitAfter(msg, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var m gitMessage
	i := 0
	for i < len(lines) && blankLine(lines[i]) {
		i++
	}
	subjectAt := i
	var subject []string
	for ; i < len(lines) && !blankLine(lines[i]); i++ {
		subject = append(subject, strings.TrimRight(lines[i], " \t\r\n"))
	}
	m.subject = strings.Join(subject, " ")
	for i < len(lines) && blankLine(lines[i]) {
		i++
	}
	bodyAt := i
	m.rawBody = strings.Join(lines[bodyAt:], "")
	m.body = strings.TrimSpace(m.rawBody)
	start, end := trailerBlock(lines[subjectAt:])
	if start < 0 {
		return m
	}
	start, end = start+subjectAt, end+subjectAt
	alone := true
	var last *string
	for _, l := range lines[start:end] {
		l = strings.TrimRight(l, "\n")
		switch {
		case last != nil && l != "" && isSpace(l[0]):
			*last += "\n" + l
		case separatorAt(l) >= 1:
			m.trailers = append(m.trailers, l)
			last = &m.trailers[len(m.trailers)-1]
		default:
			last = nil
			alone = alone && strings.HasPrefix(l, "#")
		}
	}
	for i, t := range m.trailers {
		n := separatorAt(t)
		m.trailers[i] = strings.TrimSpace(t[:n]) + ": " + unfold(t[n+1:])
	}
	if alone && start >= bodyAt {
		m.body = strings.TrimSpace(strings.Join(lines[bodyAt:start], ""))
	}
	return m
}

// trailerBlock finds the trailer block of a message's lines from its
// subject on, start to end, or -1 when there is none: the last paragraph,
// not the first (the title),
// when all its lines are trailers or continuation lines, or when one of
// them is a line git generates and at least a quarter of them are
// trailers. Comment lines (#) and blank lines at the end are left out.
// This is find_trailer_block_start of git's trailer.c, with no trailer
// configured.
func trailerBlock(lines []string) (start, end int) {
	title := 0
	for title < len(lines) && (strings.HasPrefix(lines[title], "#") || !blankLine(lines[title])) {
		title++
	}
	end = len(lines)
	for end > 0 && (blankLine(lines[end-1]) || strings.HasPrefix(lines[end-1], "#")) {
		end--
	}
	trailers, others, continuations := 0, 0, 0
	recognised := false
	for i := end - 1; i >= title; i-- {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "#"):
			others += continuations
			continuations = 0
		case blankLine(l):
			others += continuations
			if recognised && trailers*3 >= others || trailers > 0 && others == 0 {
				return i + 1, end
			}
			return -1, -1
		case hasGeneratedPrefix(l):
			trailers++
			continuations = 0
			recognised = true
		case separatorAt(l) >= 1 && !isSpace(l[0]):
			trailers++
			continuations = 0
		case isSpace(l[0]):
			continuations++
		default:
			others += 1 + continuations
			continuations = 0
		}
	}
	return -1, -1
}

func hasGeneratedPrefix(l string) bool {
	for _, p := range gitGeneratedPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// separatorAt is where the ':' of a "Key: value" line is, or -1: the key
// is letters, digits and dashes, and may be followed by blanks before the
// colon (git's find_separator).
func separatorAt(l string) int {
	spaced := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == ':':
			return i
		case !spaced && (c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
		case i > 0 && (c == ' ' || c == '\t'):
			spaced = true
		default:
			return -1
		}
	}
	return -1
}

// unfold joins a trailer's value and its continuation lines with single
// spaces and trims it (git's unfold_value).
func unfold(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\n' {
			b.WriteByte(v[i])
			continue
		}
		for i+1 < len(v) && isSpace(v[i+1]) {
			i++
		}
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

// blankLine reports a line of blanks only.
func blankLine(l string) bool {
	return strings.TrimLeft(l, " \t\r\n") == ""
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// decodeText is a commit's text as UTF-8. Git writes the message in the
// encoding its header names, UTF-8 when none; ISO-8859-1, the one still
// met in old histories, maps byte for byte onto the first 256 code
// points. Any other encoding is kept as its bytes, and what is not UTF-8
// in them becomes U+FFFD in the document.
func decodeText(s, encoding string) string {
	switch strings.ToLower(encoding) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1":
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteRune(rune(s[i]))
		}
		return b.String()
	}
	return s
}
