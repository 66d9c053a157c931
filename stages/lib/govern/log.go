package govern

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Target kinds, by the scheme of a log target.
const (
	TargetNote = "note"
	TargetTerm = "term"
)

// Suggestion kinds, as the by-location answer names them.
const (
	KindRule = "rule" // a suggestion about a term
	KindNote = "note" // a note in prose
)

// Suggestion statuses.
const (
	StatusSuggested = "suggested" // nobody has decided
	StatusContested = "contested" // conflicting operations: see ContestedBy
)

// Standing is the evidence for and against a term suggestion, as plain
// counts; it is never reduced to a score.
type Standing struct {
	// Sessions is how many sessions recorded the suggestion (an operation
	// without a session counts as one of its own).
	Sessions int
	// Corrections counts correct operations toward it.
	Corrections int
	// Merges counts merge operations that carried it; MergedIn lists their
	// texts (such as "#412"), in op-id order.
	Merges   int
	MergedIn []string
	// Uses is how often content uses the term, from the usage artifact. It
	// is nil unless Governance.Usage is set: the rules files never show it,
	// and the query stage fills it from usage.tsv.
	Uses *int
}

// Suggestion is a position nobody has decided on, or one whose decisions
// conflict.
type Suggestion struct {
	Target      string // note:<slug> or term:<id>
	Kind        string // KindRule or KindNote
	Status      string // StatusSuggested or StatusContested
	Text        string
	Actor       string
	Session     string
	Evidence    []string
	Op          string   // the operation that recorded it
	ContestedBy []string // the conflicting operations, sorted; empty unless contested
	// Standing is set for term suggestions only.
	Standing *Standing
	Scope    Scope
	// ValidFrom and ValidUntil are the suggestion's own window.
	ValidFrom, ValidUntil string
}

// Note is a note in prose that a person kept.
type Note struct {
	Target   string
	Text     string
	Op       string // the person's keep that established it
	Actor    string // that person
	Evidence []string
	Scope    Scope
	// ValidFrom and ValidUntil are the note's window.
	ValidFrom, ValidUntil string
}

// decision is a target's folded state.
type decision int

const (
	undecided decision = iota
	established
	dropped
	contested
)

// target is one note or term after folding its operations.
type target struct {
	id, kind string
	state    decision
	// decider is the person's keep or drop in force (nil when undecided).
	decider *model.LogOp
	// conflicts are the op ids of decisions that conflict (state contested).
	conflicts []string
	text      string
	scope     Scope
	// scoped reports whether some operation set the scope (for terms, the
	// store's scope applies otherwise).
	scoped                bool
	validFrom, validUntil string
	evidence              []string
	live                  []position
	standing              Standing
	sessions              map[string]bool
}

// position is one live suggestion: an operation and the text it stands for
// (empty for an agent's position against).
type position struct {
	op   model.LogOp
	text string
}

// isPerson reports whether an actor is a person (only a person decides).
func isPerson(actor string) bool { return strings.HasPrefix(actor, "person:") }

// foldLog folds the operation log into targets, sorted by target id.
func foldLog(ops []model.LogOp) []*target {
	ops = slices.Clone(ops)
	slices.SortStableFunc(ops, func(a, b model.LogOp) int { return strings.Compare(a.Op, b.Op) })
	byID := make(map[string]model.LogOp, len(ops))
	for _, op := range ops {
		byID[op.Op] = op
	}
	targets := map[string]*target{}
	var order []string
	for _, op := range ops {
		t := targets[op.Target]
		if t == nil {
			kind, _, _ := strings.Cut(op.Target, ":")
			t = &target{id: op.Target, kind: kind, sessions: map[string]bool{}}
			targets[op.Target] = t
			order = append(order, op.Target)
		}
		t.apply(op, byID)
	}
	slices.Sort(order)
	out := make([]*target, 0, len(order))
	for _, id := range order {
		t := targets[id]
		t.standing.Sessions = len(t.sessions)
		out = append(out, t)
	}
	return out
}

