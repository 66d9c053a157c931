package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// envelopeKeys are the keys a record document may carry.
var envelopeKeys = []string{"body", "cairn", "collected_at", "count", "date", "fields", "fkf", "layer", "records", "schema", "source", "window_end", "window_start"}

// docReader checks one record document. It walks the JSON with a
// validating scanner that records where every key and value sits, so each
// diagnostic names its line and column, and it only locates records: they
// are decoded later, by projection, in parallel.
type docReader struct {
	path string
	s    string // the document's text
	ds   *diag.List
	keys map[string]int // offset of each envelope key, for messages about it
	// lines finds each record's line and column; the walk asks in order,
	// so the whole document is read once for them.
	lines *diag.Lines
}

func (r *docReader) errorf(off int, code, format string, args ...any) {
	line, col := r.lines.Pos(off)
	r.ds.Errorf(r.path, line, col, code, format, args...)
}

// syntax reports broken JSON at the byte the scanner stopped on.
func (r *docReader) syntax(err error) {
	off := len(r.s)
	var se *fieldpath.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	r.errorf(off, "json-syntax", "invalid JSON: %v; fix the document so that it parses", err)
}

// space skips JSON whitespace from i.
func (r *docReader) space(i int) int {
	for i < len(r.s) && strings.IndexByte(" \t\r\n", r.s[i]) >= 0 {
		i++
	}
	return i
}

// members walks the object that starts at i, calling fn with each key, the
// key's offset and its value's span. It returns the offset after the
// object, or -1 after reporting a syntax error.
func (r *docReader) members(i int, what string, fn func(key string, keyOff, start, end int) bool) int {
	i = r.space(i)
	if i >= len(r.s) || r.s[i] != '{' {
		if _, _, err := fieldpath.SkipValue(r.s, i); err != nil {
			r.syntax(err)
			return -1
		}
		r.errorf(i, "json-type", "%s must be a JSON object", what)
		_, end, _ := fieldpath.SkipValue(r.s, i)
		return end
	}
	if _, end, err := fieldpath.SkipValue(r.s, i); err != nil {
		r.syntax(err)
		return -1
	} else if !r.eachMember(i, fn) {
		return -1
	} else {
		return end
	}
}

// eachMember visits the members of an object already known to be valid.
func (r *docReader) eachMember(i int, fn func(key string, keyOff, start, end int) bool) bool {
	i = r.space(i + 1)
	for i < len(r.s) && r.s[i] != '}' {
		keyOff := i
		_, kend, _ := fieldpath.SkipValue(r.s, i)
		key := plainString(r.s[i:kend])
		if key == "" {
			json.Unmarshal([]byte(r.s[i:kend]), &key)
		}
		i = r.space(kend) + 1 // past ':'
		start, end, _ := fieldpath.SkipValue(r.s, i)
		if !fn(key, keyOff, start, end) {
			return false
		}
		i = r.space(end)
		if i < len(r.s) && r.s[i] == ',' {
			i = r.space(i + 1)
		}
	}
	return true
}

// loadDocument reads and checks the envelope of a record document and
// locates each record's bytes. Records are decoded later, by projection.
func loadDocument(fsys fs.FS, cfg model.Config, p string, ds *diag.List) (model.Document, bool) {
	text, ok := readTextRaw(fsys, p, MaxDocumentBytes, ds)
	if !ok {
		return model.Document{}, false
	}
	return parseDocument(cfg, p, text, ds)
}

// parseDocument is loadDocument of the bytes of document p, as they are
// on disk: a record's span is an offset into them.
func parseDocument(cfg model.Config, p string, text string, ds *diag.List) (model.Document, bool) {
	r := &docReader{path: p, s: text, ds: ds, keys: map[string]int{}, lines: diag.NewLines(text)}
	doc := model.Document{Path: p}
	mark := ds.Len()
	if !r.envelope(&doc) {
		return doc, false
	}
	r.checkEnvelope(cfg, &doc)
	return doc, !ds.HasErrorsSince(mark)
}

