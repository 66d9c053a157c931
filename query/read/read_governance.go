package read

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/provenance"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// readTopUses is how many content files a term read lists under its
// usage, most uses first.
const readTopUses = 5

// Statuses of a log operation read by its id, beside govern's suggested
// and contested.
const (
	opKept     = "kept"     // a person's keep decided it
	opDropped  = "dropped"  // a person's drop decided it
	opRecorded = "recorded" // nothing open or decided stands on it
)

// resolver folds the governance's log, as the by-location answer does.
func resolver(g *load.Governance) *govern.Resolver {
	return govern.New(govern.Governance{
		DefaultVoice: g.Config.Governance.DefaultVoice, Points: g.Config.Governance.Points,
		Axes: g.Config.Governance.Axes, Voices: g.Voices, Terms: g.Terms, Log: g.Log,
	})
}

// term reads term:<id> from the terms store, with the log's history of
// it and its usage in content as of the last build.
func (r *reader) term(id string) (*Answer, bool, error) {
	g, err := r.governance()
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(g.Terms, func(t model.Term) bool { return t.ID == id })
	if i < 0 {
		return r.target(termScheme + id)
	}
	t := g.Terms[i]
	a := &Answer{URI: termScheme + id, Kind: kindTerm, Title: t.Term, Source: g.Config.Layers.Governance + "/terms.yaml"}
	add := func(field, value string) {
		if value != "" {
			a.Fields = append(a.Fields, render.KV{Field: field, Value: value})
		}
	}
	add("term", t.Term)
	add("status", t.Status)
	add("kind", t.Kind)
	add("replacement", t.Replacement)
	add("pattern", t.Pattern)
	add("definition", t.Definition)
	add("language", t.Language)
	add("paths", strings.Join(t.Paths, ", "))
	add("axes", axesText(t.Axes))
	add("valid_from", t.ValidFrom)
	add("valid_until", t.ValidUntil)
	add("note", t.Note)
	if inForce, ok := resolver(g).TermOf(id); ok {
		add("established_by", inForce.EstablishedBy)
	} else {
		add("in_force", "no: proposed and not kept by a person, or dropped")
	}
	a.History = history(g.Log, termScheme+id)
	fresh := provenance.Usage(r.ctx, r.root, g.Config)
	a.Index = &render.IndexState{Path: artifacts.ManifestPath, State: string(fresh.State), Reason: fresh.Reason}
	a.Usage = &Usage{AsOf: "the last build"}
	if fresh.State == corpus.StateUsed {
		sum, found, _, err := fresh.Lookup(id, readTopUses)
		if err != nil {
			return nil, false, err
		}
		a.Usage.Counted = found
		a.Usage.Total, a.Usage.Files = sum.Total, sum.Files
		for _, u := range sum.Top {
			a.Usage.Top = append(a.Usage.Top, Use{Path: u.Path, Count: u.Count})
		}
	}
	return a, true, nil
}

func axesText(axes map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(axes)) {
		parts = append(parts, k+"="+axes[k])
	}
	return strings.Join(parts, ", ")
}

// history is every operation of the log on target, in log order.
func history(log []model.LogOp, target string) []Op {
	var out []Op
	for _, op := range log {
		if op.Target == target {
			out = append(out, Op{Op: op.Op, At: op.At, Actor: op.Actor, Kind: op.Kind, Text: op.Text, Ref: op.Ref})
		}
	}
	return out
}

// voice reads voice:<name>: the profile's fields and its writing brief.
func (r *reader) voice(name string) (*Answer, bool, error) {
	g, err := r.governance()
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(g.Voices, func(v model.Voice) bool { return v.Name == name })
	if i < 0 {
		return nil, false, nil
	}
	v := g.Voices[i]
	a := &Answer{URI: voiceScheme + name, Kind: kindVoice, Title: v.Name, Source: v.Path,
		ValidFrom: v.ValidFrom, ValidUntil: v.ValidUntil}
	if d := strings.TrimSpace(v.Description); d != "" {
		a.Fields = append(a.Fields, render.KV{Field: "description", Value: d})
	}
	a.Brief = govern.VoiceBrief(v).Lines
	return a, true, nil
}

