package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
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

// parseOutput reads what a source's command printed, in the form its
// source says: one JSON document (parseRecords), its records at a path
// inside it (fkf's records key), or one record a line (fkf's ndjson). It
// returns each record compacted, in the order printed, with the offset
// where it starts in out.
func parseOutput(out []byte, s model.SourcePolicy) ([]string, []int, error) {
	switch {
	case s.Format == "ndjson":
		return parseLines(out)
	case s.Records != "":
		return parseAt(out, s.Records)
	}
	return parseRecords(out)
}

// parseRecords reads one JSON document, either an array of record objects
// or an object whose only key is "records", holding that array.
func parseRecords(out []byte) ([]string, []int, error) {
	r, err := readJSON(out)
	if err != nil {
		return nil, nil, err
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
	return r.array(i)
}

// parseAt reads one JSON object holding the records array at path, a
// path of keys (".data.items"); the object's other keys are the command's
// own (a next page, a total) and are not read.
func parseAt(out []byte, path string) ([]string, []int, error) {
	p, err := fieldpath.Parse(path)
	if err != nil {
		return nil, nil, fmt.Errorf("records %q: %w", path, err)
	}
	keys, ok := p.Keys()
	if !ok {
		return nil, nil, fmt.Errorf("records %q selects values, not one place; write a path of keys like .data.items", path)
	}
	r, err := readJSON(out)
	if err != nil {
		return nil, nil, err
	}
	i := r.space(0)
	for k, key := range keys {
		if r.s[i] != '{' {
			return nil, nil, r.errorf(i, "expected an object holding %q on the way to records %s", key, path)
		}
		if i = r.member(i, key); i < 0 {
			return nil, nil, r.errorf(r.space(0), "the output has no %s (records: %s); print an empty list there for a day with none", keysPath(keys[:k+1]), path)
		}
	}
	if r.s[i] != '[' {
		return nil, nil, r.errorf(i, "records %s is not a JSON array of records", path)
	}
	return r.array(i)
}

// keysPath writes keys as the path that walks them.
func keysPath(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("." + k)
	}
	return b.String()
}

// parseLines reads one JSON record object a line, as fkf's ndjson format
// has it; blank lines are skipped, and an empty output is no records.
func parseLines(out []byte) ([]string, []int, error) {
	r := &outputReader{s: string(out), lines: diag.NewLines(string(out))}
	var recs []string
	var offs []int
	for off := 0; off < len(out); {
		end := bytes.IndexByte(out[off:], '\n')
		if end < 0 {
			end = len(out)
		} else {
			end += off
		}
		line := bytes.TrimSpace(out[off:end])
		if len(line) > 0 {
			start := off + bytes.Index(out[off:end], line[:1])
			if !json.Valid(line) {
				var v any
				err := json.Unmarshal(line, &v)
				return nil, nil, r.errorf(start, "invalid JSON: %v; each line holds one record object", err)
			}
			if line[0] != '{' {
				return nil, nil, r.errorf(start, "record %d is not a JSON object; each line holds one record object", len(recs)+1)
			}
			var b bytes.Buffer
			json.Compact(&b, line) // valid: checked above
			recs = append(recs, b.String())
			offs = append(offs, start)
		}
		off = end + 1
	}
	return recs, offs, nil
}

// readJSON checks that out is one JSON document, and returns its reader.
func readJSON(out []byte) (*outputReader, error) {
	r := &outputReader{s: string(out), lines: diag.NewLines(string(out))}
	var v json.RawMessage
	if err := json.Unmarshal(out, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset)
			if off > 0 {
				off-- // the offset is past the byte that broke the JSON
			}
			return nil, r.errorf(off, "invalid JSON: %v; the command must print one JSON document", err)
		}
		return nil, r.errorf(len(r.s), "invalid JSON: %v; the command must print one JSON document", err)
	}
	return r, nil
}

// array takes the records of the JSON array at i, each one an object.
func (r *outputReader) array(i int) ([]string, []int, error) {
	var recs []string
	var offs []int
	_, end, _ := fieldpath.SkipValue(r.s, i)
	for j := r.space(i + 1); j < end-1; {
		start, stop, _ := fieldpath.SkipValue(r.s, j)
		if r.s[start] != '{' {
			return nil, nil, r.errorf(start, "record %d is not a JSON object; each record is an object", len(recs)+1)
		}
		var b bytes.Buffer
		json.Compact(&b, []byte(r.s[start:stop])) // valid: the whole output parsed
		recs = append(recs, b.String())
		offs = append(offs, start)
		j = r.space(stop)
		if j < end && r.s[j] == ',' {
			j = r.space(j + 1)
		}
	}
	return recs, offs, nil
}

// member is where the value of key starts in the object at i, -1 when
// the object has no such key. The JSON is known valid.
func (r *outputReader) member(i int, key string) int {
	j := r.space(i + 1)
	for j < len(r.s) && r.s[j] != '}' {
		_, kend, _ := fieldpath.SkipValue(r.s, j)
		var k string
		json.Unmarshal([]byte(r.s[j:kend]), &k)
		j = r.space(r.space(kend) + 1)
		if k == key {
			return j
		}
		_, vend, _ := fieldpath.SkipValue(r.s, j)
		j = r.space(vend)
		if j < len(r.s) && r.s[j] == ',' {
			j = r.space(j + 1)
		}
	}
	return -1
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
