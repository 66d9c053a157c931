package lex

import "strings"

// EncodeID percent-encodes a record id for its URI: every byte outside
// A-Z a-z 0-9 . _ : / @ + - becomes %XX with uppercase hex.
func EncodeID(id string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._:/@+-", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// DecodeID undoes a record id's percent-encoding (EncodeID's, or any
// %XX with upper- or lowercase hex, as net/url's PathUnescape reads it);
// an id that does not decode (a % not followed by two hex digits) stays
// as it is. It is written out rather than taken from net/url, whose
// packages cost every process their initialisation.
func DecodeID(id string) string {
	if strings.IndexByte(id, '%') < 0 {
		return id
	}
	b := make([]byte, 0, len(id))
	for i := 0; i < len(id); i++ {
		if id[i] != '%' {
			b = append(b, id[i])
			continue
		}
		if i+2 >= len(id) {
			return id
		}
		hi, ok1 := unhex(id[i+1])
		lo, ok2 := unhex(id[i+2])
		if !ok1 || !ok2 {
			return id
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b)
}

// unhex is the value of a hex digit.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
