package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

var today = time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)

const (
	stale    = artifacts.RulesOpen + "\n## Old rules\n- stale\n" + artifacts.RulesClose + "\n"
	userHead = "# Our agents\r\n\r\nRun `make test` before you push.\r\n\r\n"
	userTail = "\r\nSigned: the team.  \r\n"
)

func opID(n int) string { return fmt.Sprintf("20261102T0900%02d.000Z-0000%02d", n, n) }

// fixture is a nested content tree with its governance and rules files.
func fixture() Input {
	return Input{
		AsOf: today,
		Config: model.Config{Governance: model.GovernanceConfig{
			DefaultVoice: "plain",
			Axes:         map[string]model.Axis{"market": {Contains: map[string][]string{"emea": {"fr", "de"}}}},
			Points: []model.Point{
				{Name: "docs", Paths: []string{"docs/**"}, Voice: "plain"},
				{Name: "blog", Paths: []string{"blog/**"}, Voice: "blog"},
				{Name: "site-fr", Paths: []string{"site/fr/**"}, Axes: map[string]string{"market": "fr"}},
				{Name: "legacy", Paths: []string{"legacy/**"}, Voice: "retired"},
			},
		}},
		Voices: []model.Voice{
			{Name: "blog", Description: "Launch posts.", Tone: model.Tone{Formality: "informal"}},
			{Name: "plain", Description: "Plain words.", Style: model.Style{Contractions: "avoid"}},
			{Name: "retired", Description: "The old voice.", ValidUntil: "2026-11-09"},
		},
		Terms: []model.Term{
			{ID: "whitelist", Term: "whitelist", Status: model.StatusForbidden, Replacement: "allowlist", Note: "Inclusive language."},
			{ID: "api-key", Term: "API key", Status: model.StatusForbidden, Replacement: "push token", Paths: []string{"docs/api/**"}},
			{ID: "referentiel", Term: "référentiel", Status: model.StatusForbidden, Replacement: "registre", Axes: map[string]string{"market": "emea"}},
			{ID: "future", Term: "future-word", Status: model.StatusForbidden, Replacement: "present-word", ValidFrom: "2026-11-11"},
			{ID: "harbor", Term: "Harbor", Status: model.StatusPreferred, Kind: model.KindName},
			{ID: "concept", Term: "push token", Status: model.StatusPreferred, Definition: "Only names a concept."},
		},
		Log: []model.LogOp{
			{Op: opID(1), Actor: "agent:claude-code", Kind: model.OpSuggest, Target: "note:shell", Text: "No $ prompts in shell examples.", Paths: []string{"docs/**"}},
			{Op: opID(2), Actor: "person:marc", Kind: model.OpKeep, Target: "note:shell", Ref: opID(1)},
			{Op: opID(3), Actor: "agent:codex", Kind: model.OpSuggest, Target: "note:agent-only", Text: "AGENT SUGGESTION NEVER WRITTEN", Paths: []string{"docs/**"}},
		},
		Content: []model.ContentFile{
			{Path: "README.md"},
			{Path: "blog/post.md"},
			{Path: "docs/a.md"},
			{Path: "docs/api/deep/x.md"},
			{Path: "docs/api/t.md"},
			{Path: "legacy/old.md"},
			{Path: "mixed/one.md", Point: "blog"},
			{Path: "mixed/two.md"},
			{Path: "site/fr/page.md"},
		},
		RulesFiles: []model.RulesFile{
			{Path: "blog/CLAUDE.md", Text: "Claude: read the style guide.\n"},
			{Path: "docs/AGENTS.md", Text: userHead + stale + userTail},
			{Path: "docs/CLAUDE.md", Text: "@AGENTS.md\n"},
			{Path: "gone/AGENTS.md", Text: stale},
			{Path: "gone/CLAUDE.md", Text: "Keep me.\n\n" + stale},
		},
	}
}

func run(t *testing.T, in Input) (Output, map[string]string) {
	t.Helper()
	out, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range out.Files {
		files[f.Path] = string(f.Data)
	}
	return out, files
}

