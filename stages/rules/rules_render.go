package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/govern"
	"github.com/cairn-kb/cairn/stages/model"
)

// Commands the sections name.
const (
	checkCommand   = "cairn build --check"
	suggestCommand = "cairn note suggest"
	suggestTool    = "context_note"
)

// maxHeadingFiles is how many file names a part's heading lists before
// counting the rest.
const maxHeadingFiles = 5

// caps bound the lists of a section and the length of each line.
type caps struct{ rules, notes, lineRunes int }

// section accumulates the lines of one section. Every line holding
// stored text is capped; cairn's own sentences are not.
type section struct {
	caps  caps
	lines []string
}

// line adds a line holding stored text, capped.
func (s *section) line(text string) { s.lines = append(s.lines, capLine(text, s.caps.lineRunes)) }

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
	return "`cairn context --at " + folder + "`"
}

// display names a folder for a reader: "docs/api/", or "the project root".
func display(folder string) string {
	if folder == "" {
		return "the project root"
	}
	return folder + "/"
}

// writable reports whether a term is a rule an agent writing the source
// can break: a wording to avoid, a capitalised name, or a name to keep
// untranslated. A term that only names a concept is not one. cairn has no
// translation loop writing a target language, so every language is a
// source language here: a rule's language never keeps it out.
func writable(t govern.Term) bool {
	return t.Discouraged() || t.Kind == model.KindName || t.Kind == model.KindKeep
}

// writableIDs lists the ids of the rules among terms, in their order.
func writableIDs(terms []govern.Term) []string {
	var ids []string
	for _, t := range terms {
		if writable(t) {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// quoted renders stored wording inside quotes, as a plain line fragment.
func quoted(s string) string { return `"` + strings.ReplaceAll(plain(s), `"`, `'`) + `"` }

// ruleLines renders the rules among terms (kept in their order: discouraged
// first). Wordings to avoid are keyed by the wording to use, so several
// wordings with one replacement make one line.
func ruleLines(terms []govern.Term) []string {
	type rename struct {
		use    string
		avoid  []string
		notes  []string
		plainT bool // no replacement: one line per term
	}
	var renames []*rename
	byUse := map[string]*rename{}
	var names []string
	for _, t := range terms {
		if !writable(t) {
			continue
		}
		note := plain(t.Note)
		switch {
		case t.Discouraged():
			avoid := quoted(t.Term.Term)
			if t.Status == model.StatusDeprecated {
				avoid += " (deprecated)"
			}
			key := strings.ToLower(plain(t.Replacement))
			r := byUse[key]
			if r == nil || key == "" {
				r = &rename{use: t.Replacement, plainT: key == ""}
				renames = append(renames, r)
				if key != "" {
					byUse[key] = r
				}
			}
			r.avoid = append(r.avoid, avoid)
			if note != "" {
				r.notes = append(r.notes, note)
			}
		case t.Kind == model.KindName:
			names = append(names, withNote("Write "+quoted(t.Term.Term)+" exactly as shown: it is a name.", note))
		case t.Kind == model.KindKeep:
			what := "Keep " + quoted(t.Term.Term) + " as it is, untranslated"
			if lang := plain(t.Language); lang != "" {
				what += " (" + lang + ")"
			}
			names = append(names, withNote(what+".", note))
		}
	}
	var out []string
	for _, r := range renames {
		line := "Do not write " + orList(r.avoid) + "."
		if !r.plainT {
			line = "Write " + quoted(r.use) + ", not " + orList(r.avoid) + "."
		}
		out = append(out, withNote(line, strings.Join(r.notes, " ")))
	}
	return append(out, names...)
}

func withNote(line, note string) string {
	if note == "" {
		return line
	}
	return line + " " + note
}

// orList joins items as `a`, `a or b`, `a, b or c`.
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// keepLine renders a rule held elsewhere and not here: the rule's old
// wording stays correct here. The new wording's own variants are never
// listed: they are wrong everywhere.
func keepLine(t govern.Term) string {
	where := whereText(t.Scope)
	if t.Replacement == "" {
		return quoted(t.Term.Term) + " is allowed here; the rule against it holds only " + where + "."
	}
	return quoted(t.Term.Term) + " is correct here; do not rename it to " + quoted(t.Replacement) + ". That rename holds only " + where + "."
}

// whereText says where a scope holds: "in docs/api/**", "where market is
// emea", or both.
func whereText(s govern.Scope) string {
	var parts []string
	if len(s.Paths) > 0 {
		var ps []string
		for _, p := range s.Paths {
			ps = append(ps, plain(p))
		}
		parts = append(parts, "in "+strings.Join(ps, ", "))
	}
	var axes []string
	for _, name := range slices.Sorted(maps.Keys(s.Axes)) {
		axes = append(axes, plain(name)+" is "+plain(s.Axes[name]))
	}
	if len(axes) > 0 {
		parts = append(parts, "where "+strings.Join(axes, " and "))
	}
	return strings.Join(parts, " ")
}

// noteLines renders notes (newest first) as one line each; notes with
// identical text make one line.
func noteLines(notes []govern.Note) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range notes {
		text := plain(n.Text)
		key := strings.ToLower(text)
		if text == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, text)
	}
	return out
}

// voiceBlock renders the writing brief of a voice, built from its values
// made plain one by one.
func (s *section) voiceBlock(level string, v *model.Voice) {
	b := govern.VoiceBrief(plainVoice(*v))
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
		s.line("## Writing rules for " + plain(folder) + "/")
		s.own("")
		s.line("These add to the rules written in the folders above; where the two differ, these hold for the files in " + plain(folder) + "/ and below.")
	}
	s.own("")
	s.line("`cairn build` writes this section from " + plain(governanceDir) + "/: change the voices, terms.yaml or the notes log there, not these lines.")
	s.own("`" + checkCommand + "` fails while it is out of date.")
}

// outro closes a section with the way to record an observation.
func (s *section) outro() {
	s.own("")
	s.own("To record a name, a spelling or a point of style this section does not list, run `" + suggestCommand + "` (MCP tool " + suggestTool + "); a person decides whether it becomes a rule.")
}

// partHeading names the files a part of a folder's section is for.
func partHeading(files []string) string {
	names := make([]string, 0, maxHeadingFiles+1)
	for i, f := range files {
		if i == maxHeadingFiles {
			names = append(names, fmt.Sprintf("and %d more", len(files)-maxHeadingFiles))
			break
		}
		names = append(names, plain(f))
	}
	return "### For " + strings.Join(names, ", ")
}
