// Package index is the build stage that writes the lexical index: docs.tsv
// and docs.key (one row per item), fields.tsv (the searchable fields and
// their weights) and the term dictionary with its sorted postings
// (terms.tsv, postings.tsv).
//
// It works in two halves so that a large base never holds all its items at
// once: NewSegment inverts one run of items that are consecutive in URI
// order (the build calls it per document, in parallel, and lets the items
// go), and Run merges the segments, in URI order, into the artifacts. A
// query's scan inverts and numbers its items with the same functions
// (NewSegmentWhere, NewLayout, Layout.Merge) and keeps the result in
// memory, so an index and a scan of one base agree on every row, ordinal
// and posting.
//
// In: segments, in URI order, and the configuration (for field weights).
// Out: artifact files. It reads nothing and writes only through the spool
// it may be given (Input.Spool); the byte layouts belong to package
// artifacts.
package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// Input is the inverted corpus, one segment per run of items.
type Input struct {
	Config model.Config
	// Segments are in URI order; their runs must not overlap. Run
	// numbers their rows' field lengths in place: they are Run's to change.
	Segments []Segment
	// Documents (each document's DocumentRow) and Bodies become
	// documents.tsv and bodies.tsv, so a reader can project one record,
	// with its cached body, from its span.
	Documents []artifacts.Document
	Bodies    []model.Body
	// Spool is where the large tables are written as they are encoded;
	// nil writes them in memory.
	Spool *artifacts.Spool
}

// Output holds the index artifacts.
type Output struct {
	Files []artifacts.File
	Items int
}

// Run merges the segments into the index artifacts. The rows are written
// a segment at a time, read back from their scratch file when spilled,
// each with its key; the postings merge beside them.
func Run(ctx context.Context, in Input) (Output, error) {
	l, err := NewLayout(in.Config, in.Segments)
	if err != nil {
		return Output{}, err
	}
	if err := inURIOrder(in.Segments); err != nil {
		return Output{}, err
	}
	// The rows' tables and the postings are independent: one is made
	// while the other merges.
	var docs, key artifacts.File
	var starts recordStarts
	var docsErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		docs, key, starts, docsErr = writeRows(ctx, in, &l)
	}()
	dict, post, err := merge(in.Spool, in.Segments, &l)
	<-done
	if docsErr != nil {
		return Output{}, docsErr
	}
	if err != nil {
		return Output{}, err
	}
	documents, err := starts.place(in.Documents)
	if err != nil {
		return Output{}, err
	}
	return Output{Items: l.Items(), Files: []artifacts.File{
		docs,
		key,
		{Path: artifacts.DocumentsPath, Data: artifacts.EncodeDocuments(documents)},
		{Path: artifacts.BodiesPath, Data: artifacts.EncodeBodies(BodyRows(in.Bodies))},
		{Path: artifacts.FieldsPath, Data: artifacts.EncodeFields(l.Fields)},
		dict,
		post,
	}}, nil
}