func TestRunPlansTheRulesFiles(t *testing.T) {
	out, files := run(t, fixture())
	want := []string{
		".cairn/rules.json",
		"AGENTS.md", "CLAUDE.md",
		"blog/AGENTS.md", "blog/CLAUDE.md",
		"docs/AGENTS.md", // docs/CLAUDE.md imports it
		"docs/api/AGENTS.md", "docs/api/CLAUDE.md",
		// docs/api/deep repeats docs/api; legacy's closed voice falls back
		// to the root's: neither gets a file.
		"mixed/AGENTS.md", "mixed/CLAUDE.md",
		"site/fr/AGENTS.md", "site/fr/CLAUDE.md",
	}
	if d := cmp.Diff(want, slices.Sorted(maps.Keys(files))); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"gone/AGENTS.md"}, out.Delete); d != "" {
		t.Errorf("deleted (-want +got):\n%s", d)
	}
	if len(out.Release) != 1 || out.Release[0].Path != "gone/CLAUDE.md" || string(out.Release[0].Data) != "Keep me.\n" {
		t.Errorf("released = %+v, want gone/CLAUDE.md back to its own text", out.Release)
	}

	// Text around the section is kept byte for byte; a file without a
	// section gets it appended after its own text.
	// docs/AGENTS.md is a CRLF file: the section is written in CRLF too.
	docs := files["docs/AGENTS.md"]
	if !strings.HasPrefix(docs, userHead+artifacts.RulesOpen+"\r\n") || !strings.HasSuffix(docs, artifacts.RulesClose+"\r\n"+userTail) {
		t.Errorf("docs/AGENTS.md lost the user's text:\n%q", docs)
	}
	if strings.Count(docs, "\n") != strings.Count(docs, "\r\n") {
		t.Errorf("docs/AGENTS.md mixes line endings:\n%q", docs)
	}
	files["docs/AGENTS.md"] = strings.ReplaceAll(docs, "\r\n", "\n") // for the checks of content below
	if !strings.HasPrefix(files["blog/CLAUDE.md"], "Claude: read the style guide.\n\n"+artifacts.RulesOpen) {
		t.Errorf("blog/CLAUDE.md = %q", files["blog/CLAUDE.md"])
	}
	if files["AGENTS.md"] != files["CLAUDE.md"] || !strings.HasPrefix(files["AGENTS.md"], artifacts.RulesOpen) {
		t.Error("a new rules file gets just the section, the same in AGENTS.md and CLAUDE.md")
	}

	for _, c := range []struct {
		file      string
		has, lack []string
	}{
		{"AGENTS.md",
			[]string{"### Voice: plain", "- Contractions: avoid", `- Write "allowlist", not "whitelist". Inclusive language.`,
				`- Write "Harbor" exactly as shown: it is a name.`, "- docs/ (docs/AGENTS.md)", "- mixed/ (mixed/AGENTS.md)", "cairn note suggest", "cairn build --check"},
			[]string{"Keep as it is", "API key", "push token", "Only names a concept", "legacy/"}},
		{"docs/AGENTS.md",
			[]string{"## Writing rules for docs/", "### Notes a person kept\n- No $ prompts in shell examples.", `- "API key" is correct here; do not rename it to "push token". That rename holds only in docs/api/**.`},
			[]string{"### Voice", "whitelist"}},
		{"docs/api/AGENTS.md",
			[]string{`- Write "push token", not "API key".`, `"référentiel" is correct here`},
			[]string{`"API key" is correct here`}},
		{"site/fr/AGENTS.md",
			[]string{`- Write "registre", not "référentiel".`, `"API key" is correct here`},
			[]string{"No $ prompts"}},
		{"blog/AGENTS.md",
			[]string{"### Voice: blog", "- Formality: informal"},
			[]string{"Say this, not that"}},
		{"mixed/AGENTS.md",
			// A heading per pattern that bound the files, never their names.
			[]string{"### For files marked point: blog\n\n#### Voice: blog", "### For the files at no point"},
			[]string{"one.md", "two.md"}},
	} {
		for _, s := range c.has {
			if !strings.Contains(files[c.file], s) {
				t.Errorf("%s lacks %q:\n%s", c.file, s, files[c.file])
			}
		}
		for _, s := range c.lack {
			if strings.Contains(files[c.file], s) {
				t.Errorf("%s holds %q:\n%s", c.file, s, files[c.file])
			}
		}
	}
	for p, text := range files {
		if p == artifacts.RulesPath {
			continue // the table lists suggestions, for the query stage
		}
		for _, never := range []string{"AGENT SUGGESTION", "future-word", "stale"} {
			if strings.Contains(text, never) {
				t.Errorf("%s holds %q, which is not in force", p, never)
			}
		}
	}
}

