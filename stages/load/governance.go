package load

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// voiceSeverities are the severities a voice pattern may carry.
var voiceSeverities = []string{"error", "warning", "info"}

// termKinds are the kinds a term may have; empty means KindTerm.
var termKinds = []string{model.KindTerm, model.KindName, model.KindKeep}

// windowDateLayout is how every valid_from, valid_until is written.
const windowDateLayout = "2006-01-02"

// loadGovernance reads the voices, the terms store and the operation log of
// the governance folder. Each is optional. Voices come sorted by name (their
// file stem), terms and operations in file order, each term and operation
// with its Line. Every mistake becomes a diagnostic; what could be decoded is
// still returned so that later checks do not cascade.
//
// walked reports whether the inventory listed a path: only those files are
// read, since only they count in the governance key (a symlinked folder is
// not walked, so what is behind it must not be read either). Nil reads
// every file there is, for tests.
func loadGovernance(fsys fs.FS, cfg model.Config, walked func(string) bool, ds *diag.List) (voices []model.Voice, terms []model.Term, ops []model.LogOp) {
	gov := cfg.Layers.Governance
	if gov == "" {
		gov = model.DefaultLayers.Governance
	}
	if walked == nil {
		walked = func(string) bool { return true }
	}
	voices = loadVoices(fsys, path.Join(gov, "voices"), walked, ds)
	if p := path.Join(gov, "terms.yaml"); walked(p) {
		terms = loadTerms(fsys, p, cfg, ds)
	}
	if p := path.Join(gov, "log.jsonl"); walked(p) {
		ops = loadLog(fsys, p, cfg, terms, ds)
	}
	return voices, terms, ops
}

// loadVoices reads every walked <dir>/*.yaml as a voice profile.
func loadVoices(fsys fs.FS, dir string, walked func(string) bool, ds *diag.List) []model.Voice {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		ds.Errorf(dir, 0, 0, "read", "cannot list the voices folder: %v", unwrapPath(err))
		return nil
	}
	var voices []model.Voice
	for _, e := range entries {
		name := e.Name()
		file := path.Join(dir, name)
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if strings.HasSuffix(name, ".yml") {
			ds.Warnf(file, 0, 0, "voice-ext", "voice files end in .yaml, so this file is ignored; rename it to %s.yaml", strings.TrimSuffix(name, ".yml"))
			continue
		}
		stem, ok := strings.CutSuffix(name, ".yaml")
		if !ok || !walked(file) {
			continue
		}
		data, ok := readFile(fsys, file, MaxGovernanceBytes, ds)
		if !ok {
			continue
		}
		if v, ok := decodeVoice(file, stem, data, ds); ok {
			voices = append(voices, v)
		}
	}
	slices.SortFunc(voices, func(a, b model.Voice) int { return strings.Compare(a.Name, b.Name) })
	return voices
}

// decodeVoice decodes and checks one voice file; ok is false only when
// its YAML is broken, so that there is nothing to check.
func decodeVoice(file, stem string, data []byte, ds *diag.List) (model.Voice, bool) {
	v := model.Voice{}
	root, ok := decodeYAML(file, data, 1, &v, ds)
	if root == nil && !ok {
		return v, false
	}
	v.Path = file
	checkVoice(file, stem, &v, yamlSpot{root}, ds)
	return v, true
}

