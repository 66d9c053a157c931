package rules

import (
	"fmt"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Commands the sections name.
const (
	checkCommand   = "cairn build --check"
	contentCheck   = "cairn check"
	suggestCommand = "cairn note suggest"
	// suggestTool is the MCP tool of cairn mcp that records the same
	// suggestion, for an agent connected to it.
	suggestTool = "context_note"
)

// caps bound the lists of a section and the length of each line.
type caps struct{ rules, notes, lineRunes int }

// section accumulates the lines of one section. Every line holding
// stored text is capped; cairn's own sentences are not.
type section struct {
	caps  caps
	lines []string
}

// line adds a line holding stored text, capped.
func (s *section) line(text string) {
	s.lines = append(s.lines, govern.CapLine(text, s.caps.lineRunes))
}

// own adds one of cairn's own lines, which no stored text reaches.
func (s *section) own(text string) { s.lines = append(s.lines, text) }

// block writes a heading and its list, separated from what precedes by a
// blank line; an empty list writes nothing.
func (s *section) block(heading string, items []string) {
	if len(items) == 0 {
		return
	}
	s.lines = append(s.lines, "")
	s.line(heading)
	for _, it := range items {
		s.line("- " + it)
	}
}

// text renders the section between its delimiters, LF-terminated.
func (s *section) text() string {
	return artifacts.RulesOpen + "\n" + strings.Join(s.lines, "\n") + "\n" + artifacts.RulesClose + "\n"
}

// capped cuts a list to its first limit items and adds one that counts
// the rest, in words rest gives, naming the command that lists them all.
func capped(items []string, limit int, rest func(n int) string) []string {
	if limit <= 0 || len(items) <= limit {
		return items
	}
	return append(items[:limit:limit], rest(len(items)-limit))
}

// overflow words the line that counts what a capped list leaves out:
// "1 more rule holds here; ..." or "3 more rules hold here; ...".
func overflow(one, many, folder, lists string) func(int) string {
	return func(n int) string {
		what := one
		if n != 1 {
			what = many
		}
		return fmt.Sprintf("%d %s; %s %s.", n, what, contextCommand(folder), lists)
	}
}

// contextCommand is the command that lists everything at a folder.
func contextCommand(folder string) string {
	if folder == "" {
		folder = "."
	}
	return "`cairn context --at " + inertPath(folder) + "`"
}

// inertPath is a folder path as the section may quote it: folder names
// are anyone's to choose, so one is made plain like stored text, and a
// backquote, which would end the code span around it, becomes a quote.
func inertPath(p string) string { return strings.ReplaceAll(govern.Plain(p), "`", "'") }

// display names a folder for a reader: "docs/api/", or "the project root".
func display(folder string) string {
	if folder == "" {
		return "the project root"
	}
	return inertPath(folder) + "/"
}

// writableIDs lists the ids of the rules among terms, in their order.
func writableIDs(terms []govern.Term) []string {
	var ids []string
	for _, t := range terms {
		if govern.Writable(t) {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// voiceBlock renders the writing brief of a voice, built from its values
// made plain one by one.
func (s *section) voiceBlock(level string, v *model.Voice) {
	b := govern.VoiceBriefForRules(govern.PlainVoice(*v))
	s.lines = append(s.lines, "")
	s.line(level + " Voice: " + b.Name)
	if b.Description != "" {
		s.line(b.Description)
	}
	for _, l := range b.Lines {
		s.line("- " + l)
	}
}

// intro opens a section: a heading, what the section is, and the check.
func (s *section) intro(folder, governanceDir string) {
	if folder == "" {
		s.own("## Writing rules for this project")
		s.own("")
		s.own("What applies to everything written in this repository; a folder with rules of its own has a section like this one in its own AGENTS.md and CLAUDE.md.")
	} else {
		s.line("## Writing rules for " + govern.Plain(folder) + "/")
		s.own("")
		s.line("These add to the rules written in the folders above; where the two differ, these hold for the files in " + govern.Plain(folder) + "/ and below.")
	}
	s.own("")
	s.line("`cairn build` writes this section from " + govern.Plain(governanceDir) + "/: change the voices, terms.yaml or the notes log there, not these lines.")
	s.own("`" + checkCommand + "` fails while it is out of date.")
	s.own("`" + contentCheck + "` checks what you write against these rules; run it on the files you change.")
}

// outro closes a section with the way to record an observation.
func (s *section) outro() {
	s.own("")
	s.own("To record a name, a spelling or a point of style this section does not list, run `" + suggestCommand + "` or call the MCP tool `" + suggestTool + "`; a person decides whether it becomes a rule.")
}

// partHeading names what a part of a folder's section is for: the
// patterns that bound its files to their point, one heading per pattern
// (patternOf), so that the heading holds however many files match.
func partHeading(patterns []string) string {
	return "### For " + strings.Join(patterns, " and ")
}

// patternOf says what bound a file to the point of its answer: the
// point's glob that matched it, the point its frontmatter names, or
// nothing (the files at no point).
func patternOf(a govern.Answer) string {
	switch a.Binding {
	case govern.BoundByPaths:
		return govern.Plain(a.Glob)
	case govern.BoundByFrontmatter:
		return "files marked point: " + govern.Plain(a.Point.Name)
	}
	return "the files at no point"
}