// textOf is the text an operation stands for: its own, else that of the
// operation it refers to, followed back through the log.
func textOf(op model.LogOp, byID map[string]model.LogOp) string {
	for range len(byID) + 1 {
		if op.Text != "" || op.Ref == "" {
			return op.Text
		}
		next, ok := byID[op.Ref]
		if !ok {
			return ""
		}
		op = next
	}
	return ""
}

// origin is the suggestion an operation traces back to through its refs,
// within the same target; ok is false when there is none.
func origin(op model.LogOp, byID map[string]model.LogOp) (model.LogOp, bool) {
	for range len(byID) + 1 {
		if op.Kind == model.OpSuggest {
			return op, true
		}
		next, ok := byID[op.Ref]
		if !ok || next.Target != op.Target {
			return model.LogOp{}, false
		}
		op = next
	}
	return model.LogOp{}, false
}

// apply folds one operation into t.
func (t *target) apply(op model.LogOp, byID map[string]model.LogOp) {
	person := isPerson(op.Actor)
	switch op.Kind {
	case model.OpSuggest:
		t.recordSession(op)
		t.live = slices.DeleteFunc(t.live, func(p position) bool {
			return op.Session != "" && p.op.Actor == op.Actor && p.op.Session == op.Session
		})
		t.live = append(t.live, position{op: op, text: op.Text})
	case model.OpKeep, model.OpDrop:
		if person {
			t.decide(op, byID)
			return
		}
		if op.Kind == model.OpKeep {
			t.recordSession(op)
			t.live = append(t.live, position{op: op, text: textOf(op, byID)})
			return
		}
		// An agent withdraws its own suggestion, or stands against one.
		if i := slices.IndexFunc(t.live, func(p position) bool { return p.op.Op == op.Ref && p.op.Actor == op.Actor }); i >= 0 {
			t.live = slices.Delete(t.live, i, i+1)
			return
		}
		t.live = append(t.live, position{op: op})
	case model.OpWiden:
		if person {
			t.scope, t.scoped = Scope{Paths: op.Paths, Axes: op.Axes}, true
			if op.ValidFrom != "" || op.ValidUntil != "" {
				t.validFrom, t.validUntil = op.ValidFrom, op.ValidUntil
			}
		}
	case model.OpReset:
		if person {
			t.state, t.decider, t.conflicts = undecided, nil, nil
			if o, ok := origin(op, byID); ok && !slices.ContainsFunc(t.live, func(p position) bool { return p.op.Op == o.Op }) {
				t.live = append(t.live, position{op: o, text: o.Text})
			}
		}
	case model.OpCorrect:
		t.standing.Corrections++
		if person && op.Text != "" && t.state == established {
			t.text = op.Text
		}
	case model.OpMerge:
		t.standing.Merges++
		if op.Text != "" {
			t.standing.MergedIn = append(t.standing.MergedIn, op.Text)
		}
	}
}

func (t *target) recordSession(op model.LogOp) {
	key := "session:" + op.Session
	if op.Session == "" {
		key = "op:" + op.Op
	}
	t.sessions[key] = true
}

// decide applies a person's keep or drop.
func (t *target) decide(op model.LogOp, byID map[string]model.LogOp) {
	if t.decider != nil && op.Ref < t.decider.Op && (op.Kind != t.decider.Kind || t.state == contested) {
		// Decided without seeing the decision in force, the other way.
		if t.state != contested {
			t.conflicts = []string{t.decider.Op}
		}
		t.conflicts = append(t.conflicts, op.Op)
		t.state = contested
		d := op
		t.decider = &d
		return
	}
	d := op
	t.decider, t.conflicts, t.live = &d, nil, nil
	if op.Kind == model.OpDrop {
		t.state = dropped
		return
	}
	t.state = established
	t.text = textOf(op, byID)
	src := op
	if o, ok := origin(op, byID); ok {
		src = o
	}
	t.evidence = mergeSorted(src.Evidence, op.Evidence)
	switch {
	case len(op.Paths) > 0 || len(op.Axes) > 0:
		t.scope, t.scoped = Scope{Paths: op.Paths, Axes: op.Axes}, true
	case !t.scoped && (len(src.Paths) > 0 || len(src.Axes) > 0):
		t.scope, t.scoped = Scope{Paths: src.Paths, Axes: src.Axes}, true
	}
	switch {
	case op.ValidFrom != "" || op.ValidUntil != "":
		t.validFrom, t.validUntil = op.ValidFrom, op.ValidUntil
	case src.ValidFrom != "" || src.ValidUntil != "":
		t.validFrom, t.validUntil = src.ValidFrom, src.ValidUntil
	}
}

