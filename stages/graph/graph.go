// Package graph is the build stage that writes the edge tables: one row per
// edge from relation fields, page relations, tags, Markdown links,
// supersedes and identity aliases, in edges.tsv (by source) and
// edges.dst.tsv (by destination), so that one hop either way is a binary
// search.
//
// In: the projected items and the configuration (for identities). Out: the
// two artifact files. It must not read or write anything.
package graph

import (
	"context"
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// Input is the projected corpus.
type Input struct {
	Config model.Config
	Items  []project.Item
}

// Output holds the edge tables.
type Output struct {
	Files []artifacts.File
	Edges int
}

// Run builds the edge tables.
func Run(ctx context.Context, in Input) (Output, error) {
	var edges []artifacts.Edge
	for i := range in.Items {
		if i%4096 == 0 && ctx.Err() != nil {
			return Output{}, ctx.Err()
		}
		it := &in.Items[i]
		at := it.Time
		if at == "" {
			at = it.Date
		}
		add := func(kind, dst string) {
			edges = append(edges, artifacts.Edge{Src: it.URI, Kind: kind, Dst: dst, At: at})
		}
		for _, r := range it.Relations {
			add(artifacts.EdgeRelPrefix+r.Field, r.Value)
		}
		for _, t := range it.Tags {
			add(artifacts.EdgeTag, "tag:"+t)
		}
		for _, l := range it.Links {
			add(artifacts.EdgeLink, l)
		}
		for _, s := range it.Supersedes {
			add(artifacts.EdgeSupersedes, s)
		}
	}
	names := make([]string, 0, len(in.Config.Identities))
	for n := range in.Config.Identities {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		id := in.Config.Identities[n]
		for _, a := range id.Aliases {
			if a != id.Canonical {
				edges = append(edges, artifacts.Edge{Src: a, Kind: artifacts.EdgeSameAs, Dst: id.Canonical})
			}
		}
	}
	bySrc, byDst := artifacts.EncodeEdges(edges)
	return Output{
		Files: []artifacts.File{{Path: artifacts.EdgesPath, Data: bySrc}, {Path: artifacts.EdgesDstPath, Data: byDst}},
		Edges: len(edges),
	}, nil
}