// checkVoice validates a voice, fills its pattern lines and maps kapi's
// shape onto cairn's (see mapKapiVoice). The voice's name becomes its file
// stem, which is unique, so lookups by name never see two voices.
func checkVoice(file, stem string, v *model.Voice, at yamlSpot, ds *diag.List) {
	checkVoiceName(file, stem, v, at, ds)
	for _, list := range []struct {
		keys []string
		ps   []model.Pattern
	}{
		{[]string{"patterns", "prohibited"}, v.Patterns.Prohibited},
		{[]string{"patterns", "required"}, v.Patterns.Required},
		{[]string{"style", "prohibited_patterns"}, v.Style.ProhibitedPatterns},
		{[]string{"style", "required_patterns"}, v.Style.RequiredPatterns},
	} {
		for i := range list.ps {
			checkPattern(file, &list.ps[i], at, append(slices.Clone(list.keys), strconv.Itoa(i)), ds)
		}
	}
	mapKapiVoice(file, v, at, ds)
	for _, lim := range []struct {
		key string
		n   int
	}{{"max_lines", v.Comments.MaxLines}, {"max_line_length", v.Comments.MaxLineLength}} {
		if lim.n < 0 {
			line, col := at.pos("comments", lim.key)
			ds.Errorf(file, line, col, "bad-limit", "comments.%s is %d; use a positive number, or leave it out for no limit", lim.key, lim.n)
		}
	}
	checkValidWindow(file, at, v.ValidFrom, v.ValidUntil, ds)
}

// mapKapiVoice moves what kapi writes in its own places into cairn's:
// style.prohibited_patterns and style.required_patterns after the
// patterns of patterns:, an example's explanation into its why. It checks
// the severities of the voice's own vocabulary, which the brief shows.
func mapKapiVoice(file string, v *model.Voice, at yamlSpot, ds *diag.List) {
	v.Patterns.Prohibited = append(v.Patterns.Prohibited, v.Style.ProhibitedPatterns...)
	v.Patterns.Required = append(v.Patterns.Required, v.Style.RequiredPatterns...)
	v.Style.ProhibitedPatterns, v.Style.RequiredPatterns = nil, nil
	explain := func(examples []model.Example, keys ...string) {
		for i := range examples {
			e := &examples[i]
			if e.Explanation == "" {
				continue
			}
			if e.Why != "" && e.Why != e.Explanation {
				line, col := at.pos(append(keys, strconv.Itoa(i), "explanation")...)
				ds.Errorf(file, line, col, "duplicate-key", "%s[%d] has both why and explanation (kapi's name for why); keep one", strings.Join(keys, "."), i)
			} else {
				e.Why = e.Explanation
			}
			e.Explanation = ""
		}
	}
	explain(v.Examples, "examples")
	terms := func(ts []model.VoiceTerm, keys ...string) {
		for i, t := range ts {
			if t.Severity != "" && model.KapiSeverities[t.Severity] == "" && !slices.Contains(voiceSeverities, t.Severity) {
				line, col := at.pos(append(keys, strconv.Itoa(i), "severity")...)
				ds.Errorf(file, line, col, "bad-severity", "%s[%d].severity %q is not a severity; use one of: %s (or %s)", strings.Join(keys, "."), i, t.Severity, strings.Join(kapiSeverityWords, ", "), strings.Join(voiceSeverities, ", "))
			}
		}
	}
	terms(v.Vocabulary.Preferred, "vocabulary", "preferred_terms")
	terms(v.Vocabulary.Forbidden, "vocabulary", "forbidden_terms")
	terms(v.Vocabulary.Competitor, "vocabulary", "competitor_terms")
	for _, code := range slices.Sorted(maps.Keys(v.Locales)) {
		l := v.Locales[code]
		explain(l.Examples, "locales", code, "example_overrides")
		terms(l.Vocabulary, "locales", code, "vocabulary_overrides")
		v.Locales[code] = l
	}
}

// voiceStem is what a name that could be a file stem looks like: a name
// outside it (with a space or a capital) is a display name, as kapi's are.
var voiceStem = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// checkVoiceName holds a voice to its file's name. A display name, one
// that could not be a file stem ("bowrain platform"), becomes the title
// when the profile gives none; a name that could be a stem but is not this
// one is a mistake, since default_voice and points name voices by file.
func checkVoiceName(file, stem string, v *model.Voice, at yamlSpot, ds *diag.List) {
	switch {
	case v.Name == "":
		line, col := at.pos()
		ds.Errorf(file, line, col, "voice-name", "the voice has no name; add name: %s (a voice is named after its file)", stem)
	case v.Name == stem:
	case !voiceStem.MatchString(v.Name) && v.Title == "":
		v.Title = v.Name
	default:
		line, col := at.pos("name")
		ds.Errorf(file, line, col, "voice-name", "the voice is named %q but its file is %s.yaml; set name: %s or rename the file to %s.yaml", v.Name, stem, stem, v.Name)
	}
	v.Name = stem
}

