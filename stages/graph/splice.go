package graph

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// SpliceInput is the previous edge tables and what replaces some items.
type SpliceInput struct {
	Config model.Config
	// Edges and EdgesDst are the previous build's files.
	Edges, EdgesDst []byte
	// Renumber maps a previous item ordinal to the new one; ok is false
	// when the item left.
	Renumber func(old int32) (int32, bool)
	// Gone holds the URIs of the items that left or are replaced.
	Gone map[string]bool
	// At gives the newest stamp (time, else date) of the item at a new
	// ordinal, for newest-first order.
	At func(ord int32) string
	// Nodes are the new items' nodes, each with its new ordinal.
	Nodes []Node
	Ords  []int32
}

// ErrNoSplice says the edge tables cannot be spliced (an item URI that is
// also an alias changed); the whole graph must be built.
var ErrNoSplice = errors.New("the edge tables cannot be spliced")

// Splice makes the edge tables of the new corpus from the previous ones:
// the lines of kept items are copied, the replaced items' lines left out
// and the new items' lines merged in, by node; each destination's inbound
// edges are renumbered and the new ones merged in newest first. The bytes
// are those Run would write for the same corpus.
func Splice(ctx context.Context, in SpliceInput) (Output, error) {
	aliases := map[string]bool{}
	for _, id := range in.Config.Identities {
		for _, a := range id.Aliases {
			aliases[a] = true
		}
	}
	var fresh []artifacts.Adjacency
	byDst := map[string][]inbound{}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if aliases[n.URI] {
			return Output{}, ErrNoSplice
		}
		if len(n.Links) == 0 {
			continue
		}
		fresh = append(fresh, artifacts.Adjacency{Node: n.URI, Links: n.Links})
		ord := int(in.Ords[i])
		ref := artifacts.ItemRef + strconv.Itoa(ord)
		for _, l := range n.Links {
			byDst[l.Node] = append(byDst[l.Node], inbound{kind: l.Kind, src: ref, at: n.At, ord: ord})
		}
	}
	slices.SortFunc(fresh, func(a, b artifacts.Adjacency) int { return strings.Compare(a.Node, b.Node) })
	newLines, err := artifacts.EncodeEdges(fresh)
	if err != nil {
		return Output{}, err
	}
	src, err := mergeLines(in.Edges, newLines, func(node string) (bool, error) {
		if in.Gone[node] {
			if aliases[node] {
				return false, ErrNoSplice
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return Output{}, err
	}
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	dst, err := spliceDst(in, byDst)
	if err != nil {
		return Output{}, err
	}
	body, _ := bytes.CutPrefix(src, src[:bytes.IndexByte(src, '\n')+1])
	return Output{Edges: bytes.Count(body, []byte{'\t'}), Files: []artifacts.File{
		{Path: artifacts.EdgesPath, Data: src}, {Path: artifacts.EdgesDstPath, Data: dst}}}, nil
}

// mergeLines merges the lines of two edge files sorted by node, keeping
// an old line when keep says so; both start with the same header.
func mergeLines(old, added []byte, keep func(node string) (bool, error)) ([]byte, error) {
	h := bytes.IndexByte(old, '\n') + 1
	if h == 0 || !bytes.Equal(old[:h], added[:bytes.IndexByte(added, '\n')+1]) {
		return nil, &artifacts.CorruptError{Path: artifacts.EdgesPath, Line: 1, Msg: "header is not this version's"}
	}
	out := make([]byte, 0, len(old)+len(added))
	out = append(out, old[:h]...)
	a, b := old[h:], added[h:]
	node := func(line []byte) string {
		n, _, _ := bytes.Cut(line, []byte{'\t'})
		return string(n)
	}
	line := func(s []byte) ([]byte, []byte) {
		i := bytes.IndexByte(s, '\n')
		return s[:i+1], s[i+1:]
	}
	for len(a) > 0 || len(b) > 0 {
		var la, lb []byte
		if len(a) > 0 {
			la, _ = line(a)
		}
		if len(b) > 0 {
			lb, _ = line(b)
		}
		if la != nil && (lb == nil || node(la) < node(lb)) {
			ok, err := keep(node(la))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, la...)
			}
			_, a = line(a)
			continue
		}
		if la != nil && node(la) == node(lb) {
			// The old line of a replaced item, now written again.
			if ok, err := keep(node(la)); ok || err != nil {
				return nil, cmp.Or(err, ErrNoSplice)
			}
			_, a = line(a)
		}
		out = append(out, lb...)
		_, b = line(b)
	}
	return out, nil
}

