package rank

import (
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// Standing packs the keys of order before the last into one word, larger
// first, so that a comparison is one or two integer compares: a
// common-word query orders tens of thousands of items. A score takes 32
// bits above the page bit, offset to compare unsigned (a term gives less
// than 400 points, so a score needs millions of terms to leave the
// range); the count of matched terms takes 24 bits, more than a query can
// hold. nextAction is the ordinal of the next_action field (fieldOrdinal).
func (e *Ranking) Standing(s *Scored, nextAction int) uint64 {
	bit := func(b bool, at uint) uint64 {
		if b {
			return 1 << at
		}
		return 0
	}
	signed := func(v int) uint64 { return uint64(uint32(int32(v)) ^ 1<<31) }
	const activeProject = artifacts.KeyActive | artifacts.KeyProject
	commitment := len(e.Terms) == 1 && s.Direct && s.Key.Flags&activeProject == activeProject && HasWords(s.Key, nextAction)
	if e.Parsed.Last {
		return bit(commitment, 63) | bit(s.Key.Flags&artifacts.KeyDated != 0, 62) | bit(s.Direct, 61) | bit(s.Related, 60) | signed(s.BestWeight)
	}
	// An item a term names by its own id or URI comes before those whose
	// relations name it; in a question asking for an event, records come
	// first among items matching as many terms.
	record := e.Event && s.Key.Flags&artifacts.KeyRecord != 0
	return bit(commitment, 63) | bit(s.Identity, 62) | bit(s.Direct, 61) | uint64(min(s.Matched, MultiTerm))<<37 | bit(record, 36) |
		bit(s.Related, 35) | signed(s.Score)<<1 | bit(IsPage(s.Key), 0)
}

// policyRoles are the flags of the policy roles a pack keeps out unless
// the query names them.
var policyRoles = []struct {
	flag artifacts.KeyFlags
	name string
}{{artifacts.KeyReceived, project.FlagReceived}, {artifacts.KeyPrivate, project.FlagPrivate}}

// Excluded reports whether a received or private record stays out: it
// does unless the query names its role or the record itself.
func (e *Ranking) Excluded(s *Scored) bool {
	for _, r := range policyRoles {
		if s.Key.Flags&r.flag != 0 && !slices.Contains(e.roles, r.name) && !s.Identity {
			return true
		}
	}
	return false
}
