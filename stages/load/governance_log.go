package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

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
// A line that decodes in one typed pass is taken as it is; only the others
// are taken apart key by key, to say exactly what is wrong where.
func (lg *opLog) decode(line int, raw []byte) (model.LogOp, logSpot, bool) {
	if op, ok := decodeWhole(raw); ok {
		return op, logSpot{line: line, raw: raw}, true
	}
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
	keyColumns(raw, func(key string, col int) {
		if _, dup := at.cols[key]; dup {
			lg.ds.Errorf(lg.file, line, col, "duplicate-key", "key %q appears twice in this operation; keep one", key)
		} else {
			at.cols[key] = col
		}
	})
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

// decodeWhole decodes a line in one typed pass when it is an object of
// known keys, each once, with values of their types, and nothing after it:
// what decode would make of it, without the diagnostics it does not need.
// A line holding a \u escape is left to decode, since a key spelled with
// one could repeat another.
func decodeWhole(raw []byte) (model.LogOp, bool) {
	var op model.LogOp
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || bytes.Contains(raw, []byte(`\u`)) || keyTwice(raw) {
		return op, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&op) != nil {
		return op, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return op, false
	}
	return op, true
}

// keyTwice reports whether a key of an operation may appear twice in raw:
// a quoted key name followed by a colon can only be a key (a string value
// is followed by a comma or a bracket), though it may be a key of a nested
// object; decode then tells which.
func keyTwice(raw []byte) bool {
	for key := range logFields {
		quoted := `"` + key + `"`
		n := 0
		for rest := raw; ; {
			i := bytes.Index(rest, []byte(quoted))
			if i < 0 {
				break
			}
			rest = rest[i+len(quoted):]
			if t := bytes.TrimLeft(rest, " \t\r"); len(t) > 0 && t[0] == ':' {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// keyColumns calls fn with each top-level key of a JSON object line and
// the column of its opening quote, in order, repeats included.
func keyColumns(raw []byte, fn func(key string, col int)) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // the opening brace; the line is known to be an object
	for dec.More() {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := tok.(string)
		fn(key, start+bytes.IndexByte(raw[start:], '"')+1)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return
		}
	}
}

// logSpot locates a key of one log line: the line, and the column where the
// key starts (1 when the key is absent). The columns are read from raw the
// first time one is asked for, when cols is not given.
type logSpot struct {
	line int
	cols map[string]int
	raw  []byte
}

func (s logSpot) pos(path ...string) (int, int) {
	if len(path) == 0 {
		return s.line, 1
	}
	if s.cols == nil && s.raw != nil {
		s.cols = map[string]int{}
		keyColumns(s.raw, func(key string, col int) {
			if _, seen := s.cols[key]; !seen {
				s.cols[key] = col
			}
		})
	}
	if c, ok := s.cols[path[0]]; ok {
		return s.line, c
	}
	return s.line, 1
}

func (s logSpot) keyPos(path ...string) (int, int) { return s.pos(path...) }