// TestWindowsInTheFiles: a term whose window opens tomorrow is written
// tomorrow; a point voice closed yesterday leaves a transition in the
// table and no file.
func TestWindowsInTheFiles(t *testing.T) {
	out, files := run(t, fixture())
	if out.From != "2026-11-10" || out.Until != "2026-11-10" {
		t.Errorf("holds %s..%s, want just 2026-11-10 (retired closed on the 9th, future opens on the 11th)", out.From, out.Until)
	}
	table, err := artifacts.DecodeRules([]byte(files[".cairn/rules.json"]))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(table.Places, func(p artifacts.RulesPlace) bool { return p.Folder == "legacy" })
	if i < 0 {
		t.Fatal("no place for legacy")
	}
	p := table.Places[i]
	wantTr := []artifacts.RulesTransition{{Kind: "voice", Name: "retired", ValidUntil: "2026-11-09", Closed: true, Now: "plain"}}
	if p.Voice != "plain" || p.VoiceFrom != "default_voice" || !cmp.Equal(wantTr, p.Transitions) || p.RulesFiles != nil {
		t.Errorf("legacy place = %+v", p)
	}

	in := fixture()
	in.AsOf = today.AddDate(0, 0, 1)
	_, tomorrow := run(t, in)
	if !strings.Contains(tomorrow["AGENTS.md"], `- Write "present-word", not "future-word".`) {
		t.Errorf("tomorrow the future rule is in force:\n%s", tomorrow["AGENTS.md"])
	}
	in.AsOf = today.AddDate(0, 0, -1)
	_, yesterday := run(t, in)
	if !strings.Contains(yesterday["legacy/AGENTS.md"], "### Voice: retired") {
		t.Errorf("yesterday legacy had its own voice:\n%s", yesterday["legacy/AGENTS.md"])
	}
}

// TestRunAgainChangesNothing: run over the files as the first run leaves
// them, the stage plans the same bytes, releases and deletes nothing, and
// the rules key is the same.
func TestRunAgainChangesNothing(t *testing.T) {
	in := fixture()
	first, files := run(t, in)
	in.RulesFiles = first.After
	second, again := run(t, in)
	if d := cmp.Diff(files, again); d != "" {
		t.Errorf("second run (-first +second):\n%s", d)
	}
	if len(second.Release)+len(second.Delete) != 0 {
		t.Errorf("second run released %v and deleted %v", second.Release, second.Delete)
	}
	if load.RulesKey("g", "k", first.After) != load.RulesKey("g", "k", second.After) {
		t.Error("the rules key moved between two runs with nothing changed")
	}
	var after []string
	for _, f := range first.After {
		after = append(after, f.Path)
	}
	if slices.Contains(after, "gone/AGENTS.md") || !slices.Contains(after, "gone/CLAUDE.md") || !slices.Contains(after, "site/fr/CLAUDE.md") {
		t.Errorf("after = %v", after)
	}
}

func TestCaps(t *testing.T) {
	in := fixture()
	in.Config.Governance.Caps = model.RulesCaps{Rules: 1, Notes: 3, LineRunes: 80}
	for i := range 6 {
		n := 10 + 2*i
		in.Log = append(in.Log,
			model.LogOp{Op: opID(n), Actor: "agent:x", Kind: model.OpSuggest, Target: fmt.Sprintf("note:n%d", i), Text: fmt.Sprintf("Note number %d.", i)},
			model.LogOp{Op: opID(n + 1), Actor: "person:ines", Kind: model.OpKeep, Target: fmt.Sprintf("note:n%d", i), Ref: opID(n)})
	}
	in.Log = append(in.Log,
		model.LogOp{Op: opID(30), Actor: "agent:x", Kind: model.OpSuggest, Target: "note:long", Text: strings.Repeat("long ", 2000)},
		model.LogOp{Op: opID(31), Actor: "person:ines", Kind: model.OpKeep, Target: "note:long", Ref: opID(30)},
		model.LogOp{Op: opID(32), Actor: "agent:x", Kind: model.OpSuggest, Target: "note:dup", Text: "Note number 5."},
		model.LogOp{Op: opID(33), Actor: "person:ines", Kind: model.OpKeep, Target: "note:dup", Ref: opID(32)})
	_, files := run(t, in)
	root := files["AGENTS.md"]
	// Newest first (dup, op 33, repeats n5's text: one line), the 10,000
	// characters of note:long on one capped line, then the count.
	wantNotes := "### Notes a person kept\n- Note number 5.\n- long long long long long long long long long long long long long long long lo…\n- Note number 4.\n- 4 older notes are not listed here; `cairn context --at .` lists them all.\n"
	if !strings.Contains(root, wantNotes) {
		t.Errorf("root notes: want newest first, one line for identical texts, capped at 3:\n%s", root)
	}
	if !strings.Contains(root, "- Write \"allowlist\", not \"whitelist\". Inclusive language.\n- 1 more rule holds here; `cairn context --at .` lists them all.\n") {
		t.Errorf("root rules: want capped at 1:\n%s", root)
	}
	if !strings.Contains(root, "- blog/ (blog/AGENTS.md)\n- 4 more with rules of their own; .cairn/rules.json lists every rules file.\n") {
		t.Errorf("root folder lines: want capped at 1:\n%s", root)
	}
	// Every line with stored text is capped; cairn's own sentences are not.
	for _, line := range strings.Split(root, "\n") {
		if n := len([]rune(line)); n > 80 && (strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "#")) {
			t.Errorf("a line of %d runes: %q", n, line)
		}
	}
}

