package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/model"
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
		v := model.Voice{}
		root, ok := decodeYAML(file, data, 1, &v, ds)
		if root == nil && !ok {
			continue // a syntax error; nothing to check
		}
		v.Path = file
		checkVoice(file, stem, &v, yamlSpot{root}, ds)
		voices = append(voices, v)
	}
	slices.SortFunc(voices, func(a, b model.Voice) int { return strings.Compare(a.Name, b.Name) })
	return voices
}

// checkVoice validates a voice and fills its pattern lines. The voice's
// name becomes its file stem, which is unique, so lookups by name never
// see two voices.
func checkVoice(file, stem string, v *model.Voice, at yamlSpot, ds *diag.List) {
	switch {
	case v.Name == "":
		line, col := at.pos()
		ds.Errorf(file, line, col, "voice-name", "the voice has no name; add name: %s (a voice is named after its file)", stem)
	case v.Name != stem:
		line, col := at.pos("name")
		ds.Errorf(file, line, col, "voice-name", "the voice is named %q but its file is %s.yaml; set name: %s or rename the file to %s.yaml", v.Name, stem, stem, v.Name)
	}
	v.Name = stem
	for _, list := range []struct {
		key string
		ps  []model.Pattern
	}{{"prohibited", v.Patterns.Prohibited}, {"required", v.Patterns.Required}} {
		for i := range list.ps {
			p := &list.ps[i]
			idx := strconv.Itoa(i)
			p.Line, _ = at.pos("patterns", list.key, idx)
			where := fmt.Sprintf("patterns.%s[%d]", list.key, i)
			if p.Regex == "" {
				line, col := at.pos("patterns", list.key, idx)
				ds.Errorf(file, line, col, "missing-key", "%s has no regex; add regex: with a Go regular expression", where)
			} else if _, err := regexp.Compile(p.Regex); err != nil {
				line, col := at.pos("patterns", list.key, idx, "regex")
				ds.Errorf(file, line, col, "bad-regex", "%s.regex on line %d does not compile: %v; fix the regular expression (Go RE2 syntax: no lookaround, no backreferences)", where, line, err)
			}
			if p.Severity != "" && !slices.Contains(voiceSeverities, p.Severity) {
				line, col := at.pos("patterns", list.key, idx, "severity")
				ds.Errorf(file, line, col, "bad-severity", "%s.severity %q is not a severity; use one of: %s", where, p.Severity, strings.Join(voiceSeverities, ", "))
			}
		}
	}
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
		line, col := at.pos("paths", strconv.Itoa(i))
		switch {
		case g == "":
			ds.Errorf(file, line, col, "bad-glob", "paths[%d] is empty; write a glob such as docs/** or remove the entry", i)
		case !doublestar.ValidatePattern(g):
			ds.Errorf(file, line, col, "bad-glob", "paths[%d] %q is not a valid glob; close every [ and {, and escape a literal one with \\", i, g)
		case strings.HasPrefix(g, "/") || strings.HasPrefix(g, "./") || slices.Contains(strings.Split(g, "/"), ".."):
			ds.Errorf(file, line, col, "bad-glob", "paths[%d] %q is not relative to the base root; write it without a leading / or ./ and without ..", i, g)
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

// opIDPattern is the shape of an operation id: the UTC time to the
// millisecond, then 6 lowercase hex digits. Ids of this shape sort bytewise
// in time order, which is what makes the log's order checkable.
var opIDPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9a-f]{6}$`)
})

// opIDTimeLayout parses the time part of an operation id.
const opIDTimeLayout = "20060102T150405.000Z"

// logFields maps each key of a log operation to its field index in
// model.LogOp, read from the json tags so the two cannot drift apart.
var logFields = func() map[string]int {
	t := reflect.TypeFor[model.LogOp]()
	m := map[string]int{}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}()

// loadLog reads the operation log, one JSON object a line. A bad line is
// reported and skipped; the lines after it are still read.
func loadLog(fsys fs.FS, file string, cfg model.Config, terms []model.Term, ds *diag.List) []model.LogOp {
	if _, err := fs.Stat(fsys, file); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	data, ok := readFile(fsys, file, MaxGovernanceBytes, ds)
	if !ok {
		return nil
	}
	return parseLog(file, data, cfg, terms, ds)
}

// parseLog checks and decodes the bytes of an operation log.
func parseLog(file string, data []byte, cfg model.Config, terms []model.Term, ds *diag.List) []model.LogOp {
	termIDs := map[string]bool{}
	for _, t := range terms {
		termIDs[t.ID] = true
	}
	lg := opLog{file: file, cfg: cfg, terms: termIDs, seen: map[string]int{}, ds: ds}
	var ops []model.LogOp
	for i, raw := range bytes.Split(data, []byte("\n")) {
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		op, at, ok := lg.decode(i+1, raw)
		if !ok {
			continue
		}
		op.Line = i + 1
		lg.check(&op, at)
		ops = append(ops, op)
	}
	return ops
}

// opLog carries what checking one line needs from the lines before it.
type opLog struct {
	file  string
	cfg   model.Config
	terms map[string]bool
	seen  map[string]int // valid op id → its line
	last  string         // the greatest op id so far
	ds    *diag.List
}

// decode parses one line into an operation, reporting a line that is not a
// JSON object, unknown and repeated keys, and each value of the wrong type.
func (lg *opLog) decode(line int, raw []byte) (model.LogOp, logSpot, bool) {
	var op model.LogOp
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		col := 1
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			col = int(se.Offset)
		case err == nil:
			err = errors.New("null is not an object")
		}
		lg.ds.Errorf(lg.file, line, col, "log-json", "line is not JSON: %s; write one JSON object per line", strings.TrimPrefix(err.Error(), "json: "))
		return op, logSpot{}, false
	}
	at := logSpot{line: line, cols: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // the opening brace; the line is known to be an object
	for dec.More() {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		col := start + bytes.IndexByte(raw[start:], '"') + 1
		if _, dup := at.cols[key]; dup {
			lg.ds.Errorf(lg.file, line, col, "duplicate-key", "key %q appears twice in this operation; keep one", key)
		} else {
			at.cols[key] = col
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	fields := reflect.ValueOf(&op).Elem()
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		idx, ok := logFields[key]
		if !ok {
			l, c := at.pos(key)
			lg.ds.Errorf(lg.file, l, c, "unknown-key", "unknown key %q in this operation; known keys: %s", key, strings.Join(slices.Sorted(maps.Keys(logFields)), ", "))
			continue
		}
		f := fields.Field(idx)
		if err := json.Unmarshal(obj[key], f.Addr().Interface()); err != nil {
			want := "a string"
			switch f.Kind() {
			case reflect.Slice:
				want = "a list of strings"
			case reflect.Map:
				want = "an object of strings"
			}
			l, c := at.pos(key)
			lg.ds.Errorf(lg.file, l, c, "json-type", "wrong type for %s: expected %s; write %s instead", key, want, want)
		}
	}
	return op, at, true
}

// check validates one decoded operation against the lines before it.
func (lg *opLog) check(op *model.LogOp, at logSpot) {
	errf := func(key, code, format string, args ...any) {
		line, col := at.pos(key)
		lg.ds.Errorf(lg.file, line, col, code, format, args...)
	}
	missing := func(key, what string) {
		errf("", "missing-key", "the operation has no %s; add %q: %s", key, key, what)
	}
	validID := false
	switch prev, dup := lg.seen[op.Op]; {
	case op.Op == "":
		missing("op", "its id, e.g. \"20261102T091400.000Z-3f9a1c\"")
	case !opIDPattern().MatchString(op.Op) || !validOpTime(op.Op):
		errf("op", "bad-op-id", "op id %q is not a UTC time to the millisecond and 6 lowercase hex digits; write it like 20261102T091400.000Z-3f9a1c", op.Op)
	case dup:
		errf("op", "duplicate-op", "op id %s is already used on line %d; give each operation its own id", op.Op, prev)
	case op.Op < lg.last:
		errf("op", "op-order", "op %s comes after op %s but has an earlier id; operations must appear in increasing id order, so append new ones at the end", op.Op, lg.last)
		validID = true
	default:
		validID = true
		lg.last = op.Op
	}

	if op.At == "" {
		missing("at", "the RFC 3339 time it was recorded, e.g. \"2026-11-02T09:14:00Z\"")
	} else if _, err := time.Parse(time.RFC3339Nano, op.At); err != nil {
		if zoneless(op.At) {
			errf("at", "date-no-zone", "at %q has no time zone; add Z for UTC or an offset such as +01:00", op.At)
		} else {
			errf("at", "bad-time", "at %q is not an RFC 3339 time; write it like 2026-11-02T09:14:00Z", op.At)
		}
	}

	if op.Actor == "" {
		missing("actor", "person:<name> or agent:<client>")
	} else if who, name, _ := strings.Cut(op.Actor, ":"); (who != "person" && who != "agent") || strings.TrimSpace(name) == "" {
		errf("actor", "bad-actor", "actor %q is neither person:<name> nor agent:<client>; write it like person:marc or agent:claude-code", op.Actor)
	}

	if op.Kind == "" {
		missing("kind", "one of "+strings.Join(model.OpKinds, ", "))
	} else if !slices.Contains(model.OpKinds, op.Kind) {
		errf("kind", "bad-op-kind", "kind %q is not an operation kind; use one of: %s", op.Kind, strings.Join(model.OpKinds, ", "))
	}

	scheme, name, _ := strings.Cut(op.Target, ":")
	switch {
	case op.Target == "":
		missing("target", "note:<slug> or term:<id>")
	case scheme == "note" && name != "" && !strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
	case scheme == "term" && name != "":
		if !lg.terms[name] {
			errf("target", "unknown-term", "target %s names no term in terms.yaml; use the id of a term there, or add the term (status: proposed) first", op.Target)
		}
	default:
		errf("target", "bad-target", "target %q is neither note:<slug> nor term:<id>; write it like note:release-tone or term:kb", op.Target)
	}

	// A ref names an operation on an earlier line; checking it before this
	// line's own id is recorded keeps an operation from acting on itself.
	what := op.Kind
	if what == "" {
		what = "the operation"
	}
	if op.Ref == "" {
		if op.Kind != model.OpSuggest && slices.Contains(model.OpKinds, op.Kind) {
			errf("", "bad-ref", "%s needs a ref; set ref to the op id of the earlier operation it acts on", op.Kind)
		}
	} else if _, ok := lg.seen[op.Ref]; !ok {
		errf("ref", "bad-ref", "%s refers to op %s, which is not an earlier operation in this log; set ref to the op id of an operation above this line", what, op.Ref)
	}
	if validID {
		lg.seen[op.Op] = op.Line
	}

	checkPathGlobs(lg.file, at, op.Paths, lg.ds)
	checkAxisBindings(lg.file, at, op.Axes, lg.cfg, lg.ds)
	checkValidWindow(lg.file, at, op.ValidFrom, op.ValidUntil, lg.ds)
}

// validOpTime reports whether an id's time part is a real instant (the
// pattern alone accepts month 13).
func validOpTime(id string) bool {
	_, err := time.Parse(opIDTimeLayout, id[:len(opIDTimeLayout)])
	return err == nil
}

// zoneless reports whether s is a date and time that only lacks its zone.
func zoneless(s string) bool {
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// logSpot locates a key of one log line: the line, and the column where the
// key starts (1 when the key is absent).
type logSpot struct {
	line int
	cols map[string]int
}

func (s logSpot) pos(path ...string) (int, int) {
	if len(path) > 0 {
		if c, ok := s.cols[path[0]]; ok {
			return s.line, c
		}
	}
	return s.line, 1
}

func (s logSpot) keyPos(path ...string) (int, int) { return s.pos(path...) }
