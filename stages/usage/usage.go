package usage

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
)

// Input is what the usage stage counts.
type Input struct {
	// Terms is the terms store; ids are unique (loading checks them).
	Terms []model.Term
	// Content holds the content files read this build, whose text is
	// searched.
	Content []model.ContentFile
	// Kept holds the previous build's counts for the content files that
	// were not read again. Uses of a path that Content also holds, and of
	// a term the store no longer has, are ignored.
	Kept []artifacts.TermUsage
}

// Output is the counts and the artifact that holds them.
type Output struct {
	// Usage has one entry per term, sorted by id, each with its uses most
	// first: usage.tsv, decoded.
	Usage []artifacts.TermUsage
	// Files holds usage.tsv.
	Files []artifacts.File
}

// Run counts every term in every content file of Content, adds the kept
// counts, and renders usage.tsv. Files are searched in parallel; the
// result does not depend on the order they are searched in.
func Run(ctx context.Context, in Input) (Output, error) {
	byID := make(map[string]int, len(in.Terms))
	for i, t := range in.Terms {
		if _, dup := byID[t.ID]; dup || t.ID == "" {
			return Output{}, fmt.Errorf("term id %q is empty or used twice; the terms store must be checked before counting", t.ID)
		}
		byID[t.ID] = i
	}
	m, err := newMatcher(in.Terms)
	if err != nil {
		return Output{}, err
	}
	counted := make([][]termCount, len(in.Content))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(in.Content)) {
		wg.Go(func() {
			c := m.newCounter()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(in.Content) {
					return
				}
				counted[i] = m.count(in.Content[i].Text, c)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}

	usage := make([]artifacts.TermUsage, len(in.Terms))
	read := make(map[string]bool, len(in.Content))
	for i, t := range in.Terms {
		usage[i].Term = t.ID
	}
	add := func(t int, path string, count int) {
		usage[t].Uses = append(usage[t].Uses, artifacts.Use{Path: path, Count: count})
		usage[t].Total += count
	}
	for i, f := range in.Content {
		read[f.Path] = true
		for _, tc := range counted[i] {
			add(int(tc.term), f.Path, tc.count)
		}
	}
	for _, k := range in.Kept {
		t, ok := byID[k.Term]
		if !ok {
			continue
		}
		for _, u := range k.Uses {
			if !read[u.Path] {
				add(t, u.Path, u.Count)
			}
		}
	}
	artifacts.SortUsage(usage)
	data, err := artifacts.EncodeUsage(usage)
	if err != nil {
		return Output{}, err
	}
	return Output{Usage: usage, Files: []artifacts.File{{Path: artifacts.UsagePath, Data: data}}}, nil
}
