package main

import (
	"strconv"
	"unicode/utf8"
)

// appendJSON appends s as a JSON string. The same text is a valid YAML
// double-quoted scalar, so YAML files use it too and never need to think
// about which plain scalars YAML would reinterpret (dates, yes, no, ...).
func appendJSON(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// appendJSONBytes is appendJSON for text built in a byte slice.
func appendJSONBytes(b, s []byte) []byte { return appendJSON(b, string(s)) }

// appendKey appends `"key":` for a JSON object member.
func appendKey(b []byte, key string) []byte {
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendStrList appends a JSON array of strings.
func appendStrList(b []byte, xs []string) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSON(b, x)
	}
	return append(b, ']')
}

// appendClock appends day + "T" + hh:mm:ss + "Z" for a second of the day.
// Hand-written because the events writer calls it for every record.
func appendClock(b []byte, day string, sec int) []byte {
	b = append(b, day...)
	b = append(b, 'T')
	b = append2(b, sec/3600)
	b = append(b, ':')
	b = append2(b, sec/60%60)
	b = append(b, ':')
	b = append2(b, sec%60)
	return append(b, 'Z')
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// appendPad appends v in decimal, zero-padded to width digits.
func appendPad(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// percentEncode encodes a record id for its URI: bytes outside
// A-Za-z0-9._:/@+- become %XX with uppercase hex (SPEC §3.2).
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '/' || c == '@' || c == '+' || c == '-' {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}
