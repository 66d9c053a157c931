package tables

import (
	"bytes"
	"math"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// Outgoing returns the outgoing links of node from edges.tsv, and whether
// the node has any.
func (r *Reader) Outgoing(node string) ([]artifacts.Link, bool, error) {
	return r.adjacency(r.edges, node, 0)
}

// Incoming returns the inbound links of node from edges.dst.tsv, newest
// source first, at most limit of them (all when limit <= 0), and whether
// the node has any. An item source is written #<ordinal>. A long line is
// read and decoded only as far as the limit needs.
func (r *Reader) Incoming(node string, limit int) ([]artifacts.Link, bool, error) {
	return r.adjacency(r.edgesDst, node, limit)
}

func (r *Reader) adjacency(a *file, node string, limit int) ([]artifacts.Link, bool, error) {
	s, klen, found, err := a.locate(node)
	if err != nil || !found {
		return nil, false, err
	}
	if limit <= 0 {
		limit = math.MaxInt
	}
	links, err := a.streamLinks(s, klen, node, limit)
	if err != nil {
		return nil, false, err
	}
	for _, l := range links { // an item source #<ordinal> must be a row
		if strings.HasPrefix(l.Node, artifacts.ItemRef) && a == r.edgesDst {
			if n, ok := artifacts.ParseItemRef(l.Node); !ok || int(n) >= r.items {
				return nil, false, a.corrupt(s, "source %q is not an item of docs.tsv, which has %d", l.Node, r.items)
			}
		}
	}
	return links, true, nil
}

// streamLinks decodes the links of the line at s whose node column has
// klen bytes, a batch of whole cells at a time with DecodeLinks,
// until it has limit links or reaches the end of the line. The batches
// grow, so a whole megabyte line costs a few dozen reads.
func (a *file) streamLinks(s int64, klen int, node string, limit int) ([]artifacts.Link, error) {
	pos := s + int64(klen)
	sep, err := a.readAt(pos, 1)
	if err != nil {
		return nil, err
	}
	if len(sep) == 0 || sep[0] != '\t' {
		return nil, a.corrupt(s, "node %q has no links", node)
	}
	pos++
	var links []artifacts.Link
	for c := probeChunk; len(links) < limit; {
		buf, err := a.readAt(pos, c)
		if err != nil {
			return nil, err
		}
		seg, last := buf, false
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			seg, last = buf[:i], true
			if bytes.HasSuffix(seg, []byte{'\r'}) {
				return nil, a.corrupt(s, crlf)
			}
		} else if pos+int64(len(buf)) >= a.size {
			return nil, a.corrupt(s, truncated)
		} else if j := bytes.LastIndexByte(buf, '\t'); j >= 0 {
			seg = buf[:j]
			pos += int64(j) + 1
		} else {
			c = min(2*c, maxChunk) // one cell longer than the chunk
			continue
		}
		kind := "" // the kind of the link before the batch, which a link of edges.dst.tsv may leave out
		if len(links) > 0 {
			kind = links[len(links)-1].Kind
		}
		more, err := artifacts.DecodeLinks(a.path, 0, kind, seg)
		if err != nil {
			return nil, a.at(err, s)
		}
		links = append(links, more...)
		if last {
			break
		}
		c = min(2*c, maxChunk)
	}
	return links[:min(limit, len(links))], nil
}