// checkPattern validates one voice pattern at its path of keys and maps a
// kapi severity onto cairn's, keeping the word as written.
func checkPattern(file string, p *model.Pattern, at yamlSpot, spot []string, ds *diag.List) {
	p.Line, _ = at.pos(spot...)
	where := fmt.Sprintf("%s.%s[%s]", spot[0], spot[1], spot[2])
	if p.Regex == "" {
		line, col := at.pos(spot...)
		ds.Errorf(file, line, col, "missing-key", "%s has no regex; add regex: with a Go regular expression", where)
	} else if _, err := regexp.Compile(p.Regex); err != nil {
		line, col := at.pos(append(spot, "regex")...)
		ds.Errorf(file, line, col, "bad-regex", "%s.regex on line %d does not compile: %v; fix the regular expression (Go RE2 syntax: no lookaround, no backreferences)", where, line, err)
	}
	if mapped, ok := model.KapiSeverities[p.Severity]; ok {
		p.Written, p.Severity = p.Severity, mapped
	} else if p.Severity != "" && !slices.Contains(voiceSeverities, p.Severity) {
		line, col := at.pos(append(spot, "severity")...)
		ds.Errorf(file, line, col, "bad-severity", "%s.severity %q is not a severity; use one of: %s (or kapi's %s)", where, p.Severity, strings.Join(voiceSeverities, ", "), strings.Join(kapiSeverityWords, ", "))
	}
}

// kapiSeverityWords are kapi's severities, most severe first, for messages.
var kapiSeverityWords = []string{"critical", "major", "minor"}

// loadTerms reads the terms store, a top-level YAML list of terms.
func loadTerms(fsys fs.FS, file string, cfg model.Config, ds *diag.List) []model.Term {
	if _, err := fs.Stat(fsys, file); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	data, ok := readFile(fsys, file, MaxGovernanceBytes, ds)
	if !ok {
		return nil
	}
	var terms []model.Term
	root, _ := decodeYAML(file, data, 1, &terms, ds)
	if root == nil || root.Kind != yaml.SequenceNode {
		return terms
	}
	ids := map[string]int{}
	for i := range terms {
		t := &terms[i]
		at := yamlSpot{root}.sub(strconv.Itoa(i))
		t.Line, _ = at.pos()
		name := t.ID
		if name == "" {
			name = fmt.Sprintf("the term on line %d", t.Line)
		} else {
			name = fmt.Sprintf("term %q", t.ID)
		}
		switch prev, dup := ids[t.ID]; {
		case t.ID == "":
			line, col := at.pos()
			ds.Errorf(file, line, col, "missing-key", "the term has no id; add id: a short unique name (the log targets it as term:<id>)")
		case dup:
			line, col := at.pos("id")
			ds.Errorf(file, line, col, "duplicate-id", "term id %q is already used on line %d; give each term its own id", t.ID, prev)
		default:
			ids[t.ID] = t.Line
		}
		if t.Term == "" {
			line, col := at.pos()
			ds.Errorf(file, line, col, "missing-key", "%s has no term; add term: with the wording it governs", name)
		}
		switch {
		case t.Status == "":
			line, col := at.pos()
			ds.Errorf(file, line, col, "unknown-status", "%s has no status; add status: one of %s", name, strings.Join(model.TermStatuses, ", "))
		case !slices.Contains(model.TermStatuses, t.Status):
			line, col := at.pos("status")
			ds.Errorf(file, line, col, "unknown-status", "%s has the unknown status %q; use one of: %s", name, t.Status, strings.Join(model.TermStatuses, ", "))
		}
		if t.Kind != "" && !slices.Contains(termKinds, t.Kind) {
			line, col := at.pos("kind")
			ds.Errorf(file, line, col, "bad-kind", "%s has the unknown kind %q; use one of: %s (or leave it out for term)", name, t.Kind, strings.Join(termKinds, ", "))
		}
		if t.Pattern != "" {
			if _, err := regexp.Compile(t.Pattern); err != nil {
				line, col := at.pos("pattern")
				ds.Errorf(file, line, col, "bad-regex", "the pattern of %s on line %d does not compile: %v; fix the regular expression (Go RE2 syntax: no lookaround, no backreferences)", name, line, err)
			}
		}
		checkPathGlobs(file, at, t.Paths, ds)
		checkAxisBindings(file, at, t.Axes, cfg, ds)
		checkValidWindow(file, at, t.ValidFrom, t.ValidUntil, ds)
	}
	return terms
}

