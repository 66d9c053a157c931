package rules

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Input is what the rules stage reads.
type Input struct {
	Config     model.Config
	Voices     []model.Voice
	Terms      []model.Term
	Log        []model.LogOp
	Content    []model.ContentFile
	RulesFiles []model.RulesFile
	// AsOf is the day governance windows are evaluated at.
	AsOf time.Time
}

// Output is what the rules stage produced.
type Output struct {
	// Files are .cairn/rules.json and every rules file carrying cairn's
	// section, whole, sorted by path.
	Files []artifacts.File
	// Release are rules files losing the section, the text around it kept.
	Release []artifacts.File
	// Delete are rules files that held nothing but the section.
	Delete []string
	// After are the rules files as Sync will leave them, sorted by path:
	// the stage's key is computed over them.
	After []model.RulesFile
	// From and Until bound the days ("" unbounded) over which the output
	// stays the same.
	From, Until string
	// Warnings are rules files cairn would write but will not, because
	// they are links.
	Warnings []diag.Diagnostic
}

// Run resolves the governance at the root and every folder holding content
// files and renders the rules files and the rules table.
func Run(ctx context.Context, in Input) (Output, error) {
	var out Output
	cfg := in.Config.WithDefaults()
	g := cfg.Governance
	r := govern.New(govern.Governance{DefaultVoice: g.DefaultVoice, Points: g.Points, Axes: g.Axes,
		Voices: in.Voices, Terms: in.Terms, Log: in.Log})
	out.From, out.Until = r.Span(in.AsOf)
	c := caps{rules: g.Caps.Rules, notes: g.Caps.Notes, lineRunes: g.Caps.LineRunes}

	// The root's answer is what holds for a file in the root folder, as
	// its own AGENTS.md: a note or rule scoped by a path that covers the
	// root's files (*.md) is the root's, and a folder it does not hold in
	// says so. An empty path matched no glob, so no such note was ever a
	// root note.
	root := r.At(govern.Place{Path: artifacts.AgentsFile}, in.AsOf)
	placed := placeByEvidence(root.Notes, in.Content)
	root.Notes = notesPlacedFor(root.Notes, "", placed)
	folders := resolveFolders(r, in.Content, in.AsOf, placed)
	if err := ctx.Err(); err != nil {
		return out, err
	}
	decide(folders, root, c)
	sections := map[string]string{}
	rootSection := renderRoot(folders, root, c, cfg.Layers.Governance)
	if rootSection != "" {
		sections[""] = rootSection
	}
	for _, fo := range folders {
		if fo.path != "" && fo.ruled {
			s := section{caps: c}
			s.intro(fo.path, cfg.Layers.Governance)
			s.lines = append(s.lines, fo.body...)
			s.outro()
			sections[fo.path] = s.text()
		}
	}

	var ds diag.List
	carriers := planFiles(in.RulesFiles, caseTwins(in.Content), sections, &out, &ds)
	table, err := buildTable(root, folders, carriers, out.From, out.Until)
	if err != nil {
		return out, err
	}
	data, err := artifacts.EncodeRules(table)
	if err != nil {
		return out, err
	}
	out.Files = append(out.Files, artifacts.File{Path: artifacts.RulesPath, Data: data})
	slices.SortFunc(out.Files, func(a, b artifacts.File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(out.Release, func(a, b artifacts.File) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(out.Delete)
	out.Warnings = ds.Sorted()
	return out, ctx.Err()
}

// decide marks the folders that get a section and renders their bodies. A
// folder gets one when what it writes differs from what the nearest ruled
// folder above (or the root) writes, and its section would not repeat that
// folder's. Folders come sorted, so every folder above is decided first.
func decide(folders []*folder, root govern.Answer, c caps) {
	byPath := map[string]*folder{}
	rootRules, rootNotes := rootHeld(root)
	for _, fo := range folders {
		byPath[fo.path] = fo
		if fo.path == "" || len(fo.parts) == 0 {
			continue
		}
		above := nearestRuled(fo.path, byPath)
		fr := frame{root: root, rootRules: rootRules, rootNotes: rootNotes, voice: voiceName(root.Voice),
			notes: slices.Clone(root.Notes), held: map[string]bool{}}
		aboveSig := writtenSig(root)
		if above != nil {
			aboveSig = above.sig
			fr.voice = voiceName(above.parts[0].ans.Voice)
			for a := above; a != nil; a = nearestRuled(a.path, byPath) {
				for _, p := range a.parts {
					for _, n := range p.ans.Notes {
						if !rootNotes[n.Target] && !slices.ContainsFunc(fr.notes, func(m govern.Note) bool { return m.Target == n.Target }) {
							fr.notes = append(fr.notes, n)
						}
					}
				}
			}
			// Gathered folder by folder upward; listed newest first, like
			// every list of notes.
			slices.SortStableFunc(fr.notes, func(a, b govern.Note) int {
				return cmp.Or(strings.Compare(b.Op, a.Op), strings.Compare(a.Target, b.Target))
			})
		}
		if fo.sig == aboveSig {
			continue
		}
		for _, p := range fo.parts {
			for _, t := range p.ans.Terms {
				fr.held[t.ID] = true
			}
		}
		s := section{caps: c}
		writeParts(&s, fo.path, fo.parts, fr)
		if above != nil && slices.Equal(s.lines, reanchored(above, fo.path)) {
			continue
		}
		fo.ruled, fo.body = true, s.lines
	}
}

// reanchored is a ruled folder's body as it would read written for
// another folder: the commands it names point at that folder instead.
func reanchored(fo *folder, to string) []string {
	out := make([]string, len(fo.body))
	for i, l := range fo.body {
		out[i] = strings.ReplaceAll(l, contextCommand(fo.path), contextCommand(to))
	}
	return out
}

// nearestRuled returns the nearest ruled folder strictly above p (the root
// excluded), or nil.
func nearestRuled(p string, byPath map[string]*folder) *folder {
	for p != "" {
		p = path.Dir(p)
		if p == "." {
			p = ""
		}
		if fo := byPath[p]; p != "" && fo != nil && fo.ruled {
			return fo
		}
	}
	return nil
}

// renderRoot renders the root section, or "" when it would hold nothing
// but its frame.
func renderRoot(folders []*folder, root govern.Answer, c caps, governanceDir string) string {
	s := section{caps: c}
	if root.Voice != nil {
		s.voiceBlock("###", root.Voice)
	}
	s.block("### Say this, not that", capped(govern.RuleLinesFor(root.Terms, root.Voice), c.rules, overflow("more rule holds here", "more rules hold here", "", "lists them all")))
	s.block("### Notes a person kept", capped(govern.NoteLines(root.Notes), c.notes, overflow("older note is not listed here", "older notes are not listed here", "", "lists them all")))
	// The root's own files may be answered differently from the default
	// point (a point or a rule scoped to them): a part for each such group.
	rootSig := writtenSig(root)
	var parts []part
	for _, fo := range folders {
		if fo.path == "" {
			for _, p := range fo.parts {
				if p.sig != rootSig {
					parts = append(parts, p)
				}
			}
		}
	}
	rootRules, rootNotes := rootHeld(root)
	for _, p := range parts {
		held := map[string]bool{}
		for _, q := range parts {
			for _, t := range q.ans.Terms {
				held[t.ID] = true
			}
		}
		s.lines = append(s.lines, "")
		s.line(partHeading(p.patterns))
		writePart(&s, "####", "", p, frame{root: root, rootRules: rootRules, rootNotes: rootNotes,
			voice: voiceName(root.Voice), notes: root.Notes, held: held})
	}
	var ruled []string
	for _, fo := range folders {
		if fo.ruled {
			ruled = append(ruled, inertPath(fo.path)+"/ ("+inertPath(path.Join(fo.path, artifacts.AgentsFile))+")")
		}
	}
	s.block("### Folders with rules of their own", capped(ruled, c.rules, func(n int) string {
		return fmt.Sprintf("%d more with rules of their own; .cairn/rules.json lists every rules file.", n)
	}))
	if len(s.lines) == 0 {
		return ""
	}
	body := s.lines
	s.lines = nil
	s.intro("", governanceDir)
	s.lines = append(s.lines, body...)
	s.outro()
	return s.text()
}

// rootHeld returns what the root's section states: the ids of its rules
// and the targets of its notes.
func rootHeld(root govern.Answer) (rules, notes map[string]bool) {
	rules, notes = map[string]bool{}, map[string]bool{}
	for _, id := range writableIDs(root.Terms) {
		rules[id] = true
	}
	for _, n := range root.Notes {
		notes[n.Target] = true
	}
	return rules, notes
}
