package usage

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
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
	// Files lists every content file, read or kept, with its point:
	// written as content.tsv, from which the next build takes the points
	// of the files it does not read again.
	Files []artifacts.ContentFile
}

// Output is the counts and the artifact that holds them.
type Output struct {
	// Usage has one entry per term, sorted by id, each with its uses most
	// first: usage.tsv, decoded.
	Usage []artifacts.TermUsage
	// Files holds usage.tsv and content.tsv.
	Files []artifacts.File
}

// Run counts every term in every content file of Content, adds the kept
// counts, and renders usage.tsv and content.tsv. Files are searched in parallel; the
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

	usage := gather(in, byID, counted)
	data, err := artifacts.EncodeUsage(usage)
	if err != nil {
		return Output{}, err
	}
	list, err := artifacts.EncodeContent(in.Files)
	if err != nil {
		return Output{}, err
	}
	return Output{Usage: usage, Files: []artifacts.File{{Path: artifacts.UsagePath, Data: data}, {Path: artifacts.ContentPath, Data: list}}}, nil
}

// use is one file's count of a term, the file named by its ordinal in path
// order, so that sorting a term's uses compares integers only.
type use struct {
	file  int32
	count int
}

// gather puts the counts of the files read (counted[i] is in.Content[i]'s)
// and the kept counts together: one TermUsage per term, in usage.tsv's
// order.
func gather(in Input, byID map[string]int, counted [][]termCount) []artifacts.TermUsage {
	read := make(map[string]bool, len(in.Content))
	paths := make([]string, 0, len(in.Content))
	for _, f := range in.Content {
		read[f.Path] = true
		paths = append(paths, f.Path)
	}
	for _, k := range in.Kept {
		for _, u := range k.Uses {
			if !read[u.Path] {
				paths = append(paths, u.Path)
			}
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	file := make(map[string]int32, len(paths))
	for i, p := range paths {
		file[p] = int32(i)
	}

	uses := make([][]use, len(in.Terms))
	for i, f := range in.Content {
		for _, tc := range counted[i] {
			uses[tc.term] = append(uses[tc.term], use{file[f.Path], tc.count})
		}
	}
	for _, k := range in.Kept {
		if t, ok := byID[k.Term]; ok {
			for _, u := range k.Uses {
				if !read[u.Path] {
					uses[t] = append(uses[t], use{file[u.Path], u.Count})
				}
			}
		}
	}
	out := make([]artifacts.TermUsage, len(in.Terms))
	for t, list := range uses {
		slices.SortFunc(list, func(a, b use) int {
			if c := cmp.Compare(b.count, a.count); c != 0 {
				return c
			}
			return cmp.Compare(a.file, b.file)
		})
		tu := artifacts.TermUsage{Term: in.Terms[t].ID}
		if len(list) > 0 {
			tu.Uses = make([]artifacts.Use, 0, len(list))
		}
		for _, u := range list {
			tu.Uses = append(tu.Uses, artifacts.Use{Path: paths[u.file], Count: u.count})
			tu.Total += u.count
		}
		out[t] = tu
	}
	slices.SortFunc(out, func(a, b artifacts.TermUsage) int { return strings.Compare(a.Term, b.Term) })
	return out
}