// envelope walks the top-level object. It returns false when the JSON
// itself is broken, after reporting where.
func (r *docReader) envelope(doc *model.Document) bool {
	i := 0
	if strings.HasPrefix(r.s, "\xef\xbb\xbf") {
		i = 3 // a UTF-8 byte order mark some editors write; JSON itself has none
	}
	i = r.space(i)
	if i >= len(r.s) || r.s[i] != '{' {
		r.errorf(i, "not-a-document", "a record document is a JSON object with \"cairn\": 1, source, fields and records")
		return false
	}
	seen := map[string]bool{}
	countOff, count := -1, 0
	bodyFlag := -1 // where a boolean body is, which only fkf's documents hold
	visit := func(key string, keyOff, start, end int, elems [][2]int) bool {
		r.keys[key] = keyOff
		if seen[key] {
			r.errorf(keyOff, "duplicate-key", "key %q appears twice; keep one", key)
		}
		seen[key] = true
		// Every envelope value but records is small; records is only located.
		var val []byte
		if key != "records" {
			val = []byte(r.s[start:end])
		}
		switch key {
		case "cairn", "fkf":
			if string(val) != "1" {
				r.errorf(start, "wrong-marker", "marker \"%s\": %s is not a version this cairn reads; use \"%s\": 1", key, val, key)
			}
			if doc.Marker != "" && doc.Marker != key {
				r.errorf(keyOff, "wrong-marker", "the document carries both \"cairn\" and \"fkf\" markers; keep one")
			}
			doc.Marker = key
		case "source":
			r.value(start, val, &doc.Source)
		case "layer":
			r.value(start, val, &doc.Layer)
		case "date":
			r.value(start, val, &doc.Date)
		case "window_start":
			r.stamp(start, val, key, &doc.WindowStart)
		case "window_end":
			r.stamp(start, val, key, &doc.WindowEnd)
		case "collected_at":
			r.stamp(start, val, key, &doc.CollectedAt)
		case "body":
			// cairn's documents describe their body in words; fkf's say, as
			// a boolean, whether a body command is declared.
			if v := string(val); v == "true" || v == "false" {
				bodyFlag = start
				doc.BodyDeclared = v == "true"
			} else {
				r.value(start, val, &doc.Body)
			}
		case "count":
			if r.value(start, val, &count) {
				countOff = start
				if count < 0 {
					r.errorf(start, "bad-count", "count is %d; a count is the number of records, 0 or more", count)
					countOff = -1
				}
			}
		case "schema":
			r.schema(start, doc)
		case "fields":
			r.fields(start, end, doc)
		case "records":
			r.records(start, end, elems, doc)
		default:
			r.errorf(keyOff, "unknown-key", "unknown key %q in the document envelope; known keys: %s", key, strings.Join(envelopeKeys, ", "))
		}
		return true
	}
	members, end, ok := r.walk(i)
	if ok {
		for _, m := range members {
			visit(m.key, m.keyOff, m.start, m.end, m.elems)
		}
	} else {
		// Broken JSON, or JSON the walk does not expect: the validating
		// scanner says where, and nothing else is reported.
		end = r.members(i, "the document", func(key string, keyOff, start, end int) bool {
			return visit(key, keyOff, start, end, nil)
		})
	}
	if end < 0 {
		return false
	}
	if rest := r.space(end); rest < len(r.s) {
		r.errorf(rest, "json-syntax", "unexpected data after the document's closing brace; a record document holds one JSON object")
		return false
	}
	if bodyFlag >= 0 && doc.Marker == "cairn" {
		r.errorf(bodyFlag, "json-type", "body in a cairn document describes the body in words, a string; a true or false body is fkf's, in a document marked \"fkf\": 1")
	}
	if !seen["records"] {
		r.errorf(i, "no-records", "the document has no \"records\" list; add \"records\": [] even when it holds none, so that an empty source is said, not implied")
	}
	if countOff >= 0 && count != len(doc.Records) {
		r.errorf(countOff, "bad-count", "count is %d but the document holds %d records; fix count or remove it", count, len(doc.Records))
	}
	return true
}

// plainString is the JSON string s when it needs no decoding (it holds no
// escape, control character or invalid UTF-8), else "": most keys and
// values of an envelope, which a JSON decoder would read through
// reflection. The result shares s; a value kept past the document's
// text is cloned.
func plainString(s string) string {
	if len(s) < 3 || s[0] != '"' || s[len(s)-1] != '"' {
		return ""
	}
	ascii := true
	for i := 1; i < len(s)-1; i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"' || c < 0x20:
			return ""
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.ValidString(s) {
		return "" // the decoder reads each bad byte as U+FFFD
	}
	return s[1 : len(s)-1]
}

