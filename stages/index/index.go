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
	"slices"
	"strings"

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

	rows := make([]artifacts.Doc, len(in.Items))
	total := 0
	for i := range in.Items {
		for _, f := range in.Items[i].Fields {
			total += len(f.Terms)
		}
	}
	// Inversion in two passes, so that no postings list ever grows by
	// appending: the first numbers each distinct term and counts its
	// postings, the second writes every posting into its term's slot of one
	// flat array. Items are visited in ordinal order and fields in ordinal
	// order, so each term's postings come out sorted by item then field.
	termID := make(map[string]int32, total/8)
	var terms []string
	var counts []int32
	seq := make([]int32, 0, total)
	for i := range in.Items {
		if i%4096 == 0 && ctx.Err() != nil {
			return Output{}, ctx.Err()
		}
		it := &in.Items[i]
		row := artifacts.Doc{
			URI: it.URI, Kind: it.Kind, Source: it.Source, Date: it.Date, Time: it.Time,
			ValidFrom: it.ValidFrom, ValidUntil: it.ValidUntil, Flags: it.Flags,
			Digest: it.Digest, SpanOff: it.SpanOff, SpanLen: it.SpanLen,
		}
		for _, f := range it.Fields {
			if f.Words > 0 {
				row.Lengths = append(row.Lengths, artifacts.FieldLen{Field: ordinal[f.Name], N: f.Words})
			}
			for _, t := range f.Terms {
				id, ok := termID[t.Term]
				if !ok {
					id = int32(len(terms))
					termID[t.Term] = id
					terms = append(terms, t.Term)
					counts = append(counts, 0)
				}
				counts[id]++
				seq = append(seq, id)
			}
		}
		rows[i] = row
	}
	next := make([]int32, len(terms))
	var sum int32
	for id, c := range counts {
		next[id] = sum
		sum += c
	}
	flat := make([]artifacts.Posting, total)
	k := 0
	for i := range in.Items {
		for _, f := range in.Items[i].Fields {
			fo := ordinal[f.Name]
			for _, t := range f.Terms {
				id := seq[k]
				k++
				flat[next[id]] = artifacts.Posting{Doc: int32(i), Field: uint16(fo), TF: uint16(min(t.N, artifacts.MaxTF))}
				next[id]++
			}
		}
	}
	order := make([]int32, len(terms))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
	dictionary := make([]artifacts.TermPostings, len(order))
	for i, id := range order {
		end := next[id] // after the second pass, next[id] is the end of its slot
		dictionary[i] = artifacts.TermPostings{Term: terms[id], Postings: flat[end-counts[id] : end]}
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
