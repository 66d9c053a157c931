package govern

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// op builds a log operation; n orders it (op ids sort by n).
func op(n int, actor, kind, target, text string, mods ...func(*model.LogOp)) model.LogOp {
	o := model.LogOp{Op: fmt.Sprintf("20261102T0900%02d.000Z-00000%d", n, n%10), Actor: actor, Kind: kind, Target: target, Text: text}
	for _, m := range mods {
		m(&o)
	}
	return o
}

func ref(n int) func(*model.LogOp) {
	return func(o *model.LogOp) { o.Ref = fmt.Sprintf("20261102T0900%02d.000Z-00000%d", n, n%10) }
}
func session(s string) func(*model.LogOp)     { return func(o *model.LogOp) { o.Session = s } }
func paths(p ...string) func(*model.LogOp)    { return func(o *model.LogOp) { o.Paths = p } }
func until(d string) func(*model.LogOp)       { return func(o *model.LogOp) { o.ValidUntil = d } }
func evidence(e ...string) func(*model.LogOp) { return func(o *model.LogOp) { o.Evidence = e } }

const (
	agent  = "agent:claude-code"
	agent2 = "agent:codex"
	marc   = "person:marc"
	ines   = "person:ines"
)

// noteTargets and suggestionTargets summarise an answer for comparison.
func noteTexts(a Answer) []string {
	var out []string
	for _, n := range a.Notes {
		out = append(out, n.Target+" "+n.Text)
	}
	return out
}

type sugg struct {
	Target, Status, Text, Op string
	ContestedBy              []string
}

func suggs(a Answer) []sugg {
	var out []sugg
	for _, s := range a.Suggestions {
		out = append(out, sugg{s.Target, s.Status, s.Text, s.Op[len(s.Op)-1:], lastDigits(s.ContestedBy)})
	}
	return out
}

func lastDigits(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id[len(id)-1:])
	}
	return out
}

func TestLogFold(t *testing.T) {
	cases := []struct {
		name  string
		log   []model.LogOp
		notes []string
		sugg  []sugg
	}{
		{
			name: "an agent's suggest stays a suggestion",
			log:  []model.LogOp{op(1, agent, model.OpSuggest, "note:a", "Use sentence case.", session("s1"), evidence("docs/x.md"))},
			sugg: []sugg{{"note:a", StatusSuggested, "Use sentence case.", "1", nil}},
		},
		{
			name: "an agent's keep decides nothing",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case.", session("s1")),
				op(2, agent2, model.OpKeep, "note:a", "", ref(1), session("x9")),
			},
			sugg: []sugg{
				{"note:a", StatusSuggested, "Use sentence case.", "2", nil},
				{"note:a", StatusSuggested, "Use sentence case.", "1", nil},
			},
		},
		{
			name: "a person's keep establishes the note with the suggested text",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case.", session("s1")),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
			},
			notes: []string{"note:a Use sentence case."},
		},
		{
			name: "a person's drop removes it",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Never promise dates."),
				op(2, ines, model.OpDrop, "note:a", "Dates are fine once tagged.", ref(1)),
			},
		},
		{
			name: "a drop that saw the keep reverses it",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case."),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
				op(3, ines, model.OpDrop, "note:a", "", ref(2)),
			},
		},
		{
			name: "opposite decisions on the same suggestion are contested",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case.", session("s1")),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
				op(3, ines, model.OpDrop, "note:a", "", ref(1)),
			},
			sugg: []sugg{{"note:a", StatusContested, "Use sentence case.", "1", []string{"2", "3"}}},
		},
		{
			name: "a later decision that saw the conflict settles it",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case."),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
				op(3, ines, model.OpDrop, "note:a", "", ref(1)),
				op(4, marc, model.OpKeep, "note:a", "Use sentence case in headings.", ref(3)),
			},
			notes: []string{"note:a Use sentence case in headings."},
		},
		{
			name: "two sessions suggesting different wordings are contested",
			log: []model.LogOp{
				op(1, agent2, model.OpSuggest, "term:pull-cache", "Call them pull-through caches.", session("cx-1")),
				op(2, agent, model.OpSuggest, "term:pull-cache", "Call them proxy caches.", session("s-2")),
			},
			sugg: []sugg{
				{"term:pull-cache", StatusContested, "Call them proxy caches.", "2", []string{"1"}},
				{"term:pull-cache", StatusContested, "Call them pull-through caches.", "1", []string{"2"}},
			},
		},
		{
			name: "a second suggest in the same session replaces the first",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Draft wording.", session("s1")),
				op(2, agent, model.OpSuggest, "note:a", "Final wording.", session("s1")),
			},
			sugg: []sugg{{"note:a", StatusSuggested, "Final wording.", "2", nil}},
		},
		{
			name: "an agent withdraws its own suggestion",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Draft wording.", session("s1")),
				op(2, agent, model.OpDrop, "note:a", "", ref(1), session("s1")),
			},
		},
		{
			name: "reset returns a kept note to a suggestion",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case.", session("s1")),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
				op(3, marc, model.OpReset, "note:a", "", ref(2)),
			},
			sugg: []sugg{{"note:a", StatusSuggested, "Use sentence case.", "1", nil}},
		},
		{
			name: "a suggestion repeating the established text is not listed again",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case.", session("s1")),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
				op(3, agent2, model.OpSuggest, "note:a", "use  sentence case.", session("s9")),
				op(4, agent2, model.OpSuggest, "note:b", "Another thing.", session("s9")),
			},
			notes: []string{"note:a Use sentence case."},
			sugg:  []sugg{{"note:b", StatusSuggested, "Another thing.", "4", nil}},
		},
		{
			name: "a person's correct rewords an established note",
			log: []model.LogOp{
				op(1, agent, model.OpSuggest, "note:a", "Use sentence case."),
				op(2, marc, model.OpKeep, "note:a", "", ref(1)),
				op(3, ines, model.OpCorrect, "note:a", "Use sentence case in titles.", ref(2)),
			},
			notes: []string{"note:a Use sentence case in titles."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(Governance{Log: c.log}).At(Place{Path: "docs/x.md"}, today)
			if d := cmp.Diff(c.notes, noteTexts(a)); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.sugg, suggs(a)); d != "" {
				t.Errorf("suggestions (-want +got):\n%s", d)
			}
		})
	}
}