// TestLinkedRulesFiles: cairn never writes through a link. A link to the
// rules file beside it leaves that file to carry the section; a link
// elsewhere is reported and left alone.
func TestLinkedRulesFiles(t *testing.T) {
	in := fixture()
	in.RulesFiles = []model.RulesFile{
		// blog: CLAUDE.md links to AGENTS.md.
		{Path: "blog/AGENTS.md", Text: "# Mine\n"},
		{Path: "blog/CLAUDE.md", Text: "# Mine\n", Symlink: true, SameAsAgents: true},
		// docs: AGENTS.md links to CLAUDE.md.
		{Path: "docs/AGENTS.md", Text: "# Ours\n", Symlink: true},
		{Path: "docs/CLAUDE.md", Text: "# Ours\n", SameAsAgents: true},
		// site/fr: AGENTS.md links somewhere else.
		{Path: "site/fr/AGENTS.md", Text: "# Shared\n", Symlink: true},
	}
	out, files := run(t, in)
	for _, p := range []string{"blog/AGENTS.md", "docs/CLAUDE.md", "site/fr/CLAUDE.md"} {
		if _, ok := files[p]; !ok {
			t.Errorf("%s carries no section", p)
		}
	}
	for _, p := range []string{"blog/CLAUDE.md", "docs/AGENTS.md", "site/fr/AGENTS.md"} {
		if _, ok := files[p]; ok {
			t.Errorf("%s is written through a link", p)
		}
	}
	if len(out.Warnings) != 1 || out.Warnings[0].File != "site/fr/AGENTS.md" || out.Warnings[0].Code != "rules-link" {
		t.Errorf("warnings = %v", out.Warnings)
	}
	after := map[string]model.RulesFile{}
	for _, f := range out.After {
		after[f.Path] = f
	}
	if f := after["blog/CLAUDE.md"]; f.Text != files["blog/AGENTS.md"] || !f.SameAsAgents {
		t.Errorf("after: blog/CLAUDE.md = %+v; a link reads what its target will hold", f)
	}
	if f := after["docs/AGENTS.md"]; f.Text != files["docs/CLAUDE.md"] || !after["docs/CLAUDE.md"].SameAsAgents {
		t.Errorf("after: docs/AGENTS.md = %+v", f)
	}
	in.RulesFiles = out.After
	again, files2 := run(t, in)
	if d := cmp.Diff(files, files2); d != "" || len(again.Release)+len(again.Delete) != 0 {
		t.Errorf("second run differs (-first +second):\n%s", d)
	}
}

// TestNamesThatDifferOnlyInCase: a user's docs/claude.md and the
// docs/CLAUDE.md cairn would write are one file on a case-insensitive file
// system, so cairn does not write CLAUDE.md there and says why; AGENTS.md
// still carries the section.
func TestNamesThatDifferOnlyInCase(t *testing.T) {
	in := fixture()
	in.Content = append(in.Content, model.ContentFile{Path: "docs/api/claude.md"})
	out, files := run(t, in)
	if _, ok := files["docs/api/CLAUDE.md"]; ok {
		t.Errorf("docs/api/CLAUDE.md was written although docs/api/claude.md is there")
	}
	if _, ok := files["docs/api/AGENTS.md"]; !ok {
		t.Errorf("docs/api/AGENTS.md was not written")
	}
	if !slices.ContainsFunc(out.Warnings, func(d diag.Diagnostic) bool {
		return d.File == "docs/api/claude.md" && d.Code == "rules-name-case"
	}) {
		t.Errorf("no rules-name-case warning on docs/api/claude.md: %v", out.Warnings)
	}
}

