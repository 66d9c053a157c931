// Package index is the build stage that writes the lexical index: docs.tsv
// and docs.off (one row per item), fields.tsv (the searchable fields and
// their weights) and the term dictionary with its sorted postings
// (terms.tsv, postings.tsv).
//
// In: the projected items, sorted by URI, and the configuration (for field
// weights). Out: artifact files. It must not read or write anything; the
// byte layouts belong to package artifacts.
package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// Input is the projected corpus.
type Input struct {
	Config model.Config
	Items  []project.Item // sorted by URI
}

// Output holds the index artifacts.
type Output struct {
	Files []artifacts.File
}

// Run builds the index artifacts.
func Run(ctx context.Context, in Input) (Output, error) {
	fieldNames := map[string]bool{}
	for i := range in.Items {
		for _, f := range in.Items[i].Fields {
			fieldNames[f.Name] = true
		}
	}
	names := make([]string, 0, len(fieldNames))
	for n := range fieldNames {
		names = append(names, n)
	}
	slices.Sort(names)
	ordinal := make(map[string]int, len(names))
	fields := make([]artifacts.Field, len(names))
	for i, n := range names {
		ordinal[n] = i
		fields[i] = artifacts.Field{Name: n, Weight: in.Config.Weight(n)}
	}

	if len(names) > artifacts.MaxFields {
		return Output{}, fmt.Errorf("the base has %d fields; the index holds at most %d", len(names), artifacts.MaxFields)
	}
	rows := make([]artifacts.Doc, len(in.Items))
	for i := range in.Items {
		it := &in.Items[i]
		row := artifacts.Doc{
			URI: it.URI, Kind: it.Kind, Source: it.Source, Date: it.Date, Time: it.Time,
			ValidFrom: it.ValidFrom, ValidUntil: it.ValidUntil, Flags: it.Flags,
			Digest: it.Digest, SpanOff: it.SpanOff, SpanLen: it.SpanLen,
		}
		row.Lengths = make([]artifacts.FieldLen, 0, len(it.Fields))
		for _, f := range it.Fields {
			if f.Words > 0 {
				row.Lengths = append(row.Lengths, artifacts.FieldLen{Field: ordinal[f.Name], N: f.Words})
			}
		}
		rows[i] = row
	}
	dictionary, err := invert(ctx, in.Items, ordinal)
	if err != nil {
		return Output{}, err
	}
	docs, off := artifacts.EncodeDocs(rows)
	dict, post := artifacts.EncodePostings(dictionary)
	return Output{Files: []artifacts.File{
		{Path: artifacts.DocsPath, Data: docs},
		{Path: artifacts.DocsOffPath, Data: off},
		{Path: artifacts.FieldsPath, Data: artifacts.EncodeFields(fields)},
		{Path: artifacts.TermsPath, Data: dict},
		{Path: artifacts.PostingsPath, Data: post},
	}}, nil
}
