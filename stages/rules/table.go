package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/govern"
)

// tableRefs collects the entries the places of the table refer to.
type tableRefs struct {
	voices      map[string]govern.Brief
	voiceWindow map[string][2]string
	terms       map[string]artifacts.RulesTerm
	notes       map[string]artifacts.RulesNote
	suggestions map[string]artifacts.RulesSuggestion
}

// buildTable renders the answers into the rules table: the default point,
// then per folder one place per group of files with the same answer.
func buildTable(root govern.Answer, folders []*folder, carriers map[string][]string, from, until string) (artifacts.RulesTable, error) {
	refs := tableRefs{voices: map[string]govern.Brief{}, voiceWindow: map[string][2]string{},
		terms: map[string]artifacts.RulesTerm{}, notes: map[string]artifacts.RulesNote{},
		suggestions: map[string]artifacts.RulesSuggestion{}}
	t := artifacts.RulesTable{Holds: artifacts.RulesSpan{From: from, Until: until}}
	t.Places = append(t.Places, refs.place("", nil, root, carriers[""]))
	answerKeys := map[string]string{} // place key → answer key
	for _, fo := range folders {
		var files []string
		if fo.ruled || fo.path == "" {
			files = carriers[fo.path]
		}
		var keys []string
		groups := map[string]*artifacts.RulesPlace{}
		for _, f := range fo.files {
			key, ok := answerKeys[f.key]
			if !ok {
				key = answerKey(f.ans)
				answerKeys[f.key] = key
			}
			g := groups[key]
			if g == nil {
				p := refs.place(fo.path, nil, f.ans, files)
				g = &p
				groups[key] = g
				keys = append(keys, key)
			}
			g.Files = append(g.Files, f.name)
		}
		for _, k := range keys {
			t.Places = append(t.Places, *groups[k])
		}
		t.Files = append(t.Files, files...)
	}
	artifacts.SortRulesPlaces(t.Places)
	slices.Sort(t.Files)
	t.Files = slices.Compact(t.Files)
	for _, name := range slices.Sorted(maps.Keys(refs.voices)) {
		b, w := refs.voices[name], refs.voiceWindow[name]
		t.Voices = append(t.Voices, artifacts.RulesVoice{Name: name, Description: b.Description, Brief: b.Lines, ValidFrom: w[0], ValidUntil: w[1]})
	}
	for _, id := range slices.Sorted(maps.Keys(refs.terms)) {
		t.Terms = append(t.Terms, refs.terms[id])
	}
	for _, id := range slices.Sorted(maps.Keys(refs.notes)) {
		t.Notes = append(t.Notes, refs.notes[id])
	}
	for _, id := range slices.Sorted(maps.Keys(refs.suggestions)) {
		t.Suggestions = append(t.Suggestions, refs.suggestions[id])
	}
	return t, nil
}

// place renders one answer as a place, recording what it refers to.
func (r tableRefs) place(folder string, files []string, a govern.Answer, rulesFiles []string) artifacts.RulesPlace {
	p := artifacts.RulesPlace{Folder: folder, Files: files, Point: a.Point.Name, Binding: a.Binding, Glob: a.Glob,
		Axes: a.Point.Axes, VoiceFrom: a.VoiceBinding, Coverage: a.Coverage.Grade, Missing: a.Coverage.Missing,
		RulesFiles: slices.Clone(rulesFiles)}
	if a.Voice != nil {
		p.Voice = a.Voice.Name
		r.voices[a.Voice.Name] = govern.VoiceBrief(*a.Voice)
		r.voiceWindow[a.Voice.Name] = [2]string{a.Voice.ValidFrom, a.Voice.ValidUntil}
	}
	for _, tr := range a.Transitions {
		p.Transitions = append(p.Transitions, artifacts.RulesTransition{Kind: tr.Kind, Name: tr.Name,
			ValidFrom: tr.ValidFrom, ValidUntil: tr.ValidUntil, Closed: tr.Closed, Now: tr.Now})
	}
	for _, t := range a.Terms {
		p.Terms = append(p.Terms, t.ID)
		r.terms[t.ID] = tableTerm(t)
	}
	for _, t := range a.KeepAsIs {
		p.KeepAsIs = append(p.KeepAsIs, t.ID)
		r.terms[t.ID] = tableTerm(t)
	}
	for _, n := range a.Notes {
		p.Notes = append(p.Notes, n.Target)
		r.notes[n.Target] = artifacts.RulesNote{Target: n.Target, Text: n.Text, Op: n.Op, Actor: n.Actor, Evidence: n.Evidence,
			Paths: n.Scope.Paths, Axes: n.Scope.Axes, ValidFrom: n.ValidFrom, ValidUntil: n.ValidUntil}
	}
	for _, s := range a.Suggestions {
		p.Suggestions = append(p.Suggestions, s.Op)
		rs := artifacts.RulesSuggestion{Op: s.Op, Target: s.Target, Kind: s.Kind, Status: s.Status, Text: s.Text,
			Actor: s.Actor, Session: s.Session, Evidence: s.Evidence, ContestedBy: s.ContestedBy,
			Paths: s.Scope.Paths, Axes: s.Scope.Axes, ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil}
		if st := s.Standing; st != nil {
			rs.Standing = &artifacts.RulesStanding{Sessions: st.Sessions, Corrections: st.Corrections, Merges: st.Merges, MergedIn: st.MergedIn}
		}
		r.suggestions[s.Op] = rs
	}
	return p
}

func tableTerm(t govern.Term) artifacts.RulesTerm {
	return artifacts.RulesTerm{ID: t.ID, Term: t.Term.Term, Status: t.Status, Kind: t.Kind, Replacement: t.Replacement,
		Pattern: t.Pattern, Definition: t.Definition, Language: t.Language, Note: t.Note, Paths: t.Scope.Paths,
		Axes: t.Scope.Axes, ValidFrom: t.ValidFrom, ValidUntil: t.ValidUntil, EstablishedBy: t.EstablishedBy}
}

// answerKey is everything a place records of an answer, as a comparable
// string: files whose answers share it share a place.
func answerKey(a govern.Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%v|%s|%s|%s", a.Point.Name, a.Binding, a.Glob, a.Point.Axes, voiceName(a.Voice), a.VoiceBinding, a.Coverage.Grade)
	for _, t := range a.Transitions {
		b.WriteString("|t:" + t.Text())
	}
	for _, t := range a.Terms {
		b.WriteString("|b:" + t.ID)
	}
	for _, t := range a.KeepAsIs {
		b.WriteString("|k:" + t.ID)
	}
	for _, n := range a.Notes {
		b.WriteString("|n:" + n.Target)
	}
	for _, s := range a.Suggestions {
		b.WriteString("|s:" + s.Op)
	}
	return b.String()
}
