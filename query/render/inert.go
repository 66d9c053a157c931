package render

import (
	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/govern"
)

// Inert makes stored text safe to show on one line of an answer: control
// characters and line breaks become spaces, comment delimiters and code
// fences go, heading markers at its start go (govern.Plain, as the
// by-location answer does), and it is capped at maxValueRunes.
func Inert(s string) string { return govern.CapLine(govern.Plain(escape.Line(s)), maxValueRunes) }

// maxValueRunes caps every stored value an answer shows.
const maxValueRunes = 280

// DefaultLimit is how many items of each group a search, or of a
// listing, shows when no --limit is given.
const DefaultLimit = 20

// InertAll is Inert over a list.
func InertAll(l []string) []string {
	out := make([]string, 0, len(l))
	for _, v := range l {
		out = append(out, Inert(v))
	}
	return out
}

// GroupHash hashes lists of strings in groups so that different lists
// never hash alike by running together: each part ends with US (0x1f),
// each group with RS (0x1e). Snapshot keys and search cursors bind with
// it.
type GroupHash struct{ d *xxhash.Digest }

// NewGroupHash starts a GroupHash.
func NewGroupHash() GroupHash { return GroupHash{xxhash.New()} }

// Add hashes one group of parts.
func (g GroupHash) Add(parts ...string) {
	for _, p := range parts {
		g.d.WriteString(p)
		g.d.WriteString("\x1f")
	}
	g.d.WriteString("\x1e")
}

// Sum is the hash so far, as 16 hex digits.
func (g GroupHash) Sum() string { return artifacts.HashSum(g.d.Sum64()) }