// validateGovernanceConfig checks the governance block of cairn.yaml
// against itself and the voices that exist, and fills each point's Line.
// root is the top-level node decodeYAML returned for file (read with
// firstLine 1); it may be nil. cfg.Governance.Points is written in place.
func validateGovernanceConfig(file string, root *yaml.Node, cfg model.Config, voices []model.Voice, ds *diag.List) {
	g := cfg.Governance
	at := yamlSpot{root}.sub("governance")
	names := make([]string, 0, len(voices))
	for _, v := range voices {
		names = append(names, v.Name)
	}
	unknownVoice := func(at yamlSpot, key, voice string) {
		line, col := at.pos(key)
		list := strings.Join(names, ", ")
		if list == "" {
			list = "(there are no voices yet)"
		}
		ds.Errorf(file, line, col, "unknown-voice", "%s %q names no voice; add a voice file %s.yaml to the voices folder or use one of: %s", key, voice, voice, list)
	}
	if g.DefaultVoice != "" && !slices.Contains(names, g.DefaultVoice) {
		unknownVoice(at, "default_voice", g.DefaultVoice)
	}
	for _, axis := range slices.Sorted(maps.Keys(g.Axes)) {
		if cycle := axisCycle(g.Axes[axis]); cycle != nil {
			line, col := at.keyPos("axes", axis, "contains", cycle[0])
			ds.Errorf(file, line, col, "axis-cycle", "axis %q contains itself: %s; remove one of these containments", axis, strings.Join(cycle, " contains "))
		}
	}
	seen := map[string]int{}
	for i := range g.Points {
		p := &g.Points[i]
		pat := at.sub("points").sub(strconv.Itoa(i))
		p.Line, _ = pat.pos()
		switch prev, dup := seen[p.Name]; {
		case p.Name == "":
			line, col := pat.pos()
			ds.Errorf(file, line, col, "missing-key", "governance.points[%d] has no name; add name: (content files bind to it with point: <name>)", i)
		case dup:
			line, col := pat.pos("name")
			ds.Errorf(file, line, col, "duplicate-point", "point %q is already defined on line %d; give each point its own name", p.Name, prev)
		default:
			seen[p.Name] = p.Line
		}
		if len(p.Paths) == 0 {
			line, col := pat.pos()
			ds.Errorf(file, line, col, "point-no-paths", "point %q has no paths; add paths: with at least one glob such as docs/**", p.Name)
		}
		checkPathGlobs(file, pat, p.Paths, ds)
		if p.Voice != "" && !slices.Contains(names, p.Voice) {
			unknownVoice(pat, "voice", p.Voice)
		}
		checkAxisBindings(file, pat, p.Axes, cfg, ds)
		checkValidWindow(file, pat, p.ValidFrom, p.ValidUntil, ds)
	}
	for _, c := range []struct {
		key string
		n   int
	}{{"rules", g.Caps.Rules}, {"notes", g.Caps.Notes}, {"line_runes", g.Caps.LineRunes}} {
		if c.n < 0 {
			line, col := at.pos("caps", c.key)
			ds.Errorf(file, line, col, "bad-limit", "governance.caps.%s is %d; use a positive number, or leave it out for the default", c.key, c.n)
		}
	}
}

