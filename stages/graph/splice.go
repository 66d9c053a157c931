package graph

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// SpliceInput is the previous edge tables and what replaces some items.
type SpliceInput struct {
	Config model.Config
	// Spool is where the tables are written; nil writes them in memory.
	Spool *artifacts.Spool
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
	aliases := Aliases(in.Config)
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
		if !n.Record {
			fresh = append(fresh, artifacts.Adjacency{Node: n.URI, Links: n.Links})
		}
		ord := int(in.Ords[i])
		ref := artifacts.ItemRefOf(int32(ord))
		for _, l := range n.Links {
			byDst[l.Node] = append(byDst[l.Node], inbound{kind: l.Kind, src: ref, at: n.At, ord: ord})
		}
	}
	slices.SortFunc(fresh, func(a, b artifacts.Adjacency) int { return strings.Compare(a.Node, b.Node) })
	newLines, err := artifacts.EncodeEdges(fresh)
	if err != nil {
		return Output{}, err
	}
	w := in.Spool.Create(artifacts.EdgesPath, len(in.Edges)+len(newLines))
	keep := func(node []byte) (bool, error) {
		if in.Gone[string(node)] {
			if aliases[string(node)] {
				return false, ErrNoSplice
			}
			return false, nil
		}
		return true, nil
	}
	if len(in.Gone) == 0 {
		keep = nil // every old line stays
	}
	src, err := w.Finish(cmp.Or(mergeLines(w, in.Edges, newLines, keep), ctx.Err()))
	if err != nil {
		return Output{}, err
	}
	wd := in.Spool.Create(artifacts.EdgesDstPath, len(in.EdgesDst)+len(byDst)*64)
	edges, err := spliceDst(wd, in, byDst)
	dst, err := wd.Finish(err)
	if err != nil {
		return Output{}, err
	}
	return Output{Edges: edges, Files: []artifacts.File{src, dst}}, nil
}

// mergeLines writes into out the old edges.tsv's lines merged with the
// added ones (sorted, under the same header): an old line is kept when
// keep says so, and an added line replaces an old one of the same node
// only when that node left (keep false); otherwise the splice cannot be
// made. A nil keep keeps every old line: the added lines are then placed
// by binary search and the old ones copied in runs between them.
func mergeLines(out *artifacts.Output, old, added []byte, keep func(node []byte) (bool, error)) error {
	h := bytes.IndexByte(old, '\n') + 1
	if h == 0 || !bytes.Equal(old[:h], added[:bytes.IndexByte(added, '\n')+1]) {
		return &artifacts.CorruptError{Path: artifacts.EdgesPath, Line: 1, Msg: "header is not this version's"}
	}
	body, b := old[h:], added[h:]
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return &artifacts.CorruptError{Path: artifacts.EdgesPath, Msg: "the last line has no LF; the file is truncated"}
	}
	out.Write(old[:h])
	node := func(line []byte) []byte {
		n, _, _ := bytes.Cut(line, []byte{'\t'})
		return n
	}
	line := func(s []byte) []byte {
		return s[:bytes.IndexByte(s, '\n')+1]
	}
	if keep == nil {
		for len(b) > 0 {
			lb := line(b)
			at := artifacts.FirstRow(body, node(lb))
			if at < len(body) && bytes.Equal(node(line(body[at:])), node(lb)) {
				return ErrNoSplice // a node that stays has a new line
			}
			out.Write(body[:at])
			out.Write(lb)
			body, b = body[at:], b[len(lb):]
		}
		out.Write(body)
		return nil
	}
	run := 0 // body[:run] are old lines kept and not yet written
	flush := func() {
		out.Write(body[:run])
		body, run = body[run:], 0
	}
	for run < len(body) || len(b) > 0 {
		var la, lb []byte
		if run < len(body) {
			la = line(body[run:])
		}
		if len(b) > 0 {
			lb = line(b)
		}
		if la != nil && (lb == nil || bytes.Compare(node(la), node(lb)) < 0) {
			ok, err := keep(node(la))
			if err != nil {
				return err
			}
			if ok {
				run += len(la)
			} else {
				flush()
				body = body[len(la):]
			}
			continue
		}
		flush()
		if la != nil && bytes.Equal(node(la), node(lb)) {
			// The old line of a replaced item, now written again.
			if ok, err := keep(node(la)); ok || err != nil {
				return cmp.Or(err, ErrNoSplice)
			}
			body = body[len(la):]
		}
		out.Write(lb)
		b = b[len(lb):]
	}
	flush()
	return nil
}

