package query

import (
	"sync"

	"github.com/cairn-kb/cairn/stages/project"
)

// itemCacheBytes bounds what a session's item cache holds, counted as the
// items' text: enough for the items of many packs, a fraction of the
// memory a server may take.
const itemCacheBytes = 16 << 20

// itemCache keeps the items a long-lived corpus projected, by ordinal, so
// that a later request showing or checking the same item does not read
// and project its record or page again. It belongs to one read of the
// artifacts and goes with it: an ordinal names one item only in one
// build. Items are never changed once projected, so one is shared by the
// requests that use it.
//
// It holds two generations: items are put in the newer, and when that is
// full it becomes the older and the oldest is dropped; an item found in
// the older moves to the newer. What a server's agent keeps asking about
// stays, at a cost bounded by twice the limit.
type itemCache struct {
	mu         sync.Mutex
	limit      int
	newer      map[int]project.Item
	older      map[int]project.Item
	newerBytes int
}

func newItemCache(limit int) *itemCache {
	return &itemCache{limit: limit, newer: map[int]project.Item{}}
}

func (c *itemCache) get(ord int) (project.Item, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.newer[ord]; ok {
		return it, true
	}
	it, ok := c.older[ord]
	if ok {
		delete(c.older, ord)
		c.putLocked(ord, it)
	}
	return it, ok
}

func (c *itemCache) put(ord int, it project.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(ord, it)
}

func (c *itemCache) putLocked(ord int, it project.Item) {
	if _, ok := c.newer[ord]; ok {
		return
	}
	if c.newerBytes >= c.limit {
		c.older, c.newer, c.newerBytes = c.newer, map[int]project.Item{}, 0
	}
	c.newer[ord] = it
	c.newerBytes += itemBytes(it)
}

// itemBytes estimates what an item holds: its text, and a fixed cost per
// value for the headers that point at it.
func itemBytes(it project.Item) int {
	const overhead = 32
	n := 256 + len(it.URI) + len(it.Title) + len(it.URL) + len(it.Date) + len(it.Time) + len(it.DocPath)
	for _, f := range it.Fields {
		n += overhead + len(f.Name)
		for _, v := range f.Values {
			n += overhead + len(v)
		}
		n += len(f.Terms) * overhead
	}
	for _, r := range it.Relations {
		n += overhead + len(r.Field) + len(r.Value)
	}
	for _, group := range [][]string{it.Flags, it.Tags, it.Links, it.Supersedes} {
		for _, v := range group {
			n += overhead + len(v)
		}
	}
	return n
}