func TestNoteScopeAndWindow(t *testing.T) {
	log := []model.LogOp{
		op(1, agent, model.OpSuggest, "note:api", "Use placeholder tokens.", paths("docs/api/**"), evidence("docs/api/t.md")),
		op(2, marc, model.OpKeep, "note:api", "", ref(1), evidence("PR #12")),
		op(3, agent, model.OpSuggest, "note:gone", "Expired advice.", until("2026-11-09")),
		op(4, marc, model.OpKeep, "note:gone", "", ref(3)),
		op(5, agent, model.OpSuggest, "note:old", "Old suggestion.", until("2026-11-09")),
		op(6, agent, model.OpSuggest, "note:wide", "Say we.", paths("blog/**")),
		op(7, marc, model.OpKeep, "note:wide", "", ref(6)),
		op(8, marc, model.OpWiden, "note:wide", "", ref(7)),
	}
	r := New(Governance{Log: log})
	a := r.At(Place{Path: "docs/api/t.md"}, today)
	if d := cmp.Diff([]string{"note:wide Say we.", "note:api Use placeholder tokens."}, noteTexts(a)); d != "" {
		t.Errorf("docs/api notes, newest first (-want +got):\n%s", d)
	}
	if len(a.Suggestions) != 0 {
		t.Errorf("a suggestion outside its window is listed: %v", suggs(a))
	}
	n := a.Notes[1]
	want := Note{Target: "note:api", Text: "Use placeholder tokens.", Op: log[1].Op, Actor: marc,
		Evidence: []string{"PR #12", "docs/api/t.md"}, Scope: Scope{Paths: []string{"docs/api/**"}}}
	if d := cmp.Diff(want, n, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("established note (-want +got):\n%s", d)
	}
	if got := noteTexts(r.At(Place{Path: "docs/guide.md"}, today)); len(got) != 1 {
		t.Errorf("outside docs/api the scoped note holds: %v", got)
	}
	if got := noteTexts(r.At(Place{Path: "docs/guide.md"}, today.AddDate(0, 0, -2))); len(got) != 2 {
		t.Errorf("before its window closed, the expired note should hold: %v", got)
	}
}

func TestTermsThroughTheLog(t *testing.T) {
	terms := []model.Term{
		{ID: "pull-cache", Term: "pull-through cache", Status: model.StatusProposed},
		{ID: "blacklist", Term: "blacklist", Status: model.StatusForbidden, Replacement: "denylist"},
		{ID: "docker-image", Term: "docker image", Status: model.StatusDeprecated},
	}
	log := []model.LogOp{
		op(1, agent, model.OpSuggest, "term:pull-cache", "Prefer pull-through cache.", session("s1")),
		op(2, agent2, model.OpSuggest, "term:pull-cache", "Prefer pull-through cache.", session("s2")),
		op(3, agent, model.OpCorrect, "term:pull-cache", "", ref(1), session("s3")),
		op(4, marc, model.OpMerge, "term:pull-cache", "#412", ref(1)),
		op(5, ines, model.OpDrop, "term:blacklist", "Not our wording to police.", ref(0)),
		op(6, agent, model.OpSuggest, "term:docker-image", "Scope it to docs.", session("s4")),
		op(7, marc, model.OpKeep, "term:docker-image", "", ref(6), paths("docs/**")),
	}
	uses := map[string]int{"pull-cache": 7}
	r := New(Governance{Terms: terms, Log: log, Usage: func(id string) (int, bool) { n, ok := uses[id]; return n, ok }})
	a := r.At(Place{Path: "docs/x.md"}, today)
	if len(a.Terms) != 1 || a.Terms[0].ID != "docker-image" || a.Terms[0].EstablishedBy != log[6].Op {
		t.Fatalf("terms = %+v; want docker-image alone, established by op 7 (the proposal is no rule, blacklist was dropped)", a.Terms)
	}
	if got := r.At(Place{Path: "blog/x.md"}, today).Terms; len(got) != 0 {
		t.Errorf("the keep's scope docs/** does not hold in blog/: %+v", got)
	}
	if len(a.Suggestions) != 2 {
		t.Fatalf("suggestions = %v", suggs(a))
	}
	st := a.Suggestions[0].Standing
	uses7 := 7
	want := &Standing{Sessions: 2, Corrections: 1, Merges: 1, MergedIn: []string{"#412"}, Uses: &uses7}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("standing (-want +got):\n%s", d)
	}
	if a.Suggestions[0].Kind != KindRule || a.Suggestions[0].Status != StatusSuggested {
		t.Errorf("suggestion = %+v", a.Suggestions[0])
	}
	if a.Coverage.Grade != GradeCovered {
		t.Errorf("terms and an established term rule: grade %q", a.Coverage.Grade)
	}
	// Without the usage hook, uses stay unknown.
	if st := New(Governance{Terms: terms, Log: log}).At(Place{Path: "docs/x.md"}, today).Suggestions[0].Standing; st.Uses != nil {
		t.Errorf("uses = %d without a usage hook", *st.Uses)
	}
}