// mergeSorted returns the sorted union of a and b without duplicates.
func mergeSorted(a, b []string) []string {
	out := slices.Concat(a, b)
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// note returns the established note of t, if t is one.
func (t *target) note() (Note, bool) {
	if t.kind != TargetNote || t.state != established || strings.TrimSpace(t.text) == "" {
		return Note{}, false
	}
	return Note{Target: t.id, Text: t.text, Op: t.decider.Op, Actor: t.decider.Actor,
		Evidence: t.evidence, Scope: t.scope, ValidFrom: t.validFrom, ValidUntil: t.validUntil}, true
}

// suggestions lists t's undecided positions (and, when decisions
// conflict, the target itself), less any that only repeat the
// established text. Scope and window are each operation's own.
func (t *target) suggestions(byID map[string]model.LogOp) []Suggestion {
	kind := KindNote
	if t.kind == TargetTerm {
		kind = KindRule
	}
	entry := func(op model.LogOp, text string) Suggestion {
		s := Suggestion{Target: t.id, Kind: kind, Status: StatusSuggested, Text: text, Actor: op.Actor,
			Session: op.Session, Evidence: op.Evidence, Op: op.Op,
			Scope: Scope{Paths: op.Paths, Axes: op.Axes}, ValidFrom: op.ValidFrom, ValidUntil: op.ValidUntil}
		if t.kind == TargetTerm {
			st := t.standing
			st.MergedIn = slices.Clone(st.MergedIn)
			s.Standing = &st
		}
		return s
	}
	var out []Suggestion
	if t.state == contested {
		src := *t.decider
		if o, ok := origin(src, byID); ok {
			src = o
		}
		s := entry(src, textOf(src, byID))
		s.Status, s.ContestedBy = StatusContested, slices.Sorted(slices.Values(t.conflicts))
		return []Suggestion{s}
	}
	var live []position
	for _, p := range t.live {
		if t.state == established && normalText(p.text) == normalText(t.text) {
			continue // the established list already states it
		}
		live = append(live, p)
	}
	var opposed []string
	if positionsConflict(live) {
		for _, p := range live {
			opposed = append(opposed, p.op.Op)
		}
		slices.Sort(opposed)
	}
	for _, p := range live {
		s := entry(p.op, p.text)
		if opposed != nil {
			s.Status = StatusContested
			s.ContestedBy = slices.DeleteFunc(slices.Clone(opposed), func(id string) bool { return id == p.op.Op })
		}
		out = append(out, s)
	}
	return out
}

// positionsConflict reports whether live positions disagree: two texts
// that differ, from different actors or sessions.
func positionsConflict(live []position) bool {
	for i := range live {
		for j := i + 1; j < len(live); j++ {
			a, b := live[i], live[j]
			if normalText(a.text) != normalText(b.text) && (a.op.Actor != b.op.Actor || a.op.Session != b.op.Session) {
				return true
			}
		}
	}
	return false
}

// normalText compares texts regardless of case and spacing.
func normalText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// sortSuggestions orders suggestions newest first, by op id then target.
func sortSuggestions(s []Suggestion) {
	slices.SortFunc(s, func(a, b Suggestion) int {
		return cmp.Or(strings.Compare(b.Op, a.Op), strings.Compare(a.Target, b.Target))
	})
}
