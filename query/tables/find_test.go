package tables

import (
	"bytes"
	"strings"
	"testing"
)

func TestFinderAgreesWithIndex(t *testing.T) {
	many := strings.Repeat("x", 5000) // every byte a miss, until the cut-over
	for _, c := range []struct{ s, sep string }{
		{"", ""},
		{"abc", ""},
		{"", "a"},
		{"ab", "abc"},
		{"web-100\t3\t0\t9\n", "web-100"},
		{"xweb-1000\n", "web-100"},
		{"repo:github.com/acme/quarry", "quarry"},
		{"fmoreau@users.noreply.github.test", "@users"},
		{"aaaa@", "a@"},    // the rare byte last
		{"@aaaa", "@a"},    // the rare byte first
		{"a@a@a@b", "a@b"}, // misses before the match
		{"q@q@", "q@q@"},   // the whole text
		{"zzqzq", "zq"},    // overlapping candidates
		{many + "xq" + many, "xq"},
		{many + many, "xq"}, // the cut-over, and no match
		{many + "q" + many, "xqx"},
		{"ü-ticket", "ü-t"}, // bytes outside ASCII rank rarest
		{"ticket-ü", "-ü"},
	} {
		want := bytes.Index([]byte(c.s), []byte(c.sep))
		if got := newFinder([]byte(c.sep)).index([]byte(c.s)); got != want {
			t.Errorf("index(%.40q, %q) = %d, want %d", c.s, c.sep, got, want)
		}
	}
}

// TestFinderSkipsToTheRareByte checks that the finder looks for the byte
// a term dictionary holds least, which is what makes it fast.
func TestFinderSkipsToTheRareByte(t *testing.T) {
	for sep, want := range map[string]byte{
		"fmoreau@users.noreply.github.test": '@',
		"web-100":                           'w',
		"repo:github.com/acme/quarry":       'q',
		"2026-11":                           '-',
		"café-menu":                         0xc3,
	} {
		f := newFinder([]byte(sep))
		if got := f.sep[f.k]; got != want {
			t.Errorf("%s: skips to %q, want %q", sep, got, want)
		}
	}
}

func FuzzFinder(f *testing.F) {
	f.Add([]byte("a@b\tweb-100\nrepo:x/y"), []byte("b-1"))
	f.Add([]byte(strings.Repeat("e", 2000)+"ez"), []byte("ez"))
	f.Fuzz(func(t *testing.T, s, sep []byte) {
		want := bytes.Index(s, sep)
		if got := newFinder(sep).index(s); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", s, sep, got, want)
		}
	})
}
