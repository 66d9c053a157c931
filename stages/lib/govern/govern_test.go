package govern

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// today is the day every test asks on.
var today = time.Date(2026, 11, 10, 15, 4, 0, 0, time.UTC)

// fixture is a small governance: nested points, a market axis, two voices
// and a terms store with every kind of scope.
func fixture() Governance {
	return Governance{
		DefaultVoice: "plain",
		Axes: map[string]model.Axis{
			"market": {Contains: map[string][]string{"world": {"emea", "amer"}, "emea": {"fr", "de"}, "amer": {"us"}}},
		},
		Points: []model.Point{
			{Name: "docs", Paths: []string{"docs/**"}, Voice: "reference"},
			{Name: "docs-api", Paths: []string{"docs/api/**"}, Voice: "reference"},
			{Name: "docs-fr", Paths: []string{"docs/fr/**"}, Axes: map[string]string{"market": "fr"}},
			{Name: "docs-us", Paths: []string{"docs/us/**"}, Axes: map[string]string{"market": "us"}},
			// Same literal prefix as docs-api: the name decides.
			{Name: "a-api", Paths: []string{"docs/api/**/*.md"}, Voice: "plain"},
			{Name: "legacy", Paths: []string{"docs/legacy/**"}, Voice: "reference", ValidUntil: "2026-11-09"},
			{Name: "launch", Paths: []string{"blog/**"}, Voice: "blog"},
		},
		Voices: []model.Voice{
			{Name: "blog", Description: "Launch posts.", ValidUntil: "2026-11-09"},
			{Name: "plain", Description: "Plain words."},
			{Name: "reference", Description: "Reference docs."},
		},
		Terms: []model.Term{
			{ID: "harbor", Term: "Harbor", Status: model.StatusPreferred, Kind: model.KindName},
			{ID: "whitelist", Term: "whitelist", Status: model.StatusForbidden, Replacement: "allowlist"},
			{ID: "api-key", Term: "API key", Status: model.StatusForbidden, Replacement: "push token", Paths: []string{"docs/api/**"}},
			{ID: "referentiel", Term: "référentiel", Status: model.StatusForbidden, Replacement: "registre", Axes: map[string]string{"market": "emea"}},
			{ID: "robot", Term: "robot account", Status: model.StatusDeprecated, Replacement: "push token", ValidFrom: "2026-11-11"},
			{ID: "old-name", Term: "Old Name", Status: model.StatusDeprecated, Paths: []string{"docs/api/**"}, ValidUntil: "2026-11-01"},
			{ID: "pull-cache", Term: "pull-through cache", Status: model.StatusProposed},
		},
	}
}

func TestPointResolution(t *testing.T) {
	r := New(fixture())
	cases := []struct {
		place            Place
		point, binding   string
		glob, voice, via string
	}{
		{Place{Path: ""}, "", BoundByDefault, "", "plain", VoiceFromDefault},
		{Place{Path: "README.md"}, "", BoundByDefault, "", "plain", VoiceFromDefault},
		{Place{Path: "docs/guide.md"}, "docs", BoundByPaths, "docs/**", "reference", VoiceFromPoint},
		{Place{Path: "docs/api/tokens.md"}, "a-api", BoundByPaths, "docs/api/**/*.md", "plain", VoiceFromPoint},
		{Place{Path: "docs/api/spec.yaml"}, "docs-api", BoundByPaths, "docs/api/**", "reference", VoiceFromPoint},
		{Place{Path: "docs/fr/guide.md"}, "docs-fr", BoundByPaths, "docs/fr/**", "plain", VoiceFromDefault},
		{Place{Path: "docs/guide.md", Point: "docs-fr"}, "docs-fr", BoundByFrontmatter, "", "plain", VoiceFromDefault},
		{Place{Path: "notes/x.md", Point: "docs-us"}, "docs-us", BoundByFrontmatter, "", "plain", VoiceFromDefault},
	}
	for _, c := range cases {
		a := r.At(c.place, today)
		got := []string{a.Point.Name, a.Binding, a.Glob, a.Voice.Name, a.VoiceBinding}
		want := []string{c.point, c.binding, c.glob, c.voice, c.via}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%+v (-want +got):\n%s", c.place, d)
		}
		if len(a.Transitions) != 0 {
			t.Errorf("%+v: unexpected transitions %v", c.place, a.Transitions)
		}
	}
}

