package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// A NodeRun is a run of nodes, consecutive in URI order, spilled to a
// scratch file (SpillNodes), so that a large build does not hold every
// item's node until the graph is made. Each node is written as
//
//	uvarint length, then bytes: its URI, then its stamp
//	uvarint twice how many links, plus 1 for a record's node; then for each
//	uvarint length, then bytes: its kind, then its destination
//
// and the run is read back whole, one run at a time.
type NodeRun struct {
	scratch *artifacts.Scratch
	at      artifacts.ScratchSection
	nodes   int
	links   int // its nodes' links, all told
	linking int // its nodes with a link
}

// Len is how many nodes the run holds.
func (r NodeRun) Len() int { return r.nodes }

// SpillNodes writes nodes to sc as one run.
func SpillNodes(sc *artifacts.Scratch, nodes []Node) (NodeRun, error) {
	size, links, linking := 0, 0, 0
	for i := range nodes {
		size += len(nodes[i].URI) + len(nodes[i].At) + 4
		for _, l := range nodes[i].Links {
			size += len(l.Kind) + len(l.Node) + 4
		}
		links += len(nodes[i].Links)
		if len(nodes[i].Links) > 0 {
			linking++
		}
	}
	b := make([]byte, 0, size)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for i := range nodes {
		n := &nodes[i]
		str(n.URI)
		str(n.At)
		count := uint64(len(n.Links)) << 1
		if n.Record {
			count |= 1
		}
		b = binary.AppendUvarint(b, count)
		for _, l := range n.Links {
			str(l.Kind)
			str(l.Node)
		}
	}
	at, err := sc.Append(b)
	if err != nil {
		return NodeRun{}, err
	}
	return NodeRun{scratch: sc, at: at, nodes: len(nodes), links: links, linking: linking}, nil
}

// each reads the run back and calls f with each node in turn. The node
// and its links are f's only during the call; its strings share one
// block, which a string kept longer must not hold (see intern).
func (r NodeRun) each(f func(n *Node)) error {
	// Read into the string its nodes' strings share, not read and copied.
	var b strings.Builder
	b.Grow(int(r.at.Length))
	if n, err := io.Copy(&b, r.scratch.Section(r.at)); err != nil || n != r.at.Length {
		return fmt.Errorf("graph: reading back a run of nodes: %d of %d bytes: %v", n, r.at.Length, err)
	}
	rest := b.String()
	bad := false
	num := func() int {
		v, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if k <= 0 || v > uint64(len(rest)) {
			bad = true
			return 0
		}
		rest = rest[k:]
		return int(v)
	}
	str := func() string {
		n := num()
		if bad || n > len(rest) {
			bad = true
			return ""
		}
		s := rest[:n]
		rest = rest[n:]
		return s
	}
	var n Node
	for range r.nodes {
		n.URI, n.At = str(), str()
		links := num()
		n.Record, links = links&1 == 1, links>>1
		n.Links = n.Links[:0]
		for range links {
			if bad {
				break
			}
			n.Links = append(n.Links, artifacts.Link{Kind: str(), Node: str()})
		}
		if bad {
			break
		}
		f(&n)
	}
	if bad || rest != "" {
		return errors.New("graph: reading back a run of nodes: the run is damaged")
	}
	return nil
}
