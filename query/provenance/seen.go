package provenance

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/stages/load"
)

// Seen is what one long-lived process last read of a base's governance,
// so that each governance answer (by location, or a search) can say, as
// its first note, that the governing context, the terms or the notes log
// moved since the process's previous answer (seed 004: the baseline is
// per process and advances on every read). It says nothing when nothing
// moved: a note is there when action is needed. The zero value has read
// nothing. A process that answers once (the CLI) passes none: its answer
// has no earlier read to compare with, and carries no such note.
type Seen struct {
	mu   sync.Mutex
	read bool
	last governanceDigests
}

// governanceDigests fingerprint the three things an answer's freshness
// note reports on.
type governanceDigests struct {
	governance uint64 // cairn.yaml's governance section and the voice profiles
	terms      uint64
	log        uint64
}

// digestsOf fingerprints what ReadGovernance read.
func digestsOf(g load.Governance) governanceDigests {
	return governanceDigests{
		governance: jsonDigest(g.Config.Governance, g.Voices),
		terms:      jsonDigest(g.Terms),
		log:        jsonDigest(g.Log),
	}
}

// jsonDigest hashes values through their JSON form, which is
// deterministic for the plain structs governance loads into.
func jsonDigest(vs ...any) uint64 {
	h := xxhash.New()
	for _, v := range vs {
		b, _ := json.Marshal(v) // plain data; a field that cannot encode hashes as nothing
		h.Write(b)
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Advance compares g with the previous read, records g as the new
// baseline, and returns the note that says what moved; "" on the first
// read and when nothing moved.
func (s *Seen) Advance(g load.Governance) string {
	now := digestsOf(g)
	s.mu.Lock()
	prev, read := s.last, s.read
	s.last, s.read = now, true
	s.mu.Unlock()
	if !read {
		return ""
	}
	var moved []string
	if now.governance != prev.governance {
		moved = append(moved, "the governance (points or voice profiles)")
	}
	if now.terms != prev.terms {
		moved = append(moved, "the terms")
	}
	if now.log != prev.log {
		moved = append(moved, "the notes log")
	}
	if len(moved) == 0 {
		return ""
	}
	return "Since this process's previous answer, " + strings.Join(moved, ", ") + " moved: what you wrote under the earlier answer may need another look."
}
