package artifacts

import "math"

// The numbers of postings.tsv and docs.key are written in base 32 with
// the digits 0-9a-v (RFC 4648's base32hex alphabet in lower case): five
// bits a character where decimal carries 3.3 and hex 4, and the digits
// sort as their values do. A length class in docs.key is one such digit.
const digits32 = "0123456789abcdefghijklmnopqrstuv"

// digitValue maps each byte to its value as a base-32 digit, and every
// other byte to 0xff: a key is decoded for every candidate of a query and
// a postings line holds a number per posting, so a digit is one table
// read.
var digitValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for v, c := range []byte(digits32) {
		t[c] = byte(v)
	}
	return t
}()

// appendBase32 appends v in base 32, without leading zeros (0 is "0").
func appendBase32(b []byte, v uint64) []byte {
	var buf [13]byte
	i := len(buf)
	for {
		i--
		buf[i] = digits32[v&31]
		v >>= 5
		if v == 0 {
			return append(b, buf[i:]...)
		}
	}
}

// putBase32 writes v in dst as len(dst) base-32 digits, zeros first: a
// fixed-width docs.key column. It reports whether v fits.
func putBase32(dst []byte, v uint64) bool {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = digits32[v&31]
		v >>= 5
	}
	return v == 0
}

// parseBase32 reads the base-32 number of c, every byte a digit; ok is
// false for an empty c, any other byte, or a value past 64 bits.
func parseBase32[T string | []byte](c T) (v uint64, ok bool) {
	if len(c) == 0 {
		return 0, false
	}
	for i := range len(c) {
		d := digitValue[c[i]]
		if d > 31 || v>>59 != 0 {
			return 0, false
		}
		v = v<<5 | uint64(d)
	}
	return v, true
}

// A postings.tsv number ends itself, so that postings need no separator:
// its last digit is a base-32 digit (0-9a-v) worth its value mod 32, and
// the digits before it, if any, are upper-case letters A-Z, a base-26
// number worth its value div 32, without a leading A. 0 to 31 are one
// digit, as in base 32; 32 is "B0", 831 "Zv", 832 "BA0". The forms sort
// as their values do only among numbers of one length, which postings
// never need.

// appendNum appends v as a self-ending postings number.
func appendNum(b []byte, v uint64) []byte {
	var buf [16]byte
	i := len(buf) - 1
	buf[i] = digits32[v&31]
	for q := v >> 5; q > 0; q /= 26 {
		i--
		buf[i] = byte('A' + q%26)
	}
	return append(b, buf[i:]...)
}

// numAt reads the self-ending postings number of list at i: its value,
// where it ends, and whether it is one (its letters without a leading A,
// then a digit, and a value at most math.MaxInt32).
func numAt(list []byte, i int) (v int64, end int, ok bool) {
	end = i
	if end < len(list) && list[end] == 'A' {
		return 0, end, false
	}
	for end < len(list) && list[end]-'A' < 26 {
		if v = v*26 + int64(list[end]-'A'); v > math.MaxInt32 {
			return 0, end, false
		}
		end++
	}
	if end == len(list) || digitValue[list[end]] > 31 {
		return 0, end, false
	}
	v = v<<5 | int64(digitValue[list[end]])
	return v, end + 1, v <= math.MaxInt32
}
