package query

import (
	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
)

// groupHash hashes lists of strings in groups so that different lists
// never hash alike by running together: each part ends with US (0x1f),
// each group with RS (0x1e). Snapshot keys and search cursors bind with
// it.
type groupHash struct{ d *xxhash.Digest }

func newGroupHash() groupHash { return groupHash{xxhash.New()} }

// add hashes one group of parts.
func (g groupHash) add(parts ...string) {
	for _, p := range parts {
		g.d.WriteString(p)
		g.d.WriteString("\x1f")
	}
	g.d.WriteString("\x1e")
}

// sum is the hash so far, as 16 hex digits.
func (g groupHash) sum() string { return artifacts.HashSum(g.d.Sum64()) }
