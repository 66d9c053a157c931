package artifacts

import (
	"bytes"
	"math"
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

// TestNumRoundTrip: a postings number reads back as written, ends where
// it was written to end, and has the forms the package documentation
// gives.
func TestNumRoundTrip(t *testing.T) {
	forms := map[int64]string{0: "0", 31: "v", 32: "B0", 40: "B8", 831: "Zv", 832: "BA0", 1024: "BG0", 65535: "DATv", math.MaxInt32: "FQWFMDv"}
	for v, want := range forms {
		if got := string(appendNum(nil, uint64(v))); got != want {
			t.Errorf("appendNum(%d) = %q, want %q", v, got, want)
		}
	}
	for v := int64(0); v < 1<<31; v = v*3 + 1 {
		b := appendNum([]byte("x"), uint64(v))
		b = append(b, 'B') // the next number's letter does not extend this one
		got, end, ok := numAt(b, 1)
		if !ok || got != v || end != len(b)-1 {
			t.Errorf("numAt(%q) = %d, %d, %v; want %d, %d, true", b, got, end, ok, v, len(b)-1)
		}
	}
	for _, bad := range []string{"", "A0", "B", "x", "FQWFME0", "ZZZZZZZZZZZv", "-1"} {
		if v, _, ok := numAt([]byte(bad), 0); ok {
			t.Errorf("numAt(%q) = %d, ok", bad, v)
		}
	}
}

// FuzzNumAt: whatever numAt reads is the one form appendNum writes.
func FuzzNumAt(f *testing.F) {
	for _, s := range []string{"0", "v", "B0", "Zv", "BA0", "FQWFMDv", "FQWFME0", "A0", "BB"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, end, ok := numAt(b, 0)
		if !ok {
			return
		}
		if v < 0 || v > math.MaxInt32 {
			t.Fatalf("numAt(%q) = %d, outside 0..2^31-1", b, v)
		}
		if form := appendNum(nil, uint64(v)); !bytes.Equal(form, b[:end]) {
			t.Fatalf("numAt(%q) = %d, whose form is %q", b[:end], v, form)
		}
	})
}
