package collect

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// document is one record document about to be written.
type document struct {
	Source string
	Layer  string // model.LayerEvents or model.LayerIndex
	Date   string // the day of an events document; "" for a snapshot
	// Schema declares the relation fields of a built-in collector; nil for
	// a command's source, whose schema is the base's.
	Schema map[string]model.FieldSpec
	Fields map[string]model.FieldPaths
	Window window
	// CollectedAt is the one clock value in a document.
	CollectedAt time.Time
	// Records are compact JSON objects, in the order they are written.
	Records [][]byte
	// Fkf writes the document as fkf stores one, for a source of
	// fkf.yaml: marked "fkf": 1, its keys in fkf's order, Schema the root
	// schema of the fields it maps, and body saying whether the source
	// declares a body command.
	Fkf          bool
	BodyDeclared bool
}

// window is the half-open span of time a document covers: Start ≤ t < End.
type window struct{ Start, End time.Time }

// stamp writes an instant as RFC 3339 in UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// encode renders the document: the envelope keys one a line in a fixed
// order, then one record a line, so that a day's document diffs by record
// and the same records give the same bytes.
func (d document) encode() []byte {
	var b bytes.Buffer
	line := func(key string, v any) {
		b.WriteString("  " + strconv.Quote(key) + ": ")
		b.Write(marshalRecord(v))
		b.WriteString(",\n")
	}
	b.WriteString("{\n")
	if d.Fkf {
		line("fkf", 1)
		line("source", d.Source)
		line("layer", d.Layer)
		if d.Date != "" {
			line("date", d.Date)
		}
		line("collected_at", stamp(d.CollectedAt))
		line("window_start", stamp(d.Window.Start))
		line("window_end", stamp(d.Window.End))
		if len(d.Schema) > 0 {
			line("schema", schemaJSON(d.Schema))
		}
		line("fields", fieldsJSON(d.Fields))
		line("body", d.BodyDeclared)
		return d.records(&b, line)
	}
	line("cairn", 1)
	line("source", d.Source)
	line("layer", d.Layer)
	if d.Date != "" {
		line("date", d.Date)
	}
	if len(d.Schema) > 0 {
		line("schema", schemaJSON(d.Schema))
	}
	line("fields", fieldsJSON(d.Fields))
	line("window_start", stamp(d.Window.Start))
	line("window_end", stamp(d.Window.End))
	line("collected_at", stamp(d.CollectedAt))
	return d.records(&b, line)
}

// records ends an encoded document with its count and records.
func (d document) records(b *bytes.Buffer, line func(key string, v any)) []byte {
	line("count", len(d.Records))
	if len(d.Records) == 0 {
		b.WriteString("  \"records\": []\n}\n")
		return b.Bytes()
	}
	b.WriteString("  \"records\": [\n")
	for i, r := range d.Records {
		b.WriteString("    ")
		b.Write(r)
		if i < len(d.Records)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes()
}

// fieldsJSON is a fields map as a document holds it: one path as a
// string, several as a list. encoding/json sorts the keys.
func fieldsJSON(fields map[string]model.FieldPaths) map[string]any {
	out := make(map[string]any, len(fields))
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if p := fields[name]; len(p) == 1 {
			out[name] = p[0]
		} else {
			out[name] = []string(p)
		}
	}
	return out
}

// schemaDecl is a field's declaration in a document's schema: what it
// means, never what it weighs (weights are the base's).
type schemaDecl struct {
	Relation    bool     `json:"relation,omitempty"`
	Cardinality string   `json:"cardinality,omitempty"`
	Description string   `json:"description,omitempty"`
	Examples    []string `json:"examples,omitempty"`
}

func schemaJSON(schema map[string]model.FieldSpec) map[string]schemaDecl {
	out := make(map[string]schemaDecl, len(schema))
	for name, f := range schema {
		out[name] = schemaDecl{Relation: f.Relation, Cardinality: f.Cardinality, Description: f.Description, Examples: f.Examples}
	}
	return out
}