// spliceDst writes into w every destination's inbound edges renumbered,
// those of items that left dropped and the new ones merged in, and
// returns how many it wrote: every edge of the graph, once. A line that
// gains no edge is rewritten in its bytes; only the lines that gain one
// are decoded. Each line is made in out, then written.
func spliceDst(w *artifacts.Output, in SpliceInput, byDst map[string][]inbound) (int, error) {
	h := bytes.IndexByte(in.EdgesDst, '\n') + 1
	if h == 0 {
		return 0, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Line: 1, Msg: "no header"}
	}
	header, body := in.EdgesDst[:h], in.EdgesDst[h:]
	fresh := slices.Sorted(maps.Keys(byDst))
	w.Write(header)
	var out []byte
	// newRow writes a destination the previous tables did not have.
	newRow := func(d string) error {
		row, err := artifacts.EncodeEdgesDst([]artifacts.Adjacency{{Node: d, Links: sortInbound(byDst[d])}})
		out = append(out, row[h:]...)
		return err
	}
	var marks []int
	edges := 0
	flush := func() {
		w.Write(out)
		edges += bytes.Count(out, []byte{'\t'}) // a TAB before each edge
		out = out[:0]
	}
	for n := 2; len(body) > 0; n++ {
		flush()
		end := bytes.IndexByte(body, '\n')
		if end < 0 {
			return 0, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Line: n, Msg: "row does not end with LF"}
		}
		line := body[:end]
		body = body[end+1:]
		node, links, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			return 0, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Line: n, Msg: "row is not node TAB kind=node..."}
		}
		for len(fresh) > 0 && fresh[0] < string(node) {
			if err := newRow(fresh[0]); err != nil {
				return 0, err
			}
			fresh = fresh[1:]
		}
		added, gains := byDst[string(node)]
		if gains {
			fresh = fresh[1:] // it is fresh[0]: both lists are sorted
		}
		start := len(out)
		out = append(out, node...)
		any := false
		marks = marks[:0] // where each kept link starts in out, its TAB included
		// The kept links are written with their kinds, which a line leaves
		// out when it is the one before (a link may leave or come between
		// two), and the line's kinds elided again once it is whole.
		var kind []byte
		for len(links) > 0 {
			link, rest, _ := bytes.Cut(links, []byte{'\t'})
			links = rest
			k, src, ok := bytes.Cut(link, []byte{'='})
			if !ok || len(k) == 0 && len(kind) == 0 {
				return 0, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Line: n, Msg: fmt.Sprintf("link %q is not kind=node", link)}
			}
			if len(k) > 0 {
				kind = k
			}
			ref, item := bytes.CutPrefix(src, []byte(artifacts.ItemRef))
			if !item {
				marks = append(marks, len(out))
				out = append(append(append(append(out, '\t'), kind...), '='), src...)
				any = true
				continue
			}
			o, ok := artifacts.ItemOrdinal(ref)
			if !ok {
				return 0, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Line: n, Msg: fmt.Sprintf("source %q is not #ordinal", src)}
			}
			to, ok := in.Renumber(o)
			if !ok {
				continue
			}
			marks = append(marks, len(out))
			out = append(append(append(out, '\t'), kind...), '=')
			if to == o { // most sources keep their ordinal: the source as it was
				out = append(out, src...)
			} else {
				out = artifacts.AppendItemRef(out, to)
			}
			any = true
		}
		if gains {
			out = insertInbound(in, out, start, marks, added)
			any = true
		}
		if !any {
			out = out[:start] // every source left
			continue
		}
		out = append(out[:start], artifacts.ElideKinds(out[start:])...)
		out = append(out, '\n')
	}
	for _, d := range fresh {
		if err := newRow(d); err != nil {
			return 0, err
		}
	}
	flush()
	return edges, nil
}

