package artifacts

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Rules file names: the instruction files agents load, where cairn writes
// its section.
const (
	AgentsFile = "AGENTS.md"
	ClaudeFile = "CLAUDE.md"
)

// The delimiters of cairn's section in a rules file. Each stands alone on
// its line; cairn owns the lines from the opening one through the closing
// one and nothing else in the file.
const (
	RulesOpen  = "<!-- cairn:rules -->"
	RulesClose = "<!-- /cairn:rules -->"
)

// IsRulesFile reports whether a base-relative path names a rules file:
// an AGENTS.md or CLAUDE.md outside the artifacts folder.
func IsRulesFile(p string) bool {
	base := path.Base(p)
	return (base == AgentsFile || base == ClaudeFile) && !strings.HasPrefix(p, Dir+"/")
}

// SectionError is a rules file whose delimiters cairn cannot pair: where
// its own section ends is unknown, so it cannot tell its text from the
// user's.
type SectionError struct {
	Line int // 1-based line of the delimiter at fault
	Msg  string
}

func (e *SectionError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// FindRulesSection locates cairn's section in a rules file: data[start:end]
// runs from the start of the opening delimiter's line through the end of
// the closing delimiter's line, its line break included. found is false
// when the file holds no section. A delimiter without its partner, or a
// second section, is a *SectionError.
//
// A delimiter inside a fenced code block of the user's text (``` or ~~~)
// is an example, not a delimiter: it is left alone. cairn's own section
// never holds a fence, so a fence opened inside it is a hand edit that the
// section's stamp catches.
func FindRulesSection(data []byte) (start, end int, found bool, err error) {
	return findSection(data, RulesOpen, RulesClose, "cairn")
}

// The delimiters of the sections kapi, cairn's predecessor, wrote into
// rules files: its rules, and a pointer to its voice. A project moved with
// `cairn import kapi` still holds them; cairn's section replaces them.
var legacySections = [][2]string{
	{"<!-- kapi:rules -->", "<!-- /kapi:rules -->"},
	{"<!-- kapi:voice -->", "<!-- /kapi:voice -->"},
}

// LegacySections locates the sections of kapi's a rules file holds (see
// legacySections), each as its [start, end) like FindRulesSection's, in
// file order. A kapi section whose delimiters do not pair is not one, and
// is left as the user's text.
func LegacySections(data []byte) [][2]int {
	var out [][2]int
	for _, d := range legacySections {
		if !bytes.Contains(data, []byte(d[0])) {
			continue
		}
		if start, end, found, err := findSection(data, d[0], d[1], "kapi"); found && err == nil {
			out = append(out, [2]int{start, end})
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

// findSection is FindRulesSection for the section between open and close,
// which owner writes.
func findSection(data []byte, openLine, closeLine, owner string) (start, end int, found bool, err error) {
	start, line, open := -1, 0, 0
	fence := "" // the fence the user's text is inside, "" when none
	for off := 0; off < len(data); {
		line++
		next := bytes.IndexByte(data[off:], '\n')
		lineEnd := len(data)
		if next >= 0 {
			lineEnd = off + next + 1
		}
		text := string(bytes.TrimSpace(data[off:lineEnd]))
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark some editors write
		}
		if start < 0 || found { // the user's text
			f := fenceOf(text)
			switch {
			case fence == "" && f != "":
				fence = f
				off = lineEnd
				continue
			case fence != "":
				if f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(text[len(f):]) == "" {
					fence = "" // the fence closes
				}
				off = lineEnd
				continue
			}
		}
		switch text {
		case openLine:
			switch {
			case start >= 0 && !found:
				return 0, 0, false, &SectionError{Line: line, Msg: fmt.Sprintf("a second %s before the first section was closed on line %d; remove one of them", openLine, open)}
			case found:
				return 0, 0, false, &SectionError{Line: line, Msg: fmt.Sprintf("a second %s section; %s writes one per file, so remove this one (from %s through %s)", owner, owner, openLine, closeLine)}
			}
			start, open = off, line
		case closeLine:
			if start < 0 || found {
				return 0, 0, false, &SectionError{Line: line, Msg: fmt.Sprintf("%s without a %s above it; remove the line or restore the opening one", closeLine, openLine)}
			}
			end, found = lineEnd, true
		}
		off = lineEnd
	}
	if start >= 0 && !found {
		return 0, 0, false, &SectionError{Line: open, Msg: fmt.Sprintf("the %s section opened here is never closed; add a line %s where it ends, or delete the section and build again", owner, closeLine)}
	}
	if !found {
		return 0, 0, false, nil
	}
	return start, end, true, nil
}

// fenceOf returns the fence a line opens or closes (its run of three or
// more backquotes or tildes), or "".
func fenceOf(line string) string {
	for _, c := range "`~" {
		n := len(line) - len(strings.TrimLeft(line, string(c)))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// RulesSectionOf returns cairn's section in a rules file (nil when it holds
// none or its delimiters do not pair).
func RulesSectionOf(data []byte) []byte {
	start, end, found, err := FindRulesSection(data)
	if !found || err != nil {
		return nil
	}
	return data[start:end]
}

// ImportsAgents reports whether a CLAUDE.md imports the AGENTS.md beside
// it: a line that is just @AGENTS.md (or @./AGENTS.md). Such a file gets
// no section of its own; the one it imports carries it.
func ImportsAgents(data []byte) bool {
	for line := range bytes.Lines(data) {
		switch string(bytes.TrimSpace(line)) {
		case "@" + AgentsFile, "@./" + AgentsFile:
			return true
		}
	}
	return false
}

// StampFile stamps an output. A rules file is stamped by its section
// alone: cairn owns only that part, so text a person writes around it
// never makes the output look changed.
func StampFile(f File) FileStamp {
	if f.staged != nil { // never a rules file: those are small, and written whole
		return FileStamp{Path: f.Path, Bytes: f.staged.bytes, XXHash: f.staged.xxhash}
	}
	data := f.Data
	if IsRulesFile(f.Path) {
		data = RulesSectionOf(data)
	}
	return FileStamp{Path: f.Path, Bytes: int64(len(data)), XXHash: Hash(data)}
}