// value decodes one envelope value, reporting a type mismatch at off.
func (r *docReader) value(off int, val []byte, v any) bool {
	switch v := v.(type) {
	case *string:
		if s := plainString(string(val)); s != "" { // string(val) is a copy
			*v = s
			return true
		}
	case *int:
		if n, err := strconv.Atoi(string(val)); err == nil && val[0] != '+' {
			*v = n
			return true
		}
	}
	d := json.NewDecoder(bytes.NewReader(val))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			r.errorf(off, "json-type", "expected %s here, found JSON %s", te.Type, te.Value)
		} else {
			r.errorf(off, "json-type", "%v", err)
		}
		return false
	}
	return true
}

// stamp decodes an RFC 3339 timestamp that must carry a zone.
func (r *docReader) stamp(off int, val []byte, key string, dst *string) {
	if r.value(off, val, dst) && *dst != "" {
		if _, err := ParseStamp(*dst); err != nil {
			r.errorf(off, "date-no-zone", "%s %q: %v", key, *dst, err)
		}
	}
}

// ParseStamp parses an RFC 3339 time that must name its zone (Z or an
// offset); a local time without zone is ambiguous across machines.
func ParseStamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02T15:04"} {
		if _, e := time.Parse(layout, s); e == nil {
			return time.Time{}, errors.New("the time has no zone; add Z for UTC or an offset like +01:00")
		}
	}
	return time.Time{}, errors.New("not an RFC 3339 time; write it like 2026-11-02T09:14:00Z")
}

func (r *docReader) schema(i int, doc *model.Document) {
	seen := map[string]bool{}
	r.members(i, "schema", func(key string, keyOff, start, end int) bool {
		if r.repeated(seen, "schema", key, keyOff) {
			return true
		}
		if !IsFieldName(key) {
			r.errorf(keyOff, "bad-field-name", "field name %q must match ^[a-z][a-z0-9_-]*$; rename it", key)
		}
		// A document declares what its fields mean; how much they weigh
		// is the root schema's, so weight is not a key here.
		var decl struct {
			Relation    bool     `json:"relation"`
			Cardinality string   `json:"cardinality"`
			Description string   `json:"description"`
			Examples    []string `json:"examples"`
		}
		d := json.NewDecoder(strings.NewReader(r.s[start:end]))
		d.DisallowUnknownFields()
		if err := d.Decode(&decl); err != nil {
			r.errorf(start, "bad-schema", "schema of field %q: %v; a document's schema declares relation, cardinality, description and examples (weights belong in cairn.yaml)", key, err)
			return true
		}
		spec := model.FieldSpec{Relation: decl.Relation, Cardinality: decl.Cardinality, Description: decl.Description, Examples: decl.Examples}
		if spec.Cardinality != "" && !slices.Contains(Cardinalities, spec.Cardinality) {
			r.errorf(start, "bad-cardinality", "cardinality of %q is %q; use one of: %s", key, spec.Cardinality, strings.Join(Cardinalities, ", "))
		}
		if doc.Schema == nil {
			doc.Schema = map[string]model.FieldSpec{}
		}
		doc.Schema[strings.Clone(key)] = spec // the key shares the document's text
		return true
	})
}

// repeated reports a key seen before in the same object, which JSON
// decoders resolve silently (the last wins) and a document must not rely on.
func (r *docReader) repeated(seen map[string]bool, object, key string, keyOff int) bool {
	if seen[key] {
		r.errorf(keyOff, "duplicate-key", "key %q appears twice in %s; keep one", key, object)
		return true
	}
	seen[key] = true
	return false
}

// fieldMaps holds the fields maps documents declared without a mistake,
// by their JSON text: a base's documents mostly declare a few, one per
// source, so each is parsed and its paths checked once. A build or a
// query reads one base, so it holds a handful; it is emptied, should it
// ever hold many.
var fieldMaps struct {
	sync.Mutex
	byText map[string][]model.FieldMap
}

// maxFieldMaps bounds fieldMaps.
const maxFieldMaps = 1 << 10

