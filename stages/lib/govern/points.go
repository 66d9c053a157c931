package govern

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Transition kinds: what kind of binding a transition skipped.
const (
	TransitionPoint = "point"
	TransitionVoice = "voice"
)

// Transition is a binding skipped because the day is outside its window:
// which profile stopped governing (or has not started), when, and what
// governs in its place.
type Transition struct {
	Kind string // TransitionPoint or TransitionVoice
	Name string
	// ValidFrom and ValidUntil are the skipped binding's window.
	ValidFrom, ValidUntil string
	// Closed is true when the window has closed (the day is after
	// ValidUntil), false when it has not opened yet.
	Closed bool
	// Now is what governs instead: a point or voice name, "" for the
	// default point or for no voice.
	Now string
}

// Text renders the transition as one sentence.
func (t Transition) Text() string {
	now := fmt.Sprintf("%s %q governs now", t.Kind, t.Now)
	switch {
	case t.Now == "" && t.Kind == TransitionPoint:
		now = "the default point governs now"
	case t.Now == "":
		now = "no voice governs now"
	}
	if t.Closed {
		return fmt.Sprintf("%s %q stopped governing after %s; %s", t.Kind, t.Name, t.ValidUntil, now)
	}
	return fmt.Sprintf("%s %q governs from %s; until then %s", t.Kind, t.Name, t.ValidFrom, strings.Replace(now, " now", "", 1))
}

// skipped records a binding outside its window; Now is filled once the
// resolution knows what governs instead.
func skipped(kind, name, from, until, day string) Transition {
	return Transition{Kind: kind, Name: name, ValidFrom: from, ValidUntil: until, Closed: until != "" && day > until}
}

// candidate is a point whose paths match a path, with its most specific
// matching glob.
type candidate struct {
	point  *model.Point
	glob   string
	prefix int
}

// resolvePoint decides the point at p: the frontmatter point: first, then
// the most specific point whose paths match (the longest literal glob
// prefix, then the point name, which is unique), then the default. A
// binding outside its window is skipped with a transition.
func (r *Resolver) resolvePoint(p Place, day string, a *Answer) {
	var skips []Transition
	defer func() {
		for i := range skips {
			skips[i].Now = a.Point.Name
		}
		a.Transitions = append(skips, a.Transitions...)
	}()
	if p.Point != "" {
		if i := slices.IndexFunc(r.points, func(pt model.Point) bool { return pt.Name == p.Point }); i >= 0 {
			pt := r.points[i]
			if inWindow(pt.ValidFrom, pt.ValidUntil, day) {
				a.Point, a.Binding = pt, BoundByFrontmatter
				return
			}
			skips = append(skips, skipped(TransitionPoint, pt.Name, pt.ValidFrom, pt.ValidUntil, day))
		}
	}
	if p.Path != "" {
		for _, c := range r.candidates(p.Path) {
			pt := *c.point
			if !inWindow(pt.ValidFrom, pt.ValidUntil, day) {
				skips = append(skips, skipped(TransitionPoint, pt.Name, pt.ValidFrom, pt.ValidUntil, day))
				continue
			}
			a.Point, a.Binding, a.Glob = pt, BoundByPaths, c.glob
			return
		}
	}
	a.Binding = BoundByDefault
}

// candidates lists the points whose paths match path, most specific first.
func (r *Resolver) candidates(path string) []candidate {
	var out []candidate
	for i := range r.points {
		best := candidate{prefix: -1}
		for _, g := range r.points[i].Paths {
			if ok, _ := doublestar.Match(g, path); ok && literalPrefix(g) > best.prefix {
				best = candidate{point: &r.points[i], glob: g, prefix: literalPrefix(g)}
			}
		}
		if best.point != nil {
			out = append(out, best)
		}
	}
	slices.SortFunc(out, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(y.prefix, x.prefix), strings.Compare(x.point.Name, y.point.Name))
	})
	return out
}

// resolveVoice decides the voice: the point's, else default_voice; a voice
// outside its window is skipped with a transition.
func (r *Resolver) resolveVoice(day string, a *Answer) {
	type choice struct{ name, binding string }
	var choices []choice
	if a.Point.Voice != "" {
		choices = append(choices, choice{a.Point.Voice, VoiceFromPoint})
	}
	if r.defaultVoice != "" && r.defaultVoice != a.Point.Voice {
		choices = append(choices, choice{r.defaultVoice, VoiceFromDefault})
	}
	var skips []Transition
	for _, c := range choices {
		v, ok := r.voices[c.name]
		if !ok {
			continue // load reports a voice that does not exist
		}
		if !inWindow(v.ValidFrom, v.ValidUntil, day) {
			skips = append(skips, skipped(TransitionVoice, v.Name, v.ValidFrom, v.ValidUntil, day))
			continue
		}
		copied := *v
		a.Voice, a.VoiceBinding = &copied, c.binding
		break
	}
	for i := range skips {
		if a.Voice != nil {
			skips[i].Now = a.Voice.Name
		}
	}
	a.Transitions = append(a.Transitions, skips...)
}
