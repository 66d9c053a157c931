package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/fieldpath"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/model"
)

// OutputError is a command's output that cannot be a document, at its
// position in what the command printed.
type OutputError struct {
	Line, Col int
	Msg       string
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("output line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// outputReader checks one command's output and takes its records.
type outputReader struct {
	s     string
	lines *diag.Lines
}

func (r *outputReader) errorf(off int, format string, args ...any) error {
	line, col := r.lines.Pos(off)
	return &OutputError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (r *outputReader) space(i int) int {
	for i < len(r.s) && (r.s[i] == ' ' || r.s[i] == '\t' || r.s[i] == '\r' || r.s[i] == '\n') {
		i++
	}
	return i
}

// parseRecords reads what a source's command printed: one JSON document,
// either an array of record objects or an object whose only key is
// "records", holding that array. It returns each record compacted, in
// the order printed.
func parseRecords(out []byte) ([]string, []int, error) {
	r := &outputReader{s: string(out), lines: diag.NewLines(string(out))}
	var v json.RawMessage
	if err := json.Unmarshal(out, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset)
			if off > 0 {
				off-- // the offset is past the byte that broke the JSON
			}
			return nil, nil, r.errorf(off, "invalid JSON: %v; the command must print one JSON document", err)
		}
		return nil, nil, r.errorf(len(r.s), "invalid JSON: %v; the command must print one JSON document", err)
	}
	i := r.space(0)
	if r.s[i] == '{' {
		start, err := r.recordsMember(i)
		if err != nil {
			return nil, nil, err
		}
		i = start
	}
	if r.s[i] != '[' {
		return nil, nil, r.errorf(i, "expected a JSON array of records or an object holding \"records\"")
	}
	var recs []string
	var offs []int
	_, end, _ := fieldpath.SkipValue(r.s, i)
	for j := r.space(i + 1); j < end-1; {
		start, stop, _ := fieldpath.SkipValue(r.s, j)
		if r.s[start] != '{' {
			return nil, nil, r.errorf(start, "record %d is not a JSON object; each record is an object", len(recs)+1)
		}
		var b bytes.Buffer
		json.Compact(&b, out[start:stop]) // valid: the whole output parsed
		recs = append(recs, b.String())
		offs = append(offs, start)
		j = r.space(stop)
		if j < end && r.s[j] == ',' {
			j = r.space(j + 1)
		}
	}
	return recs, offs, nil
}

// recordsMember finds the records array of the object at i, refusing any
// other key: a misspelt key would otherwise drop the records unseen.
func (r *outputReader) recordsMember(i int) (int, error) {
	found := -1
	j := r.space(i + 1)
	for j < len(r.s) && r.s[j] != '}' {
		keyOff := j
		_, kend, _ := fieldpath.SkipValue(r.s, j)
		var key string
		json.Unmarshal([]byte(r.s[j:kend]), &key)
		j = r.space(r.space(kend) + 1)
		_, vend, _ := fieldpath.SkipValue(r.s, j)
		switch {
		case key != "records":
			return 0, r.errorf(keyOff, "unknown key %q; the output is an array of records, or an object whose only key is \"records\"", key)
		case found >= 0:
			return 0, r.errorf(keyOff, "key \"records\" appears twice; keep one")
		}
		found = j
		j = r.space(vend)
		if j < len(r.s) && r.s[j] == ',' {
			j = r.space(j + 1)
		}
	}
	if found < 0 {
		return 0, r.errorf(i, "the object holds no \"records\"; print {\"records\": []} for a day with none")
	}
	return found, nil
}

// fieldMap is a source's fields map, parsed once.
type fieldMap struct {
	names []string
	paths [][]fieldpath.Path
}

func compileFields(fields map[string]model.FieldPaths) (fieldMap, error) {
	var fm fieldMap
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		var ps []fieldpath.Path
		for _, src := range fields[name] {
			p, err := fieldpath.Parse(src)
			if err != nil {
				return fm, fmt.Errorf("field %q path %q: %w", name, src, err)
			}
			ps = append(ps, p)
		}
		fm.names = append(fm.names, name)
		fm.paths = append(fm.paths, ps)
	}
	return fm, nil
}

// values evaluates one field over a decoded record.
func (fm fieldMap) values(v *fieldpath.Value, field string) []string {
	i := slices.Index(fm.names, field)
	if i < 0 {
		return nil
	}
	var out []string
	for _, p := range fm.paths[i] {
		out = p.Eval(v, out)
	}
	return out
}

// checkRecords validates each record through the fields map, as the
// build will project it: an id that is there and unique in the document,
// and for events a time with a zone inside the day's window, so that a
// record is never filed under a day it does not belong to.
func checkRecords(out []byte, recs []string, offs []int, fm fieldMap, layer string, win window) error {
	r := &outputReader{s: string(out), lines: diag.NewLines(string(out))}
	seen := make(map[string]int, len(recs))
	for n, rec := range recs {
		v, err := fieldpath.ParseJSON(rec)
		if err != nil {
			return r.errorf(offs[n], "record %d: %v", n+1, err)
		}
		ids := fm.values(&v, "id")
		if len(ids) == 0 || ids[0] == "" {
			return r.errorf(offs[n], "record %d has no id: the id path %s gives nothing; every record needs one", n+1, pathsOf(fm, "id"))
		}
		if prev, ok := seen[ids[0]]; ok {
			return r.errorf(offs[n], "record %d has the id %q of record %d; ids are unique in a document", n+1, ids[0], prev)
		}
		seen[ids[0]] = n + 1
		if layer != model.LayerEvents {
			continue
		}
		times := fm.values(&v, "time")
		if len(times) == 0 {
			return r.errorf(offs[n], "record %d (id %q) has no time: the time path %s gives nothing; events need one", n+1, ids[0], pathsOf(fm, "time"))
		}
		t, err := load.ParseStamp(times[0])
		if err != nil {
			return r.errorf(offs[n], "record %d (id %q): time %q: %v", n+1, ids[0], times[0], err)
		}
		if t.Before(win.Start) || !t.Before(win.End) {
			return r.errorf(offs[n], "record %d (id %q): time %s is outside the window %s to %s; print only the records of the day asked for", n+1, ids[0], times[0], stamp(win.Start), stamp(win.End))
		}
	}
	return nil
}

func pathsOf(fm fieldMap, field string) string {
	i := slices.Index(fm.names, field)
	if i < 0 {
		return "(none)"
	}
	var b bytes.Buffer
	for j, p := range fm.paths[i] {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// dayWindow is the window of one UTC day.
func dayWindow(day time.Time) window { return window{Start: day, End: day.AddDate(0, 0, 1)} }