// fields reads the fields map, the object from i to end, sorted by field.
func (r *docReader) fields(i, end int, doc *model.Document) {
	text := r.s[i:end]
	// A second fields key, an error already reported, is read onto the
	// first's entries and kept by no one else.
	first := doc.Fields == nil
	if first {
		fieldMaps.Lock()
		fms, ok := fieldMaps.byText[text]
		fieldMaps.Unlock()
		if ok {
			doc.Fields = fms // shared: no reader changes a document's fields map
			return
		}
	}
	mark := r.ds.Len()
	r.readFields(i, doc)
	slices.SortFunc(doc.Fields, func(a, b model.FieldMap) int { return strings.Compare(a.Field, b.Field) })
	if !first || r.ds.HasErrorsSince(mark) {
		return
	}
	doc.Fields = slices.Clip(doc.Fields)
	fieldMaps.Lock()
	if fieldMaps.byText == nil || len(fieldMaps.byText) >= maxFieldMaps {
		fieldMaps.byText = map[string][]model.FieldMap{}
	}
	fieldMaps.byText[strings.Clone(text)] = doc.Fields
	fieldMaps.Unlock()
}

func (r *docReader) readFields(i int, doc *model.Document) {
	seen := map[string]bool{}
	r.members(i, "fields", func(key string, keyOff, start, end int) bool {
		if r.repeated(seen, "fields", key, keyOff) {
			return true
		}
		raw := []byte(r.s[start:end])
		if !IsFieldName(key) {
			r.errorf(keyOff, "bad-field-name", "field name %q must match ^[a-z][a-z0-9_-]*$; rename it", key)
		}
		var paths []string
		var one string
		if one = plainString(string(raw)); one != "" {
			paths = []string{one} // string(raw) is a copy of its own
		} else if err := json.Unmarshal(raw, &one); err == nil {
			paths = []string{one}
		} else if err := json.Unmarshal(raw, &paths); err != nil || len(paths) == 0 {
			r.errorf(start, "bad-field-path", "field %q maps to %s; map it to a path string like \".title\" or a non-empty list of them", key, raw)
			return true
		}
		for _, p := range paths {
			if _, err := fieldpath.Parse(p); err != nil {
				r.errorf(start, "bad-field-path", "field %q path %q: %v", key, p, err)
			}
		}
		doc.Fields = append(doc.Fields, model.FieldMap{Field: strings.Clone(key), Paths: paths})
		return true
	})
}

// member is one member of the envelope as walk finds it: its key, where
// the key starts, its value's span and, for the records array, each
// element's span.
type member struct {
	key                string
	keyOff, start, end int
	elems              [][2]int
}

