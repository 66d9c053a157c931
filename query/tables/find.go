package tables

import "bytes"

// finder finds a short byte string in a long text, as bytes.Index does,
// for the sweep of terms.tsv an identifier-shaped term makes. bytes.Index
// skips ahead to the string's first byte, which in a term dictionary is
// often a common letter or digit; finder skips ahead to the byte of the
// string that is rarest in a term dictionary (an '@' rather than the 'f'
// of an e-mail address) and compares the whole string only there. When
// that byte turns out common in the text too, it hands the rest of the
// text to bytes.Index, so it is never much slower than that.
type finder struct {
	sep []byte
	k   int // the index in sep of the byte skipped to
}

func newFinder(sep []byte) finder {
	k := 0
	for i := range sep {
		if commonness[sep[i]] < commonness[sep[k]] {
			k = i
		}
	}
	return finder{sep: sep, k: k}
}

// index is the index of the first occurrence of f.sep in s, or -1.
func (f finder) index(s []byte) int {
	n, k := len(f.sep), f.k
	if n == 0 || n > len(s) {
		return bytes.Index(s, f.sep)
	}
	last := len(s) - n + k // the last place sep[k] can be
	misses := 0
	for i := k; i <= last; i++ {
		j := bytes.IndexByte(s[i:last+1], f.sep[k])
		if j < 0 {
			return -1
		}
		i += j
		if bytes.Equal(s[i-k:i-k+n], f.sep) {
			return i - k
		}
		// A miss costs about what bytes.Index takes for a few hundred
		// bytes: past one miss in that many, it is the faster way.
		if misses++; misses > 4+i/256 {
			if r := bytes.Index(s[i-k+1:], f.sep); r >= 0 {
				return r + i - k + 1
			}
			return -1
		}
	}
	return -1
}

// commonness ranks bytes by how often they occur in terms.tsv, higher for
// more often: the digits and separators of its number columns, then
// letters roughly by their frequency in English words, with the hex
// digits a-f raised (hashes and ids are full of them), then the
// punctuation of identifiers. Bytes of non-ASCII letters, upper case
// (folded away from terms) and the rest rank rarest. It only chooses where
// a search looks first: any ranking finds the same occurrences.
var commonness = func() [256]uint8 {
	var r [256]uint8
	// From most common to least; each byte ranks below the one before.
	const order = "\t0123456789\neatcdbsfr/.-oinmlhup_:gy=kw@vqjzx#+~"
	for i := range len(order) {
		r[order[i]] = uint8(len(order) - i)
	}
	return r
}()
