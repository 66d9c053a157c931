package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/fieldpath"
	"github.com/cairn-kb/cairn/stages/model"
)

// envelopeKeys are the keys a record document may carry.
var envelopeKeys = []string{"body", "cairn", "collected_at", "count", "date", "fields", "fkf", "layer", "records", "schema", "source", "window_end", "window_start"}

// docReader decodes one record document token by token, so that every
// diagnostic can name the line and column it is about.
type docReader struct {
	path string
	data []byte
	dec  *json.Decoder
	ds   *diag.List
	keys map[string]int64 // offset of each envelope key, for messages about it
}

// at converts a byte offset to a position, skipping the separators the
// decoder has already consumed so that it points at the next value.
func (r *docReader) at(off int64) (int, int) {
	for off < int64(len(r.data)) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	return diag.LineCol(r.data, off)
}

func (r *docReader) errorf(off int64, code, format string, args ...any) {
	line, col := r.at(off)
	r.ds.Errorf(r.path, line, col, code, format, args...)
}

// syntax reports a decoding error where it is. The streaming decoder's
// offsets are relative to the value it was reading, so a syntax error is
// located again by validating the whole document, whose offsets are
// absolute: the offending byte is the last one read.
func (r *docReader) syntax(err error) {
	var se *json.SyntaxError
	off := r.dec.InputOffset()
	if errors.As(err, &se) {
		var whole json.RawMessage
		if err2 := json.Unmarshal(r.data, &whole); errors.As(err2, &se) {
			off, err = se.Offset-1, err2
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		off = int64(len(r.data))
		err = errors.New("unexpected end of file")
	}
	line, col := diag.LineCol(r.data, max(off, 0))
	r.ds.Errorf(r.path, line, col, "json-syntax", "invalid JSON: %v; fix the document so that it parses", err)
}

// loadDocument reads and checks the envelope of a record document and
// locates each record's bytes. Records are decoded later, by projection.
func loadDocument(fsys fs.FS, cfg model.Config, p string, ds *diag.List) (model.Document, bool) {
	data, ok := readFile(fsys, p, MaxDocumentBytes, ds)
	if !ok {
		return model.Document{}, false
	}
	r := &docReader{path: p, data: data, ds: ds, dec: json.NewDecoder(bytes.NewReader(data)), keys: map[string]int64{}}
	r.dec.UseNumber()
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
	tok, err := r.dec.Token()
	if err != nil {
		r.syntax(err)
		return false
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		r.errorf(0, "not-a-document", "a record document is a JSON object with \"cairn\": 1, source, fields and records")
		return false
	}
	seen := map[string]bool{}
	var countOff int64 = -1
	count := -1
	for r.dec.More() {
		keyOff := r.dec.InputOffset()
		tok, err := r.dec.Token()
		if err != nil {
			r.syntax(err)
			return false
		}
		key := tok.(string)
		r.keys[key] = keyOff
		if seen[key] {
			r.errorf(keyOff, "duplicate-key", "key %q appears twice; keep one", key)
		}
		seen[key] = true
		valOff := r.dec.InputOffset()
		var ok bool
		switch key {
		case "cairn", "fkf":
			var n json.Number
			ok = r.value(&n)
			if ok && n.String() != "1" {
				r.errorf(valOff, "wrong-marker", "marker \"%s\": %s is not a version this cairn reads; use \"%s\": 1", key, n, key)
			}
			if doc.Marker != "" {
				r.errorf(keyOff, "wrong-marker", "the document carries both \"cairn\" and \"fkf\" markers; keep one")
			}
			doc.Marker = key
		case "source":
			ok = r.value(&doc.Source)
		case "layer":
			ok = r.value(&doc.Layer)
		case "date":
			ok = r.value(&doc.Date)
		case "window_start":
			ok = r.stamp(valOff, key, &doc.WindowStart)
		case "window_end":
			ok = r.stamp(valOff, key, &doc.WindowEnd)
		case "collected_at":
			ok = r.stamp(valOff, key, &doc.CollectedAt)
		case "body":
			ok = r.value(&doc.Body)
		case "count":
			countOff = valOff
			ok = r.value(&count)
		case "schema":
			ok = r.schema(doc)
		case "fields":
			ok = r.fields(doc)
		case "records":
			ok = r.records(doc)
		default:
			r.errorf(keyOff, "unknown-key", "unknown key %q in the document envelope; known keys: %s", key, strings.Join(envelopeKeys, ", "))
			var skip json.RawMessage
			ok = r.value(&skip)
		}
		if !ok {
			return false
		}
	}
	if _, err := r.dec.Token(); err != nil {
		r.syntax(err)
		return false
	}
	if _, err := r.dec.Token(); err != io.EOF {
		r.errorf(r.dec.InputOffset(), "json-syntax", "unexpected data after the document's closing brace; a record document holds one JSON object")
		return false
	}
	if count >= 0 && count != len(doc.Records) {
		r.errorf(countOff, "bad-count", "count is %d but the document holds %d records; fix count or remove it", count, len(doc.Records))
	}
	return true
}

// value decodes the next value into v, reporting syntax and type errors.
func (r *docReader) value(v any) bool {
	off := r.dec.InputOffset()
	if err := r.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			r.errorf(off, "json-type", "expected %s here, found JSON %s", te.Type, te.Value)
			return true // the decoder has consumed the value; go on
		}
		r.syntax(err)
		return false
	}
	return true
}