// TestAHeadingPerPattern: a folder whose many files sit at two points
// gets a heading per glob that bound them, however many files match it.
func TestAHeadingPerPattern(t *testing.T) {
	in := fixture()
	in.Config.Governance.Points = append(in.Config.Governance.Points, model.Point{Name: "drafts", Paths: []string{"many/draft-*.md"}, Voice: "blog"})
	for i := range 30 {
		in.Content = append(in.Content, model.ContentFile{Path: fmt.Sprintf("many/draft-%02d.md", i)})
	}
	in.Content = append(in.Content, model.ContentFile{Path: "many/index.md"})
	_, files := run(t, in)
	got := files["many/AGENTS.md"]
	for _, want := range []string{"### For many/draft-*.md\n\n#### Voice: blog", "### For the files at no point"} {
		if !strings.Contains(got, want) {
			t.Errorf("many/AGENTS.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "draft-00.md") || strings.Contains(got, "more") {
		t.Errorf("many/AGENTS.md lists file names:\n%s", got)
	}
}

// TestRootNotesThatDoNotHold: a note scoped by path that holds for the
// root's files is a root note, written in the root's file; a folder it
// does not hold in lists it among the project's notes that do not hold
// there, and a folder it holds in does not repeat it.
func TestRootNotesThatDoNotHold(t *testing.T) {
	in := fixture()
	in.Log = append(in.Log,
		model.LogOp{Op: opID(4), Actor: "agent:codex", Kind: model.OpSuggest, Target: "note:dates", Text: "Write dates as 4 November 2026.", Paths: []string{"*.md", "docs/**"}},
		model.LogOp{Op: opID(5), Actor: "person:marc", Kind: model.OpKeep, Target: "note:dates", Ref: opID(4)})
	_, files := run(t, in)
	const note = "- Write dates as 4 November 2026."
	root := files["AGENTS.md"]
	if i := strings.Index(root, "### Notes a person kept"); i < 0 || !strings.Contains(root[i:], note) {
		t.Errorf("the root's file does not keep the note that holds for its files:\n%s", root)
	}
	blog := files["blog/AGENTS.md"]
	if i := strings.Index(blog, "The project's notes that do not hold for these files"); i < 0 || !strings.Contains(blog[i:], note) {
		t.Errorf("blog/AGENTS.md does not say the root's note does not hold there:\n%s", blog)
	}
	if strings.Contains(files["docs/AGENTS.md"], "Write dates") {
		t.Errorf("docs/AGENTS.md repeats a root note that holds there:\n%s", files["docs/AGENTS.md"])
	}
}

// TestNotesPlacedByEvidence: a note whose evidence is all in one folder's
// content files is written into that folder's file, not the root's,
// however wide its scope; one whose evidence spans folders, or names a
// record, stays the root's.
func TestNotesPlacedByEvidence(t *testing.T) {
	in := fixture()
	in.Log = append(in.Log,
		model.LogOp{Op: opID(4), Actor: "agent:codex", Kind: model.OpSuggest, Target: "note:launch-tone", Text: "Launch posts end with one call to action.", Evidence: []string{"blog/post.md"}},
		model.LogOp{Op: opID(5), Actor: "person:marc", Kind: model.OpKeep, Target: "note:launch-tone", Ref: opID(4)},
		model.LogOp{Op: opID(6), Actor: "agent:codex", Kind: model.OpSuggest, Target: "note:spelling", Text: "Spell it colour everywhere.", Evidence: []string{"blog/post.md", "docs/a.md"}},
		model.LogOp{Op: opID(7), Actor: "person:marc", Kind: model.OpKeep, Target: "note:spelling", Ref: opID(6)},
		model.LogOp{Op: opID(8), Actor: "agent:codex", Kind: model.OpSuggest, Target: "note:ids", Text: "Ticket ids in capitals.", Evidence: []string{"events/2026-11-01/tickets.json#T-1"}},
		model.LogOp{Op: opID(9), Actor: "person:marc", Kind: model.OpKeep, Target: "note:ids", Ref: opID(8)})
	_, files := run(t, in)
	const launch = "Launch posts end with one call to action."
	if root := files["AGENTS.md"]; strings.Contains(root, launch) || !strings.Contains(root, "Spell it colour everywhere.") || !strings.Contains(root, "Ticket ids in capitals.") {
		t.Errorf("the root's file places the notes wrong:\n%s", root)
	}
	if blog := files["blog/AGENTS.md"]; !strings.Contains(blog, "- "+launch) {
		t.Errorf("blog/AGENTS.md lacks the note its pages are the evidence of:\n%s", blog)
	}
	if docs := files["docs/AGENTS.md"]; strings.Contains(docs, launch) {
		t.Errorf("docs/AGENTS.md holds the blog's note:\n%s", docs)
	}
}