// TestWindows: a binding whose window closed yesterday is skipped with a
// transition note, and a term whose window has not opened is absent.
func TestWindows(t *testing.T) {
	r := New(fixture())

	// The blog voice closed yesterday: the fallback voice governs.
	a := r.At(Place{Path: "blog/launch.md"}, today)
	if a.Point.Name != "launch" || a.Voice == nil || a.Voice.Name != "plain" || a.VoiceBinding != VoiceFromDefault {
		t.Fatalf("blog: point %q voice %v via %q; want launch with the fallback voice plain", a.Point.Name, a.Voice, a.VoiceBinding)
	}
	want := []Transition{{Kind: TransitionVoice, Name: "blog", ValidUntil: "2026-11-09", Closed: true, Now: "plain"}}
	if d := cmp.Diff(want, a.Transitions); d != "" {
		t.Errorf("blog transitions (-want +got):\n%s", d)
	}
	if got := a.Transitions[0].Text(); got != `voice "blog" stopped governing after 2026-11-09; voice "plain" governs now` {
		t.Errorf("transition text = %q", got)
	}
	// The day before, the blog voice still governs.
	if a := r.At(Place{Path: "blog/launch.md"}, today.AddDate(0, 0, -1)); a.Voice.Name != "blog" || len(a.Transitions) != 0 {
		t.Errorf("on its last day: voice %q, transitions %v", a.Voice.Name, a.Transitions)
	}

	// The legacy point closed yesterday: the less specific docs point governs.
	a = r.At(Place{Path: "docs/legacy/old.md"}, today)
	if a.Point.Name != "docs" {
		t.Errorf("legacy: point %q, want docs", a.Point.Name)
	}
	want = []Transition{{Kind: TransitionPoint, Name: "legacy", ValidUntil: "2026-11-09", Closed: true, Now: "docs"}}
	if d := cmp.Diff(want, a.Transitions); d != "" {
		t.Errorf("legacy transitions (-want +got):\n%s", d)
	}

	// robot opens tomorrow: absent today (not even kept as it is), bound tomorrow.
	for day, wantRobot := range map[time.Time]bool{today: false, today.AddDate(0, 0, 1): true} {
		a := r.At(Place{Path: "docs/guide.md"}, day)
		if got := hasTerm(a.Terms, "robot"); got != wantRobot {
			t.Errorf("%s: robot bound = %v, want %v", Day(day), got, wantRobot)
		}
		if hasTerm(a.KeepAsIs, "robot") {
			t.Errorf("%s: a rule outside its window is kept as it is", Day(day))
		}
	}
	// old-name closed: neither bound in docs/api nor kept as it is elsewhere.
	for _, p := range []string{"docs/api/x.md", "docs/guide.md"} {
		a := r.At(Place{Path: p}, today)
		if hasTerm(a.Terms, "old-name") || hasTerm(a.KeepAsIs, "old-name") {
			t.Errorf("%s: a closed rule still shows", p)
		}
	}
}

// TestAxes: a term scoped to region emea applies at a point whose market
// is fr, which emea contains, and nowhere else.
func TestAxes(t *testing.T) {
	r := New(fixture())
	cases := map[string]bool{
		"docs/fr/guide.md": true,  // market fr, inside emea
		"docs/us/guide.md": false, // market us, inside amer
		"docs/guide.md":    false, // no market at all
		"":                 false, // the default point
	}
	for p, want := range cases {
		a := r.At(Place{Path: p}, today)
		if got := hasTerm(a.Terms, "referentiel"); got != want {
			t.Errorf("%q: référentiel bound = %v, want %v", p, got, want)
		}
		if !want && !hasTerm(a.KeepAsIs, "referentiel") {
			t.Errorf("%q: référentiel is held elsewhere and should be kept as it is here", p)
		}
	}
	// A frontmatter point carries its axes to any path.
	if a := r.At(Place{Path: "notes/x.md", Point: "docs-fr"}, today); !hasTerm(a.Terms, "referentiel") {
		t.Error("a file bound to docs-fr by frontmatter does not get the emea term")
	}
	ax := newAxes(fixture().Axes)
	if !ax.contains("market", "world", "fr") || ax.contains("market", "fr", "emea") || ax.contains("market", "amer", "fr") {
		t.Error("containment is not transitive and one-way")
	}
}

