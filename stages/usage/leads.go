package usage

import "math/bits"

// FNV-1a, 64 bits: the hash the word scan computes as it folds a word.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func hashBytes(b []byte) uint64 {
	h := fnvOffset
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// leadTable maps folded leads to the terms they start. It is an
// open-addressing table probed with the hash the scan already computed, and
// it knows the lengths of its leads, so that most words of a text cost a
// bit test and the rest one probe.
type leadTable struct {
	slots []leadSlot
	mask  uint64
	// lens has bit n set when a lead is n bytes long (bit 63: 63 or more).
	lens uint64
}

type leadSlot struct {
	hash  uint64
	lead  string
	terms []int32 // nil in an empty slot
}

func lenBit(n int) uint64 { return 1 << min(n, 63) }

// newLeadTable builds the table of leads, whose term lists are not empty.
func newLeadTable(leads map[string][]int32) leadTable {
	size := 8
	if len(leads) > 2 {
		size = max(size, 1<<bits.Len(uint(2*len(leads)-1)))
	}
	t := leadTable{slots: make([]leadSlot, size), mask: uint64(size - 1)}
	for lead, terms := range leads {
		h := hashBytes([]byte(lead))
		i := h & t.mask
		for t.slots[i].terms != nil {
			i = (i + 1) & t.mask
		}
		t.slots[i] = leadSlot{hash: h, lead: lead, terms: terms}
		t.lens |= lenBit(len(lead))
	}
	return t
}

// has reports whether some lead is n bytes long.
func (t *leadTable) has(n int) bool { return t.lens&lenBit(n) != 0 }

// find returns the terms that the folded word (whose hash is h) leads.
func (t *leadTable) find(h uint64, word []byte) []int32 {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.terms == nil {
			return nil
		}
		if s.hash == h && s.lead == string(word) {
			return s.terms
		}
	}
}
