package lex

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestEncodeID(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"HAR-142", "HAR-142"},
		{"AZaz09._:/@+-", "AZaz09._:/@+-"},
		{"café/crème?brûlée%20#1", "caf%C3%A9/cr%C3%A8me%3Fbr%C3%BBl%C3%A9e%2520%231"},
		{"a b", "a%20b"},
		{"100%", "100%25"},
		{"#", "%23"},
		{"?&=;,", "%3F%26%3D%3B%2C"},
		{"~!$'()*", "%7E%21%24%27%28%29%2A"},
		{"\"<>\\^`{|}[]", "%22%3C%3E%5C%5E%60%7B%7C%7D%5B%5D"},
		{"\x00\t\n\r\x1f\x7f", "%00%09%0A%0D%1F%7F"},
		{"\xff\x80", "%FF%80"},
		{"日", "%E6%97%A5"},
		{"person:email/marc@x.test", "person:email/marc@x.test"},
	}
	for _, c := range cases {
		if got := EncodeID(c.in); got != c.want {
			t.Errorf("EncodeID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Every byte: kept exactly when it is in the unreserved set.
	for b := 0; b < 256; b++ {
		s := string([]byte{byte(b)})
		keep := b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || strings.IndexByte("._:/@+-", byte(b)) >= 0
		want := fmt.Sprintf("%%%02X", b)
		if keep {
			want = s
		}
		if got := EncodeID(s); got != want {
			t.Errorf("EncodeID(%q) = %q, want %q", s, got, want)
		}
	}
}

// pathUnescaped is what DecodeID must give: net/url's reading of a
// percent-encoded path segment, or the id itself when that fails.
func pathUnescaped(id string) string {
	if s, err := url.PathUnescape(id); err == nil {
		return s
	}
	return id
}

func TestDecodeIDAgreesWithNetURL(t *testing.T) {
	for _, id := range []string{"", "abc", "a%20b", "%2F", "%2f", "%", "%4", "%zz", "%%", "%%41", "%41%",
		"a+b", "%E2%82%AC", "%00", "x%4g", "%G1", "HAR-147", "2026-11-09%20weekly%20%2345", EncodeID("a b/c%d€\x00")} {
		if got, want := DecodeID(id), pathUnescaped(id); got != want {
			t.Errorf("DecodeID(%q) = %q, want %q", id, got, want)
		}
	}
	if got := DecodeID(EncodeID("a b/c%d€\x00")); got != "a b/c%d€\x00" {
		t.Errorf("DecodeID does not undo EncodeID: %q", got)
	}
}

func FuzzDecodeID(f *testing.F) {
	for _, s := range []string{"a%20b", "%", "%%41", "%E2%82%AC", "+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := DecodeID(id), pathUnescaped(id); got != want {
			t.Errorf("DecodeID(%q) = %q, want %q", id, got, want)
		}
		if got := DecodeID(EncodeID(id)); got != id {
			t.Errorf("DecodeID(EncodeID(%q)) = %q", id, got)
		}
	})
}