func TestTermsAndKeepAsIs(t *testing.T) {
	r := New(fixture())
	ids := func(ts []Term) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	a := r.At(Place{Path: "docs/api/tokens.md"}, today)
	// Discouraged first (forbidden by wording), then the rest; the proposal is no rule.
	if d := cmp.Diff([]string{"api-key", "whitelist", "harbor"}, ids(a.Terms)); d != "" {
		t.Errorf("docs/api terms (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"referentiel"}, ids(a.KeepAsIs)); d != "" {
		t.Errorf("docs/api keep as it is (-want +got):\n%s", d)
	}
	a = r.At(Place{Path: "docs/guide.md"}, today)
	if d := cmp.Diff([]string{"whitelist", "harbor"}, ids(a.Terms)); d != "" {
		t.Errorf("docs terms (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"api-key", "referentiel"}, ids(a.KeepAsIs)); d != "" {
		t.Errorf("docs keep as it is (-want +got):\n%s", d)
	}
	if got := a.KeepAsIs[0].Scope.Text(); got != "docs/api/**" {
		t.Errorf("scope text = %q", got)
	}
}

func hasTerm(ts []Term, id string) bool {
	for _, t := range ts {
		if t.ID == id {
			return true
		}
	}
	return false
}

func TestVoiceBrief(t *testing.T) {
	v := model.Voice{
		Name: "docs", Description: "Reference docs.",
		Tone:  model.Tone{Formality: "neutral", Guidelines: []string{"Lead with the task."}},
		Style: model.Style{Contractions: "avoid"},
		Patterns: model.Patterns{
			Prohibited: []model.Pattern{{Regex: `\bsimply\b`, Description: "Minimising words", Severity: "warning"}},
			Required:   []model.Pattern{{Regex: `^# `}},
		},
		Comments:    model.Comments{MaxLines: 4, Language: "en"},
		Examples:    []model.Example{{Before: "Simply run it!!", After: "Run it.", Why: "No minimising."}},
		Constraints: []string{"Commands run as written."},
	}
	want := Brief{Name: "docs", Description: "Reference docs.", Lines: []string{
		"Formality: neutral",
		"Guideline: Lead with the task.",
		"Contractions: avoid",
		"Avoid (warning): Minimising words. Pattern: `\\bsimply\\b`",
		"Required: text matching `^# `",
		"Code comments: at most 4 lines, written in en",
		`Example: instead of "Simply run it!!", write "Run it.". Why: No minimising.`,
		"Constraint: Commands run as written.",
	}}
	if d := cmp.Diff(want, VoiceBrief(v)); d != "" {
		t.Errorf("brief (-want +got):\n%s", d)
	}
	if b := VoiceBrief(model.Voice{Name: "bare"}); len(b.Lines) != 0 || b.Description != "" {
		t.Errorf("a voice that sets nothing has lines %q", b.Lines)
	}
}

func TestCoverage(t *testing.T) {
	voice := &model.Voice{Name: "v"}
	term := Term{Term: model.Term{ID: "t"}}
	cases := []struct {
		name string
		a    Answer
		want string
	}{
		{"nothing", Answer{}, GradeEmpty},
		{"suggestions only", Answer{Suggestions: []Suggestion{{}}}, GradeThin},
		{"voice", Answer{Voice: voice}, GradeThin},
		{"voice and suggestions", Answer{Voice: voice, Suggestions: []Suggestion{{}, {}}}, GradeThin},
		{"voice and terms", Answer{Voice: voice, Terms: []Term{term}}, GradeCovered},
		{"terms and a note", Answer{Terms: []Term{term}, Notes: []Note{{}}}, GradeCovered},
		{"an established term counts twice", Answer{Terms: []Term{{Term: model.Term{ID: "t"}, EstablishedBy: "op"}}}, GradeCovered},
	}
	for _, c := range cases {
		if got := grade(c.a); got.Grade != c.want {
			t.Errorf("%s: grade %q (kinds %v), want %q", c.name, got.Grade, got.Kinds, c.want)
		}
	}
	if got := grade(Answer{Voice: voice}); strings.Join(got.Missing, ",") != "terms,established" {
		t.Errorf("missing = %v", got.Missing)
	}
}

func TestSpan(t *testing.T) {
	r := New(fixture())
	// Boundaries: 2026-11-02 (old-name closed), 2026-11-10 (blog and legacy
	// closed), 2026-11-11 (robot opens).
	cases := []struct{ day, from, until string }{
		{"2026-11-10", "2026-11-10", "2026-11-10"},
		{"2026-11-05", "2026-11-02", "2026-11-09"},
		{"2026-01-01", "", "2026-11-01"},
		{"2027-01-01", "2026-11-11", ""},
	}
	for _, c := range cases {
		day, _ := time.Parse(time.DateOnly, c.day)
		from, until := r.Span(day)
		if from != c.from || until != c.until {
			t.Errorf("Span(%s) = %s..%s, want %s..%s", c.day, from, until, c.from, c.until)
		}
	}
}

// TestPlaceKey: places that share a key get the same answer on every day,
// and places whose answers differ never share one.
func TestPlaceKey(t *testing.T) {
	r := New(fixture())
	places := []Place{
		{}, {Path: "README.md"}, {Path: "NOTES.md"}, {Path: "docs/a.md"}, {Path: "docs/b.md"},
		{Path: "docs/api/a.md"}, {Path: "docs/api/spec.yaml"}, {Path: "docs/api/deep/x.md"},
		{Path: "docs/fr/a.md"}, {Path: "docs/a.md", Point: "docs-fr"}, {Path: "docs/legacy/a.md"},
		{Path: "blog/a.md"}, {Path: "notes/a.md", Point: "docs-us"},
	}
	days := []time.Time{today.AddDate(0, 0, -30), today.AddDate(0, 0, -1), today, today.AddDate(0, 0, 1)}
	answer := func(p Place, day time.Time) Answer {
		a := r.At(p, day)
		a.Path = ""
		return a
	}
	shared := 0
	for i, p := range places {
		for _, q := range places[i+1:] {
			same := r.PlaceKey(p) == r.PlaceKey(q)
			for _, day := range days {
				equal := cmp.Equal(answer(p, day), answer(q, day))
				if same && !equal {
					t.Errorf("%+v and %+v share a key but differ on %s", p, q, Day(day))
				}
			}
			if same {
				shared++
			}
		}
	}
	if shared < 3 {
		t.Errorf("only %d pairs share a key; the key tells apart places that answer alike", shared)
	}
}

// TestKeptProposalIsARule: a proposal in the terms store is no rule; once
// a person keeps it, one with a replacement rules its wording out like a
// forbidden term (and is listed among the rules), one without does not.
func TestKeptProposalIsARule(t *testing.T) {
	g := fixture()
	g.Terms = append(g.Terms,
		model.Term{ID: "trip", Term: "trip", Status: model.StatusProposed, Replacement: "sailing"},
		model.Term{ID: "berth", Term: "berth", Status: model.StatusProposed})
	lines := func() []string { return RuleLines(New(g).At(Place{Path: "README.md"}, today).Terms) }
	if got := strings.Join(lines(), "\n"); strings.Contains(got, "trip") {
		t.Fatalf("a proposal nobody kept is a rule:\n%s", got)
	}
	g.Log = []model.LogOp{
		{Op: "20261101T100000.000Z-000001", Actor: "agent:codex", Kind: model.OpSuggest, Target: "term:trip", Text: "Say sailing."},
		{Op: "20261102T100000.000Z-000002", Actor: "person:marc", Kind: model.OpKeep, Target: "term:trip", Ref: "20261101T100000.000Z-000001"},
		{Op: "20261102T100000.000Z-000003", Actor: "agent:codex", Kind: model.OpSuggest, Target: "term:berth", Text: "Say berth."},
		{Op: "20261102T100000.000Z-000004", Actor: "person:marc", Kind: model.OpKeep, Target: "term:berth", Ref: "20261102T100000.000Z-000003"},
	}
	got := lines()
	if !slices.Contains(got, `Write "sailing", not "trip".`) {
		t.Errorf("the kept proposal with a replacement is not a rule line:\n%s", strings.Join(got, "\n"))
	}
	if strings.Contains(strings.Join(got, "\n"), "berth") {
		t.Errorf("a kept proposal without a replacement rules nothing out, yet is listed:\n%s", strings.Join(got, "\n"))
	}
}

// TestSuggestionsLessWhatIsStated: a suggestion that says again what the
// answer states (an established note's text, a rule's line) is left out
// of the answer's suggestions; one that says something else stays.
func TestSuggestionsLessWhatIsStated(t *testing.T) {
	g := fixture()
	g.Log = []model.LogOp{
		{Op: "20261101T100000.000Z-000001", Actor: "agent:codex", Kind: model.OpSuggest, Target: "note:tone", Text: "Short sentences."},
		{Op: "20261102T100000.000Z-000002", Actor: "person:marc", Kind: model.OpKeep, Target: "note:tone", Ref: "20261101T100000.000Z-000001"},
		{Op: "20261103T100000.000Z-000003", Actor: "agent:claude-code", Kind: model.OpSuggest, Target: "note:brevity", Text: "short  sentences"},
		{Op: "20261103T100000.000Z-000004", Actor: "agent:claude-code", Kind: model.OpSuggest, Target: "term:whitelist", Text: `Write "allowlist", not "whitelist".`},
		{Op: "20261103T100000.000Z-000005", Actor: "agent:claude-code", Kind: model.OpSuggest, Target: "note:dates", Text: "Write dates in full."},
	}
	a := New(g).At(Place{Path: "README.md"}, today)
	var got []string
	for _, s := range a.Suggestions {
		got = append(got, s.Target)
	}
	if !slices.Equal(got, []string{"note:dates"}) {
		t.Errorf("suggestions = %v, want only note:dates: the others say a kept note or a rule again", got)
	}
}
