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
// bit test and the rest a probe or two of a small array of hashes.
type leadTable struct {
	// hashes holds each slot's hash, 0 in an empty slot (a lead whose
	// hash is 0 is filed under 1); leads and terms are parallel to it.
	hashes []uint64
	leads  []string
	terms  [][]int32
	mask   uint64
	// lens has bit n set when a lead is n bytes long (bit 63: 63 or more).
	lens uint64
	// firsts has bit b set when a lead starts with byte b.
	firsts [4]uint64
}

func lenBit(n int) uint64 { return 1 << min(n, 63) }

// slotHash is h as the table files it: never 0, which marks empty slots.
func slotHash(h uint64) uint64 { return max(h, 1) }

// newLeadTable builds the table of leads, none of them empty.
func newLeadTable(leads map[string][]int32) leadTable {
	size := 8
	if len(leads) > 2 {
		size = max(size, 1<<bits.Len(uint(2*len(leads)-1)))
	}
	t := leadTable{hashes: make([]uint64, size), leads: make([]string, size), terms: make([][]int32, size), mask: uint64(size - 1)}
	for lead, terms := range leads {
		h := slotHash(hashBytes([]byte(lead)))
		i := h & t.mask
		for t.hashes[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.hashes[i], t.leads[i], t.terms[i] = h, lead, terms
		t.lens |= lenBit(len(lead))
		t.firsts[lead[0]>>6] |= 1 << (lead[0] & 63)
	}
	return t
}

// has reports whether some lead is n bytes long.
func (t *leadTable) has(n int) bool { return t.lens&lenBit(n) != 0 }

// starts reports whether some lead starts with byte b.
func (t *leadTable) starts(b byte) bool { return t.firsts[b>>6]&(1<<(b&63)) != 0 }

// find returns the terms that the folded word (whose hash is h) leads.
func (t *leadTable) find(h uint64, word []byte) []int32 {
	h = slotHash(h)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		switch t.hashes[i] {
		case 0:
			return nil
		case h:
			if t.leads[i] == string(word) {
				return t.terms[i]
			}
		}
	}
}
