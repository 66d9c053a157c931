// Package escape keeps stored text from acting on the screen of the
// person who reads an answer. The notes log, the records, the pages and
// even file names are anyone's to write, and an agent's suggestion is
// read by a person in a terminal: a raw ESC there starts a control
// sequence, a BEL rings, a right-to-left override makes a line read other
// than it is written, and a Unicode line separator breaks a line that a
// listing means to keep whole.
//
// Text and Bytes write each such rune as a visible escape: a backslash,
// u, and four lower-case hex digits, as JSON and Go write it ("\u001b",
// "\u202e"). The same notation serves text and encoded JSON: inside a
// JSON string it is the rune's own escape, so a program that decodes the
// JSON gets the stored value back, rune for rune. Line is for a value
// shown on one line.
//
// In: strings or bytes. Out: the same with every hazard escaped. It must
// not read or write anything, and imports nothing of cairn's, so that
// every package that prints may use it.
package escape

import (
	"strings"
	"unicode"
)

// The runes escaped, by how they act on a display:
//
//   - C0 controls (U+0000 to U+001F) but tab and line feed, and carriage
//     return when a line feed follows it (a CRLF line end): ESC starts a
//     terminal's control sequences, BEL rings, a lone CR returns to the
//     start of the line to write over it, NUL and the rest have no place
//     in text;
//   - DEL (U+007F) and the C1 controls (U+0080 to U+009F), among them
//     CSI (U+009B), which some terminals take as ESC [;
//   - the bidirectional embeddings, overrides and isolates (U+202A to
//     U+202E, U+2066 to U+2069), which reorder what follows them on the
//     line;
//   - the line and paragraph separators (U+2028, U+2029), which some
//     displays break a line at and others do not.
//
// The bidirectional marks (U+200E, U+200F, U+061C) are left as they are:
// right-to-left text uses them, and they reorder no run of text around
// them the way an override does.

// hazard reports the hazard rune that starts at s[i] and its length in
// bytes, 0 when none does. Every hazard is matched on its UTF-8 bytes: a
// lead byte never occurs inside another rune's encoding, so no decoding
// is needed, and bytes that are not UTF-8 are left as they are.
func hazard[T string | []byte](s T, i int) (r rune, size int) {
	c := s[i]
	switch {
	case c < 0x20:
		if c == '\t' || c == '\n' || c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			return 0, 0
		}
		return rune(c), 1
	case c == 0x7f:
		return rune(c), 1
	case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
		return rune(s[i+1]), 2 // U+0080..U+009F
	case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2] >= 0xa8 && s[i+2] <= 0xae:
		return 0x2000 + rune(s[i+2]&0x3f), 3 // U+2028..U+202E
	case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x81 && s[i+2] >= 0xa6 && s[i+2] <= 0xa9:
		return 0x2040 + rune(s[i+2]&0x3f), 3 // U+2066..U+2069
	}
	return 0, 0
}

// first is the index of the first hazard in s, -1 when there is none.
func first[T string | []byte](s T) int {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == 0x7f || c == 0xc2 || c == 0xe2 {
			if _, n := hazard(s, i); n > 0 {
				return i
			}
		}
	}
	return -1
}

// hexDigits are the digits of an escape, lower-case as JSON encoders and
// Go write them.
const hexDigits = "0123456789abcdef"

// appendEscaped appends s to dst with every hazard from index from on
// escaped; s[:from] holds none.
func appendEscaped(dst []byte, s string, from int) []byte {
	dst = append(dst, s[:from]...)
	last := from
	for i := from; i < len(s); {
		r, n := hazard(s, i)
		if n == 0 {
			i++
			continue
		}
		dst = append(dst, s[last:i]...)
		dst = append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		i += n
		last = i
	}
	return append(dst, s[last:]...)
}

// Text returns s with every hazard written as its escape; line feeds,
// tabs and CRLF line ends stay, so text shown line by line keeps its
// lines. s itself is returned when it holds no hazard.
func Text(s string) string {
	i := first(s)
	if i < 0 {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+16), s, i))
}

// Bytes is Text for bytes: a whole answer, text or encoded JSON, before
// it is printed. b itself is returned when it holds no hazard.
func Bytes(b []byte) []byte {
	i := first(b)
	if i < 0 {
		return b
	}
	return appendEscaped(make([]byte, 0, len(b)+16), string(b), i)
}

// Line makes a stored value fit to show on one line, in its column: a
// line break, a tab or any other control character becomes a space, as
// does a line or paragraph separator, so the value stays on its line
// (SPEC §5: control characters in values become spaces); what else could
// act on the display, the bidirectional controls, is escaped as Text
// does.
func Line(s string) string {
	if strings.ContainsFunc(s, breaks) {
		s = strings.Map(func(r rune) rune {
			if breaks(r) {
				return ' '
			}
			return r
		}, s)
	}
	return Text(s)
}

// breaks reports whether r would break or disturb a line: a control
// character or a line or paragraph separator.
func breaks(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
