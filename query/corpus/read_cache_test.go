package corpus

import (
	"testing"

	"github.com/cairn-kb/cairn/stages/project"
)

// TestReadCacheKeepsWhatIsAskedFor: the cache stays within twice its
// limit, an item asked for again survives the next turnover, and one never
// asked for again is dropped by the second.
func TestReadCacheKeepsWhatIsAskedFor(t *testing.T) {
	item := func(ord int) project.Item { return project.Item{URI: "events/x.json#" + string(rune('a'+ord%26))} }
	per := ItemBytes(item(0))
	c := NewReadCache(10*per, ItemBytes) // a generation turns over every 10 items
	c.put(0, item(0))
	c.put(1, item(1))
	for ord := 2; ord < 40; ord++ {
		c.put(ord, item(ord))
		if _, ok := c.get(0); !ok {
			t.Fatalf("after %d puts, item 0, asked for after every put, was dropped", ord)
		}
		if held := len(c.newer) + len(c.older); held > 21 {
			t.Fatalf("after %d puts the cache holds %d items; the limit allows 20", ord, held)
		}
	}
	if _, ok := c.get(1); ok {
		t.Error("item 1, never asked for again, is still held after two turnovers")
	}
	if it, ok := c.get(39); !ok || it.URI != item(39).URI {
		t.Errorf("the last item put: got %v, %v", it.URI, ok)
	}
}
