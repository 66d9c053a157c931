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
	// Documents and Bodies become documents.tsv and bodies.tsv, so a
	// reader can project one record, with its cached body, from its span.
	Documents []model.Document
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

// Run merges the segments into the index artifacts.
func Run(ctx context.Context, in Input) (Output, error) {
	l, err := NewLayout(in.Config, in.Segments)
	if err != nil {
		return Output{}, err
	}
	// The rows are numbered in place: the segments are Run's to change
	// (see Input), and a copy of every row would be the largest thing a
	// large build holds.
	rows := make([]*artifacts.Doc, 0, l.Items())
	for i, s := range in.Segments {
		for j := range s.Rows {
			l.Renumber(i, s.Rows[j].Lengths)
			rows = append(rows, &s.Rows[j])
		}
	}
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	for i := 1; i < len(rows); i++ {
		if rows[i-1].URI >= rows[i].URI {
			return Output{}, fmt.Errorf("segments out of URI order at %s", rows[i].URI)
		}
	}
	row := func(i int) *artifacts.Doc { return rows[i] }
	// The rows' tables and the postings are independent: one is made
	// while the other merges.
	var docs, key artifacts.File
	var docsErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		keys, err := project.Keys(len(rows), row, len(l.Fields), in.Config)
		if err != nil {
			docsErr = err
			return
		}
		docs, key, docsErr = artifacts.EncodeDocsFrom(in.Spool, len(rows), row, keys, len(l.Fields))
	}()
	dict, post, err := merge(in.Spool, in.Segments, &l)
	<-done
	if docsErr != nil {
		return Output{}, docsErr
	}
	if err != nil {
		return Output{}, err
	}
	return Output{Items: len(rows), Files: []artifacts.File{
		docs,
		key,
		{Path: artifacts.DocumentsPath, Data: artifacts.EncodeDocuments(DocumentRows(in.Config, in.Documents))},
		{Path: artifacts.BodiesPath, Data: artifacts.EncodeBodies(BodyRows(in.Bodies))},
		{Path: artifacts.FieldsPath, Data: artifacts.EncodeFields(l.Fields)},
		dict,
		post,
	}}, nil
}

// DocumentRows describes each record document for documents.tsv.
func DocumentRows(cfg model.Config, docs []model.Document) []artifacts.Document {
	out := make([]artifacts.Document, 0, len(docs))
	for _, d := range docs {
		row := artifacts.Document{Path: d.Path, Layer: d.Layer, Source: d.Source, Date: d.Date, Records: len(d.Records), Fields: map[string][]string{}}
		for _, f := range d.Fields {
			row.Fields[f.Field] = f.Paths
			if cfg.Schema[f.Field].Relation || d.Schema[f.Field].Relation {
				row.Relations = append(row.Relations, f.Field)
			}
		}
		slices.Sort(row.Relations)
		out = append(out, row)
	}
	return out
}

// BodyRows lists the verified cached bodies for bodies.tsv.
func BodyRows(bodies []model.Body) []artifacts.Body {
	out := make([]artifacts.Body, 0, len(bodies))
	for _, b := range bodies {
		out = append(out, artifacts.Body{URI: b.URI, Path: b.Path, Bytes: b.Bytes, SHA256: b.SHA256})
	}
	return out
}