// axisCycle returns a containment cycle of the axis (first value repeated
// at the end), or nil. Values are visited in sorted order so the cycle
// reported is the same on every run.
func axisCycle(a model.Axis) []string {
	const (
		unvisited = iota
		onPath
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(v string) []string
	visit = func(v string) []string {
		state[v] = onPath
		stack = append(stack, v)
		for _, w := range a.Contains[v] {
			switch state[w] {
			case onPath:
				start := slices.Index(stack, w)
				return append(slices.Clone(stack[start:]), w)
			case unvisited:
				if c := visit(w); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[v] = done
		return nil
	}
	for _, v := range slices.Sorted(maps.Keys(a.Contains)) {
		if state[v] == unvisited {
			if c := visit(v); c != nil {
				return c
			}
		}
	}
	return nil
}

// axisValues lists every value declared in an axis: each key of contains
// and each value inside a contains list.
func axisValues(a model.Axis) []string {
	var vs []string
	for k, list := range a.Contains {
		vs = append(vs, k)
		vs = append(vs, list...)
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

// spotter finds the line and column of a value, or of a key, by its path
// of keys (and list indexes) below some node: a YAML mapping or a log line.
type spotter interface {
	pos(path ...string) (line, col int)
	keyPos(path ...string) (line, col int)
}

// checkValidWindow checks valid_from and valid_until: dates, in order.
func checkValidWindow(file string, at spotter, from, until string, ds *diag.List) {
	ok := true
	for _, d := range []struct{ key, val string }{{"valid_from", from}, {"valid_until", until}} {
		if d.val == "" {
			continue
		}
		if _, err := time.Parse(windowDateLayout, d.val); err != nil {
			line, col := at.pos(d.key)
			ds.Errorf(file, line, col, "bad-date", "%s %q is not a date; write it as YYYY-MM-DD, e.g. 2026-11-02", d.key, d.val)
			ok = false
		}
	}
	if ok && from != "" && until != "" && from > until {
		line, col := at.pos("valid_until")
		ds.Errorf(file, line, col, "date-order", "valid_until %s is before valid_from %s; swap them or fix one", until, from)
	}
}

// checkPathGlobs checks that each path glob is a valid doublestar pattern
// relative to the base root: one that could ever match a base path.
func checkPathGlobs(file string, at spotter, globs []string, ds *diag.List) {
	for i, g := range globs {
		var why string
		switch {
		case g == "":
			why = fmt.Sprintf("paths[%d] is empty; write a glob such as docs/** or remove the entry", i)
		case !doublestar.ValidatePattern(g):
			why = fmt.Sprintf("paths[%d] %q is not a valid glob; close every [ and {, and escape a literal one with \\", i, g)
		case strings.HasPrefix(g, "/") || strings.HasPrefix(g, "./") || slices.Contains(strings.Split(g, "/"), ".."):
			why = fmt.Sprintf("paths[%d] %q is not relative to the base root; write it without a leading / or ./ and without ..", i, g)
		}
		if why != "" { // a glob's place is looked up only to report it
			line, col := at.pos("paths", strconv.Itoa(i))
			ds.Errorf(file, line, col, "bad-glob", "%s", why)
		}
	}
}

// checkAxisBindings checks that each axis is declared in cairn.yaml and each value
// is declared in its axis.
func checkAxisBindings(file string, at spotter, axes map[string]string, cfg model.Config, ds *diag.List) {
	declared := slices.Sorted(maps.Keys(cfg.Governance.Axes))
	for _, name := range slices.Sorted(maps.Keys(axes)) {
		axis, ok := cfg.Governance.Axes[name]
		if !ok {
			line, col := at.keyPos("axes", name)
			list := strings.Join(declared, ", ")
			if list == "" {
				list = "(none are declared)"
			}
			ds.Errorf(file, line, col, "unknown-axis", "axis %q is not declared; declare it under governance.axes in cairn.yaml or use one of: %s", name, list)
			continue
		}
		if vs := axisValues(axis); !slices.Contains(vs, axes[name]) {
			line, col := at.pos("axes", name)
			ds.Errorf(file, line, col, "unknown-axis-value", "axis %q has no value %q; use one of: %s, or declare it under governance.axes.%s.contains", name, axes[name], strings.Join(vs, ", "), name)
		}
	}
}