// inURIOrder checks that the segments' rows are in strict URI order.
func inURIOrder(segs []Segment) error {
	last := ""
	started := false
	check := func(uri string) error {
		if started && last >= uri {
			return fmt.Errorf("segments out of URI order at %s", uri)
		}
		last, started = uri, true
		return nil
	}
	for i := range segs {
		s := &segs[i]
		if s.rows != nil {
			if s.Len() == 0 {
				continue
			}
			// A spilled segment checked its own rows' order (spillRows).
			if err := check(s.rows.first); err != nil {
				return err
			}
			last = s.rows.last
			continue
		}
		for j := range s.Rows {
			if err := check(s.Rows[j].URI); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordStarts are where each record document's records start in
// docs.tsv, by path, and how many follow: what documents.tsv's First
// holds (artifacts.Origins).
type recordStarts map[string][2]int

// note counts the row at ordinal ord when it is a record of the document
// at path.
func (rs recordStarts) note(path string, ord int) {
	if s, ok := rs[path]; ok {
		rs[path] = [2]int{s[0], s[1] + 1}
	} else {
		rs[path] = [2]int{ord, 1}
	}
}

// noteRow is note for a row in memory.
func (rs recordStarts) noteRow(d *artifacts.Doc, ord int) {
	if d.SpanOff >= 0 {
		path, _, _ := strings.Cut(d.URI, "#")
		rs.note(path, ord)
	}
}

// place returns documents with their First set, checking that each one's
// records are as many rows as it holds, and that every record's row is of
// one of them.
func (rs recordStarts) place(documents []artifacts.Document) ([]artifacts.Document, error) {
	out := slices.Clone(documents)
	placed := 0
	for i := range out {
		d := &out[i]
		s, ok := rs[d.Path]
		switch {
		case !ok && d.Records == 0:
			d.First = -1
		case s[1] != d.Records || !ok:
			return nil, fmt.Errorf("index: document %s holds %d records but %d rows are its", d.Path, d.Records, s[1])
		default:
			d.First = s[0]
			placed++
		}
	}
	if placed != len(rs) {
		for path := range rs {
			if !slices.ContainsFunc(out, func(d artifacts.Document) bool { return d.Path == path }) {
				return nil, fmt.Errorf("index: records of %s, which is not a record document", path)
			}
		}
	}
	return out, nil
}

// writeRows writes docs.tsv and docs.key: each row with its fields
// numbered as l numbers them (in place, for rows in memory) and its key.
// It notes where each document's records start.
func writeRows(ctx context.Context, in Input, l *Layout) (docs, key artifacts.File, starts recordStarts, err error) {
	starts = recordStarts{}
	fields := len(l.Fields)
	place, err := project.NewPlacement(l.Items(), func(yield func(project.Placing) bool) {
		for i := range in.Segments {
			s := &in.Segments[i]
			if s.rows != nil {
				for _, p := range s.rows.placings {
					if !yield(p) {
						return
					}
				}
				continue
			}
			for j := range s.Rows {
				if !yield(project.PlacingOf(&s.Rows[j])) {
					return
				}
			}
		}
	})
	if err != nil {
		return docs, key, starts, err
	}
	// The placings are placed: what they hold goes before the rows are
	// read back.
	for i := range in.Segments {
		if r := in.Segments[i].rows; r != nil {
			r.placings = nil
		}
	}
	w := artifacts.NewDocsWriter(in.Spool, l.Items(), fields, 0)
	norms := make([]byte, fields)
	// uri names the row in an error; it is made only then.
	keyOf := func(ord int, own artifacts.Key, uri func() string, lengths []artifacts.FieldLen) (artifacts.Key, error) {
		k := place.Placed(ord)
		k.Day, k.HalfLife, k.Flags, k.OwnID, k.OwnURI, k.TitleTerms, k.Digest = own.Day, own.HalfLife, own.Flags, own.OwnID, own.OwnURI, own.TitleTerms, own.Digest
		clear(norms)
		k.Norms = norms
		if err := project.Norms(norms, "", lengths); err != nil {
			return k, project.Norms(norms, uri(), lengths)
		}
		return k, nil
	}
	ord := 0
	for i := range in.Segments {
		if err := ctx.Err(); err != nil {
			w.Finish()
			return docs, key, starts, err
		}
		s := &in.Segments[i]
		if s.rows == nil {
			for j := range s.Rows {
				row := &s.Rows[j]
				l.Renumber(i, row.Lengths)
				var own artifacts.Key
				if err := project.OwnKey(&own, row, in.Config); err != nil {
					w.Finish()
					return docs, key, starts, err
				}
				k, err := keyOf(ord, own, func() string { return row.URI }, row.Lengths)
				if err != nil {
					w.Finish()
					return docs, key, starts, err
				}
				w.Row(row, k)
				starts.noteRow(row, ord)
				ord++
			}
			continue
		}
		err := s.rows.eachRow(func(r *spilledRow) error {
			l.Renumber(i, r.lengths)
			k, err := keyOf(ord, r.key, r.uri, r.lengths)
			if err != nil {
				return err
			}
			w.RowBytes(r.row, k)
			if r.doc != "" {
				starts.note(r.doc, ord)
			}
			ord++
			return nil
		})
		if err != nil {
			w.Finish()
			return docs, key, starts, err
		}
	}
	docs, key, err = w.Finish()
	return docs, key, starts, err
}

// DocumentRows describes each record document for documents.tsv.
func DocumentRows(cfg model.Config, docs []model.Document) []artifacts.Document {
	out := make([]artifacts.Document, 0, len(docs))
	for _, d := range docs {
		out = append(out, DocumentRow(cfg, d))
	}
	return out
}

// DocumentRow describes a record document for documents.tsv.
func DocumentRow(cfg model.Config, d model.Document) artifacts.Document {
	row := artifacts.Document{Path: d.Path, Layer: d.Layer, Source: d.Source, Date: d.Date, Records: len(d.Records),
		Flags: project.SourceFlags(cfg.Sources[d.Source]), Fields: map[string][]string{}}
	for _, f := range d.Fields {
		row.Fields[f.Field] = f.Paths
		if cfg.Schema[f.Field].Relation || d.Schema[f.Field].Relation {
			row.Relations = append(row.Relations, f.Field)
		}
	}
	slices.Sort(row.Relations)
	return row
}

// BodyRows lists the verified cached bodies for bodies.tsv.
func BodyRows(bodies []model.Body) []artifacts.Body {
	out := make([]artifacts.Body, 0, len(bodies))
	for _, b := range bodies {
		out = append(out, artifacts.Body{URI: b.URI, Path: b.Path, Bytes: b.Bytes, SHA256: b.SHA256})
	}
	return out
}