// insertInbound puts a destination's new inbound edges among its kept
// ones, which out holds from start as the line written so far (marks
// giving where each kept link's TAB is), in the order NewTables gives:
// each new edge goes where a binary search over the kept ones puts it, so
// a hub's long line costs only the few comparisons it needs.
func insertInbound(in SpliceInput, out []byte, start int, marks []int, added []inbound) []byte {
	line := slices.Clone(out[start:])
	keptAt := func(j int) inbound {
		end := len(line)
		if j+1 < len(marks) {
			end = marks[j+1] - start
		}
		kind, src, _ := strings.Cut(string(line[marks[j]-start+1:end]), "=")
		return inboundOf(in, artifacts.Link{Kind: kind, Node: src})
	}
	out = out[:start]
	head := len(line)
	if len(marks) > 0 {
		head = marks[0] - start
	}
	out = append(out, line[:head]...) // the node
	from := 0                         // the next kept link to copy
	for _, l := range sortInbound(added) {
		e := inboundOf(in, l)
		n := from + sort.Search(len(marks)-from, func(j int) bool { return compareInbound(keptAt(from+j), e) > 0 })
		out = appendKept(out, line, start, marks, from, n)
		out = append(append(append(out, '\t'), l.Kind...), '=')
		out = append(out, l.Node...)
		from = n
	}
	return appendKept(out, line, start, marks, from, len(marks))
}

// appendKept copies kept links from to n-1 of line (marks in out's
// offsets, line starting at start).
func appendKept(out, line []byte, start int, marks []int, from, n int) []byte {
	if from >= n {
		return out
	}
	end := len(line)
	if n < len(marks) {
		end = marks[n] - start
	}
	return append(out, line[marks[from]-start:end]...)
}

// inboundOf reads a kept inbound link back as NewTables compares it.
func inboundOf(in SpliceInput, l artifacts.Link) inbound {
	e := inbound{kind: l.Kind, src: l.Node, ord: -1}
	if o, ok := artifacts.ParseItemRef(l.Node); ok {
		e.ord = int(o)
		e.at = in.At(o)
	}
	return e
}

// compareInbound is NewTables' order of a destination's inbound edges:
// newest source first, then by kind, ordinal and source, each compared
// only on a tie of the ones before.
func compareInbound(a, b inbound) int {
	if c := project.CompareStamps(b.at, a.at); c != 0 {
		return c
	}
	if c := strings.Compare(a.kind, b.kind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ord, b.ord); c != 0 {
		return c
	}
	return strings.Compare(a.src, b.src)
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

// Aliases is the set of the identities' aliases: each is the source of a
// same-as edge, which a splice of items cannot move.
func Aliases(cfg model.Config) map[string]bool {
	aliases := map[string]bool{}
	for _, id := range cfg.Identities {
		for _, a := range id.Aliases {
			aliases[a] = true
		}
	}
	return aliases
}

// Inbound is a new item's edge to a destination: its kind, the item's
// ordinal and its stamp (time, else date).
type Inbound struct {
	Kind string
	Ord  int32
	At   string
}

// MergeInbound puts new inbound edges among a destination's kept ones in
// the order NewTables gives, as Splice does: kept are the kept links in
// that order (an item source written #<ordinal>), at gives a kept item
// source's stamp by ordinal. Each new edge goes where a binary search
// over the kept ones puts it, so at is called a few times per new edge,
// not once per kept one: a query that lays changed items over the
// artifacts merges a hub's long line so.
func MergeInbound(kept []artifacts.Link, added []Inbound, at func(ord int32) string) []artifacts.Link {
	in := SpliceInput{At: at}
	fresh := make([]inbound, len(added))
	for i, a := range added {
		fresh[i] = inbound{kind: a.Kind, src: artifacts.ItemRefOf(a.Ord), at: a.At, ord: int(a.Ord)}
	}
	out := make([]artifacts.Link, 0, len(kept)+len(added))
	from := 0
	for _, l := range sortInbound(fresh) {
		e := inboundOf(in, l)
		n := from + sort.Search(len(kept)-from, func(j int) bool { return compareInbound(inboundOf(in, kept[from+j]), e) > 0 })
		out = append(append(out, kept[from:n]...), l)
		from = n
	}
	return append(out, kept[from:]...)
}
