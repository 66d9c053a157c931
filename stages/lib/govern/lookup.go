package govern

// This file finds one decision of the log by its operation or target,
// for an answer about that one entry (cairn read) rather than about a
// place.

// SuggestionOf is the open suggestion that operation op recorded, if op
// recorded one nobody has decided on.
func (r *Resolver) SuggestionOf(op string) (Suggestion, bool) {
	for _, s := range r.suggestions {
		if s.Op == op {
			return s, true
		}
	}
	return Suggestion{}, false
}

// NoteOf is the note a person kept for target, if one stands.
func (r *Resolver) NoteOf(target string) (Note, bool) {
	for _, n := range r.notes {
		if n.Target == target {
			return n, true
		}
	}
	return Note{}, false
}

// TermOf is the term in force under id, as the log leaves it: its scope,
// window and the keep that established it. ok is false for a term that
// is proposed and unkept, or dropped.
func (r *Resolver) TermOf(id string) (Term, bool) {
	for _, t := range r.terms {
		if t.ID == id {
			return t, true
		}
	}
	return Term{}, false
}