// walk reads the envelope object that starts at i in one validating pass,
// the records located on the way: the array of records is most of a
// document, and checking the whole object, then each member, then each
// record would walk it three times. ok is false when the JSON is broken
// (or has a shape the walk does not follow); the caller then goes the way
// that reports where.
func (r *docReader) walk(i int) (members []member, end int, ok bool) {
	i = r.space(i + 1)
	if i < len(r.s) && r.s[i] == '}' {
		return nil, i + 1, true
	}
	for i < len(r.s) && r.s[i] == '"' {
		_, kend, err := fieldpath.SkipValue(r.s, i)
		if err != nil {
			return nil, 0, false
		}
		m := member{keyOff: i}
		if m.key = plainString(r.s[i:kend]); m.key == "" && json.Unmarshal([]byte(r.s[i:kend]), &m.key) != nil {
			return nil, 0, false
		}
		if i = r.space(kend); i >= len(r.s) || r.s[i] != ':' {
			return nil, 0, false
		}
		i = r.space(i + 1)
		if m.key == "records" && i < len(r.s) && r.s[i] == '[' {
			m.start, m.end, m.elems, ok = r.elements(i)
		} else {
			m.start, m.end, err = fieldpath.SkipValue(r.s, i)
			ok = err == nil
		}
		if !ok {
			return nil, 0, false
		}
		members = append(members, m)
		switch i = r.space(m.end); {
		case i < len(r.s) && r.s[i] == ',':
			i = r.space(i + 1)
		case i < len(r.s) && r.s[i] == '}':
			return members, i + 1, true
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// elements validates the array that starts at i and returns its span and
// each element's.
func (r *docReader) elements(i int) (start, end int, elems [][2]int, ok bool) {
	start = i
	if i = r.space(i + 1); i < len(r.s) && r.s[i] == ']' {
		return start, i + 1, nil, true
	}
	for {
		s, e, err := fieldpath.SkipValue(r.s, i)
		if err != nil {
			return 0, 0, nil, false
		}
		elems = append(elems, [2]int{s, e})
		switch i = r.space(e); {
		case i < len(r.s) && r.s[i] == ',':
			i = r.space(i + 1)
		case i < len(r.s) && r.s[i] == ']':
			return start, i + 1, elems, true
		default:
			return 0, 0, nil, false
		}
	}
}

// records locates each record's bytes, line and column without decoding
// it; the array's syntax was already checked with the whole envelope, and
// elems are its elements' spans when the walk found them.
func (r *docReader) records(i, end int, elems [][2]int, doc *model.Document) {
	if r.s[i] != '[' {
		r.errorf(i, "json-type", "records must be a JSON array of objects")
		return
	}
	if elems == nil {
		elems = r.arrayElements(i, end)
	}
	for _, e := range elems {
		start, stop := e[0], e[1]
		line, col := r.lines.Pos(start)
		if r.s[start] != '{' {
			r.ds.Errorf(r.path, line, col, "json-type", "record %d is not a JSON object; each record is an object", len(doc.Records)+1)
		} else {
			doc.Records = append(doc.Records, model.Record{
				Raw:    r.s[start:stop],
				Line:   line,
				Col:    col,
				Offset: int64(start),
				Length: int64(stop - start),
			})
		}
	}
}

// arrayElements is the span of each element of the array at i, which ends
// at end and was already checked.
func (r *docReader) arrayElements(i, end int) [][2]int {
	var elems [][2]int
	for i = r.space(i + 1); i < end && r.s[i] != ']'; {
		start, stop, _ := fieldpath.SkipValue(r.s, i)
		elems = append(elems, [2]int{start, stop})
		if i = r.space(stop); i < end && r.s[i] == ',' {
			i = r.space(i + 1)
		}
	}
	return elems
}

func (r *docReader) checkEnvelope(cfg model.Config, doc *model.Document) {
	stem := strings.TrimSuffix(path.Base(doc.Path), ".json")
	wantLayer, day := model.LayerIndex, ""
	if rest, ok := under(doc.Path, cfg.Layers.Events); ok {
		wantLayer, day = model.LayerEvents, strings.Split(rest, "/")[0]
	}
	if doc.Marker == "" {
		r.errorf(0, "wrong-marker", "the document has no \"cairn\": 1 marker; add it as the first key")
	}
	switch {
	case doc.Source == "":
		r.errorf(0, "no-source", "the document names no source; add \"source\": %q", stem)
	case doc.Source != stem:
		r.errorf(r.keys["source"], "bad-source", "source %q does not match the file name %q; rename the file or fix source", doc.Source, stem+".json")
	}
	if !isSourceName(stem) {
		r.errorf(0, "bad-source-name", "source name %q must be letters, digits, dot, dash or underscore; rename the file", stem)
	}
	switch {
	case doc.Layer == "":
		doc.Layer = wantLayer
	case doc.Layer != wantLayer:
		r.errorf(r.keys["layer"], "bad-layer", "layer %q does not match the folder, which holds %s documents; fix layer", doc.Layer, wantLayer)
		doc.Layer = wantLayer
	}
	if wantLayer == model.LayerEvents {
		switch {
		case doc.Date == "":
			doc.Date = day
		case doc.Date != day:
			r.errorf(r.keys["date"], "bad-date", "date %q does not match the folder day %s; move the file or fix date", doc.Date, day)
		}
		if _, err := time.Parse(time.DateOnly, day); err != nil {
			r.errorf(0, "bad-date", "folder %q is not a real day; name it YYYY-MM-DD", day)
		}
	} else if doc.Date != "" {
		if _, err := time.Parse(time.DateOnly, doc.Date); err != nil {
			r.errorf(r.keys["date"], "bad-date", "date %q is not YYYY-MM-DD", doc.Date)
		}
	}
	mapped := map[string]bool{}
	for _, f := range doc.Fields {
		mapped[f.Field] = true
	}
	// fkf makes title an optional display field; cairn's documents map it.
	need, rule := []string{"id", "title"}, "every source maps id and title, and events map time too"
	if doc.Marker == "fkf" {
		need, rule = []string{"id"}, "every fkf source maps id, and events map time too"
	}
	if wantLayer == model.LayerEvents {
		need = append(need, "time")
	}
	for _, f := range need {
		if !mapped[f] {
			r.errorf(r.keys["fields"], "missing-field", "the fields map does not map %q; %s", f, rule)
		}
	}
}
