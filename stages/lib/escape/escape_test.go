package escape

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain text, ünïcödé, 日本語, עברית\u200f", "plain text, ünïcödé, 日本語, עברית\u200f"},
		{"tab\tand\nnewline\r\n", "tab\tand\nnewline\r\n"},
		{"\x1b[31mred\x1b[0m", `\u001b[31mred\u001b[0m`},
		{"bell\a nul\x00 del\x7f", `bell\u0007 nul\u0000 del\u007f`},
		{"lone\rcr", `lone\u000dcr`},
		{"trailing cr\r", `trailing cr\u000d`},
		{"csi\u009b nel\u0085", `csi\u009b nel\u0085`},
		{"rlo\u202e lre\u202a pdf\u202c", `rlo\u202e lre\u202a pdf\u202c`},
		{"lri\u2066 pdi\u2069", `lri\u2066 pdi\u2069`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		// Neighbours of the hazards stay: U+00A0, U+2027, U+202F, U+2065, U+206A.
		{"\u00a0\u2027\u202f\u2065\u206a", "\u00a0\u2027\u202f\u2065\u206a"},
		// Bytes that are not UTF-8 stay as they are, cut sequences too.
		{"bad \xff\xc2", "bad \xff\xc2"},
		{"cut \xe2\x80", "cut \xe2\x80"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(Bytes([]byte(c.in))); got != c.want {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"one\ntwo\tthree\r\nfour", "one two three  four"},
		{"odd\ttitles\x01with\x1b[31m", "odd titles with [31m"},
		{"ls\u2028ps\u2029nel\u0085", "ls ps nel "},
		{"rlo\u202e\x7f", `rlo\u202e `},
	}
	for _, c := range cases {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBytesKeepsJSON: escaping encoded JSON leaves it valid and decoding
// to the same values, with no hazard left raw.
func TestBytesKeepsJSON(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x2100; r++ {
		all.WriteRune(r)
	}
	value := map[string]string{"text": all.String() + "\u2066\u2067\u2068\u2069"}
	enc, err := json.MarshalIndent(value, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	out := Bytes(enc)
	if i := first(out); i >= 0 {
		t.Fatalf("a hazard is left raw at %d: %q", i, out[i:i+4])
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["text"] != value["text"] {
		t.Fatalf("escaped JSON decodes to another value (%v)", err)
	}
}

// TestEveryHazardFound checks the byte matching against the runes it
// stands for, over the whole Basic Multilingual Plane.
func TestEveryHazardFound(t *testing.T) {
	for r := rune(0); r < 0x10000; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r) + "x"
		want := r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f ||
			r >= 0x2028 && r <= 0x202e || r >= 0x2066 && r <= 0x2069
		got, n := hazard(s, 0)
		if (n > 0) != want || n > 0 && (got != r || n != utf8.RuneLen(r)) {
			t.Errorf("hazard(%U) = %U, %d; want hazard %v", r, got, n, want)
		}
	}
}
