package corpus

import (
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// What a session's corpus keeps of the items it read, bounded by their
// text: enough for the items of many packs, a fraction of the memory a
// server may take.
const (
	ItemCacheBytes = 16 << 20
	RowCacheBytes  = 4 << 20
)

// readCache keeps what a long-lived corpus read and decoded of its items,
// by ordinal (projected items, docs.tsv rows), so that a later request
// showing or checking the same item does not read and decode it again. It
// belongs to one read of the artifacts and goes with it: an ordinal names
// one item only in one build. What it holds is never changed once made,
// so one value is shared by the requests that use it.
//
// It holds two generations: values are put in the newer, and when that is
// full it becomes the older and the oldest is dropped; a value found in
// the older moves to the newer. What a server's agent keeps asking about
// stays, at a cost bounded by twice the limit.
type readCache[V any] struct {
	mu         sync.Mutex
	limit      int
	size       func(V) int // what a value holds, in bytes
	newer      map[int]V
	older      map[int]V
	newerBytes int
}

func NewReadCache[V any](limit int, size func(V) int) *readCache[V] {
	return &readCache[V]{limit: limit, size: size, newer: map[int]V{}}
}

func (c *readCache[V]) get(ord int) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.newer[ord]; ok {
		return v, true
	}
	v, ok := c.older[ord]
	if ok {
		delete(c.older, ord)
		c.putLocked(ord, v)
	}
	return v, ok
}

func (c *readCache[V]) put(ord int, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(ord, v)
}

func (c *readCache[V]) putLocked(ord int, v V) {
	if _, ok := c.newer[ord]; ok {
		return
	}
	if c.newerBytes >= c.limit {
		c.older, c.newer, c.newerBytes = c.newer, map[int]V{}, 0
	}
	c.newer[ord] = v
	c.newerBytes += c.size(v)
}

// valueOverhead is what a cached string or slice costs beyond its bytes:
// its header and the map's share.
const valueOverhead = 32

// ItemBytes estimates what an item holds: its text, and the headers that
// point at it.
func ItemBytes(it project.Item) int {
	n := 256 + len(it.URI) + len(it.Title) + len(it.URL) + len(it.Date) + len(it.Time) + len(it.DocPath)
	for _, f := range it.Fields {
		n += valueOverhead + len(f.Name)
		for _, v := range f.Values {
			n += valueOverhead + len(v)
		}
		n += len(f.Terms) * valueOverhead
	}
	for _, r := range it.Relations {
		n += valueOverhead + len(r.Field) + len(r.Value)
	}
	for _, group := range [][]string{it.Flags, it.Tags, it.Links, it.Supersedes} {
		for _, v := range group {
			n += valueOverhead + len(v)
		}
	}
	return n
}

// DocBytes estimates what a docs.tsv row holds.
func DocBytes(d artifacts.Doc) int {
	n := 160 + len(d.URI) + len(d.Title) + len(d.Digest) + len(d.URLKey) + len(d.Date) + len(d.Time) + len(d.Source) +
		len(d.Lengths)*valueOverhead
	for _, f := range d.Flags {
		n += valueOverhead + len(f)
	}
	return n
}