// stamp decodes an RFC 3339 timestamp that must carry a zone.
func (r *docReader) stamp(off int64, key string, dst *string) bool {
	if !r.value(dst) {
		return false
	}
	if *dst != "" {
		if _, err := ParseStamp(*dst); err != nil {
			r.errorf(off, "date-no-zone", "%s %q: %v", key, *dst, err)
		}
	}
	return true
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

func (r *docReader) schema(doc *model.Document) bool {
	return r.object("schema", func(key string, keyOff int64) bool {
		var raw json.RawMessage
		valOff := r.dec.InputOffset()
		if !r.value(&raw) {
			return false
		}
		if !FieldNameRe.MatchString(key) {
			r.errorf(keyOff, "bad-field-name", "field name %q must match ^[a-z][a-z0-9_-]*$; rename it", key)
		}
		var spec model.FieldSpec
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&spec); err != nil {
			r.errorf(valOff, "bad-schema", "schema of field %q: %v; a field declares relation, cardinality, description, examples", key, err)
			return true
		}
		if spec.Cardinality != "" && !slices.Contains(Cardinalities, spec.Cardinality) {
			r.errorf(valOff, "bad-cardinality", "cardinality of %q is %q; use one of: %s", key, spec.Cardinality, strings.Join(Cardinalities, ", "))
		}
		if doc.Schema == nil {
			doc.Schema = map[string]model.FieldSpec{}
		}
		doc.Schema[key] = spec
		return true
	})
}

func (r *docReader) fields(doc *model.Document) bool {
	return r.object("fields", func(key string, keyOff int64) bool {
		valOff := r.dec.InputOffset()
		var raw json.RawMessage
		if !r.value(&raw) {
			return false
		}
		if !FieldNameRe.MatchString(key) {
			r.errorf(keyOff, "bad-field-name", "field name %q must match ^[a-z][a-z0-9_-]*$; rename it", key)
		}
		var paths []string
		var one string
		if err := json.Unmarshal(raw, &one); err == nil {
			paths = []string{one}
		} else if err := json.Unmarshal(raw, &paths); err != nil || len(paths) == 0 {
			r.errorf(valOff, "bad-field-path", "field %q maps to %s; map it to a path string like \".title\" or a non-empty list of them", key, raw)
			return true
		}
		for _, p := range paths {
			if _, err := fieldpath.Parse(p); err != nil {
				r.errorf(valOff, "bad-field-path", "field %q path %q: %v", key, p, err)
			}
		}
		doc.Fields = append(doc.Fields, model.FieldMap{Field: key, Paths: paths})
		return true
	})
}

// object walks a JSON object value, calling each for its keys; the callback
// decodes the value.
func (r *docReader) object(name string, each func(key string, keyOff int64) bool) bool {
	off := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		r.syntax(err)
		return false
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		r.errorf(off, "json-type", "%s must be a JSON object", name)
		return tok == nil || isScalar(tok)
	}
	for r.dec.More() {
		keyOff := r.dec.InputOffset()
		tok, err := r.dec.Token()
		if err != nil {
			r.syntax(err)
			return false
		}
		if !each(tok.(string), keyOff) {
			return false
		}
	}
	if _, err := r.dec.Token(); err != nil {
		r.syntax(err)
		return false
	}
	return true
}

func isScalar(tok json.Token) bool {
	_, delim := tok.(json.Delim)
	return !delim
}

// records locates each record's bytes and line without decoding it.
func (r *docReader) records(doc *model.Document) bool {
	off := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		r.syntax(err)
		return false
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		r.errorf(off, "json-type", "records must be a JSON array of objects")
		return tok == nil || isScalar(tok)
	}
	line, lineOff := 1, int64(0)
	for r.dec.More() {
		start := r.dec.InputOffset()
		var raw json.RawMessage
		if err := r.dec.Decode(&raw); err != nil {
			r.syntax(err)
			return false
		}
		end := r.dec.InputOffset()
		for start < end && strings.IndexByte(" \t\r\n,", r.data[start]) >= 0 {
			start++
		}
		line += bytes.Count(r.data[lineOff:start], []byte{'\n'})
		lineOff = start
		col := int(start) - bytes.LastIndexByte(r.data[:start], '\n')
		if raw[0] != '{' {
			lc, col := diag.LineCol(r.data, start)
			r.ds.Errorf(r.path, lc, col, "json-type", "record %d is not a JSON object; each record is an object", len(doc.Records)+1)
			continue
		}
		doc.Records = append(doc.Records, model.Record{
			Raw:    r.data[start:end:end],
			Line:   line,
			Col:    col,
			Offset: start,
			Length: end - start,
		})
	}
	if _, err := r.dec.Token(); err != nil {
		r.syntax(err)
		return false
	}
	return true
}

// checkEnvelope checks what the whole envelope must agree on: the marker,
// the source and layer against the path, the day, and the fields map.
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
	if !sourceRe.MatchString(stem) {
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
	need := []string{"id", "title"}
	if wantLayer == model.LayerEvents {
		need = append(need, "time")
	}
	for _, f := range need {
		if !mapped[f] {
			r.errorf(r.keys["fields"], "missing-field", "the fields map does not map %q; every source maps id and title, and events map time too", f)
		}
	}
	slices.SortFunc(doc.Fields, func(a, b model.FieldMap) int { return strings.Compare(a.Field, b.Field) })
}
