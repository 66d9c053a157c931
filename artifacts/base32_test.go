package artifacts

import (
	"strconv"
	"testing"
)

// base32Reference is parseBase32 by the standard library, which also
// takes upper-case digits and a sign: the tables hold only lower-case
// digits.
func base32Reference(c []byte) (uint64, bool) {
	if len(c) == 0 {
		return 0, false
	}
	for _, b := range c {
		if !('0' <= b && b <= '9' || 'a' <= b && b <= 'v') {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(string(c), 32, 64)
	return v, err == nil
}

// TestParseBase32Agrees checks the base-32 reader against the standard
// library's: every byte value at every place of columns of the widths
// docs.key has, and the largest values each width holds.
func TestParseBase32Agrees(t *testing.T) {
	for _, base := range []string{"701", "000e", "3vvvvvv", "0000002m", "ftn5qj1r58cgg", "fvvvvvvvvvvvv", "g000000000000", "1vvvvvvvvvvvvv"} {
		for at := range len(base) {
			for b := range 256 {
				c := []byte(base)
				c[at] = byte(b)
				gv, gok := parseBase32(c)
				wv, wok := base32Reference(c)
				if gok != wok || gok && gv != wv {
					t.Fatalf("%q: parseBase32 = %#x, %v; strconv = %#x, %v", c, gv, gok, wv, wok)
				}
			}
		}
	}
}

func FuzzParseBase32(f *testing.F) {
	for _, s := range []string{"701", "3vvvvvv", "ftn5qj1r58cgg", "g000000000000", "0000002w", "1vvvvvv", "", "-1", "V"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, c []byte) {
		gv, gok := parseBase32(c)
		wv, wok := base32Reference(c)
		if gok != wok || gok && gv != wv {
			t.Fatalf("%q: parseBase32 = %#x, %v; strconv = %#x, %v", c, gv, gok, wv, wok)
		}
		if gok {
			// What parses writes back as the standard library writes it.
			if got, want := string(appendBase32(nil, gv)), strconv.FormatUint(gv, 32); got != want {
				t.Fatalf("appendBase32(%#x) = %q, want %q", gv, got, want)
			}
		}
	})
}

// TestPutBase32 writes fixed-width columns, and says when a value does not
// fit.
func TestPutBase32(t *testing.T) {
	for _, c := range []struct {
		v     uint64
		width int
		want  string
		fits  bool
	}{
		{0, 3, "000", true},
		{7169, 3, "701", true},
		{1<<15 - 1, 3, "vvv", true},
		{1 << 15, 3, "000", false},
		{1<<64 - 1, 13, "fvvvvvvvvvvvv", true},
		{1<<32 - 1, 7, "3vvvvvv", true},
	} {
		b := make([]byte, c.width)
		if fits := putBase32(b, c.v); string(b) != c.want || fits != c.fits {
			t.Errorf("putBase32(%d, width %d) = %q, %v; want %q, %v", c.v, c.width, b, fits, c.want, c.fits)
		}
	}
}