// spliceDst renumbers every destination's inbound edges, drops those of
// items that left and merges in the new ones.
func spliceDst(in SpliceInput, byDst map[string][]inbound) ([]byte, error) {
	old, err := artifacts.DecodeEdgesDst(in.EdgesDst)
	if err != nil {
		return nil, err
	}
	rows := make([]artifacts.Adjacency, 0, len(old)+len(byDst))
	for _, r := range old {
		links := r.Links[:0]
		for _, l := range r.Links {
			ref, ok := strings.CutPrefix(l.Node, artifacts.ItemRef)
			if !ok {
				links = append(links, l)
				continue
			}
			o, err := strconv.Atoi(ref)
			if err != nil {
				return nil, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Msg: "source " + l.Node + " is not #ordinal"}
			}
			n, ok := in.Renumber(int32(o))
			if !ok {
				continue
			}
			links = append(links, artifacts.Link{Kind: l.Kind, Node: artifacts.ItemRef + strconv.Itoa(int(n))})
		}
		if added, ok := byDst[r.Node]; ok {
			delete(byDst, r.Node)
			links = mergeInbound(in, links, added)
		}
		if len(links) > 0 {
			rows = append(rows, artifacts.Adjacency{Node: r.Node, Links: links})
		}
	}
	for d, added := range byDst {
		rows = append(rows, artifacts.Adjacency{Node: d, Links: sortInbound(added)})
	}
	slices.SortFunc(rows, func(a, b artifacts.Adjacency) int { return strings.Compare(a.Node, b.Node) })
	return artifacts.EncodeEdgesDst(rows)
}

// mergeInbound merges new inbound edges into a destination's kept ones,
// which are in order already: each new edge goes where a binary search
// puts it, so a hub's long line costs the few comparisons it needs.
func mergeInbound(in SpliceInput, kept []artifacts.Link, added []inbound) []artifacts.Link {
	fresh := sortInbound(added)
	at := make([]inbound, len(fresh))
	for i, l := range fresh {
		at[i] = inboundOf(in, l)
	}
	out := make([]artifacts.Link, 0, len(kept)+len(fresh))
	for i, l := range fresh {
		n := sort.Search(len(kept), func(j int) bool { return compareInbound(inboundOf(in, kept[j]), at[i]) > 0 })
		out = append(append(out, kept[:n]...), l)
		kept = kept[n:]
	}
	return append(out, kept...)
}

// inboundOf reads a kept inbound link back as NewTables compares it.
func inboundOf(in SpliceInput, l artifacts.Link) inbound {
	e := inbound{kind: l.Kind, src: l.Node, ord: -1}
	if ref, ok := strings.CutPrefix(l.Node, artifacts.ItemRef); ok {
		e.ord, _ = strconv.Atoi(ref)
		e.at = in.At(int32(e.ord))
	}
	return e
}

// compareInbound is NewTables' order of a destination's inbound edges:
// newest source first, then by kind, ordinal and source.
func compareInbound(a, b inbound) int {
	return cmp.Or(project.CompareStamps(b.at, a.at), strings.Compare(a.kind, b.kind), cmp.Compare(a.ord, b.ord), strings.Compare(a.src, b.src))
}

// sortInbound orders a destination's inbound edges as NewTables does.
func sortInbound(in []inbound) []artifacts.Link {
	slices.SortFunc(in, compareInbound)
	links := make([]artifacts.Link, 0, len(in))
	for j, e := range in {
		if j > 0 && e == in[j-1] {
			continue
		}
		links = append(links, artifacts.Link{Kind: e.kind, Node: e.src})
	}
	return links
}