// operation reads one operation of the notes log by its op id: what it
// recorded, where it stands now, and the history of its target.
func (r *reader) operation(id string) (*Answer, bool, error) {
	g, err := r.governance()
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(g.Log, func(op model.LogOp) bool { return op.Op == id })
	if i < 0 {
		return nil, false, nil
	}
	op := g.Log[i]
	res := resolver(g)
	a := &Answer{URI: id, Kind: kindOperation, Title: op.Target, Source: g.Config.Layers.Governance + "/log.jsonl"}
	note := &Note{Op: op.Op, At: op.At, Actor: op.Actor, Session: op.Session, Kind: op.Kind, Target: op.Target,
		Text: op.Text, Paths: op.Paths, Axes: axesText(op.Axes), Evidence: op.Evidence,
		ValidFrom: op.ValidFrom, ValidUntil: op.ValidUntil, Ref: op.Ref, Status: opRecorded}
	if op.Kind == model.OpSuggest {
		a.Kind = kindSuggestion
	}
	if s, ok := res.SuggestionOf(op.Op); ok {
		note.Status, note.ContestedBy = s.Status, s.ContestedBy
	} else if d, ok := decision(g.Log[i+1:], op); ok {
		note.Status, note.DecidedBy = opKept, d.Op
		if d.Kind == model.OpDrop {
			note.Status = opDropped
		}
	} else if op.Kind == model.OpKeep && isPersonActor(op.Actor) {
		note.Status, note.DecidedBy = opKept, op.Op
	}
	if n, ok := res.NoteOf(op.Target); ok && note.Status == opKept {
		a.Kind = kindNote
		note.NoteText = n.Text
	}
	a.Note = note
	a.History = history(g.Log, op.Target)
	return a, true, nil
}

// decision is the last keep or drop a person recorded on op's target
// after op (for a suggestion) or that refers to op.
func decision(later []model.LogOp, op model.LogOp) (model.LogOp, bool) {
	var d model.LogOp
	found := false
	for _, l := range later {
		if l.Target != op.Target || !isPersonActor(l.Actor) || (l.Kind != model.OpKeep && l.Kind != model.OpDrop) {
			continue
		}
		if l.Ref == "" || l.Ref == op.Op || op.Kind != model.OpSuggest {
			d, found = l, true
		}
	}
	return d, found
}

func isPersonActor(actor string) bool { return strings.HasPrefix(actor, "person:") }

// noteScheme is the scheme of a note's target in the log.
const noteScheme = govern.TargetNote + ":"

// target reads note:<slug>, or a term:<id> the terms store does not hold,
// by the log alone: the note a person kept, if one stands, the open
// suggestions, and every operation on it. ok is false when the log never
// named it.
func (r *reader) target(uri string) (*Answer, bool, error) {
	g, err := r.governance()
	if err != nil {
		return nil, false, err
	}
	hist := history(g.Log, uri)
	if len(hist) == 0 {
		return nil, false, nil
	}
	kind := kindNote
	if strings.HasPrefix(uri, termScheme) {
		kind = kindTerm
	}
	a := &Answer{URI: uri, Kind: kind, Title: uri, Source: g.Config.Layers.Governance + "/log.jsonl", History: hist}
	add := func(field, value string) {
		if value != "" {
			a.Fields = append(a.Fields, render.KV{Field: field, Value: value})
		}
	}
	res := resolver(g)
	if n, ok := res.NoteOf(uri); ok {
		add("text", n.Text)
		add("kept_by", n.Op+" ("+n.Actor+")")
		add("evidence", strings.Join(n.Evidence, ", "))
		add("scope", n.Scope.Text())
		add("valid_from", n.ValidFrom)
		add("valid_until", n.ValidUntil)
	} else if kind == kindTerm {
		add("in_force", "no: the terms store does not hold it")
	} else {
		add("in_force", "no: no person kept a note here")
	}
	for _, h := range hist {
		if s, ok := res.SuggestionOf(h.Op); ok {
			add("open", fmt.Sprintf("%s %s by %s: %s", s.Op, s.Status, s.Actor, s.Text))
		}
	}
	return a, true, nil
}
