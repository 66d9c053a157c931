package fieldpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a JSON value.
type Kind uint8

// JSON value kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a decoded JSON value. It is built for evaluating field paths over
// many records fast: strings without escapes and number literals are
// substrings of the input (no copy), and objects keep their members in
// order in two parallel slices instead of a map.
type Value struct {
	Kind Kind
	// Str holds a string's text, a number's literal or "true"/"false".
	Str string
	// Items holds array elements, or object member values.
	Items []Value
	// Keys holds object member names, parallel to Items.
	Keys []string
}

// Member returns the value of an object's member. Like encoding/json, the
// last of duplicate keys wins.
func (v *Value) Member(key string) (*Value, bool) {
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == key {
			return &v.Items[i], true
		}
	}
	return nil, false
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 512

// ParseJSON decodes one JSON value that makes up all of data (surrounding
// whitespace allowed). Invalid UTF-8 inside strings becomes U+FFFD, as with
// encoding/json.
func ParseJSON(data string) (Value, error) {
	var d Decoder // a Decoder of its own: nothing will overwrite the result
	return d.Parse(data)
}

type jsonParser struct {
	s string
	i int
	d *Decoder // where containers gather their members; nil only when skipping
}

// Decoder parses many JSON values in a row, reusing its memory: the
// members of every container are gathered on a stack and then stored
// contiguously in an arena that the next Parse overwrites. A Value from
// Parse is valid until the next Parse on the same Decoder (strings taken
// from it stay valid forever). A Decoder is not safe for concurrent use.
type Decoder struct {
	stack  []Value
	kstack []string
	arena  []Value
	karena []string
}

// Parse decodes one JSON value that makes up all of data, like ParseJSON.
func (d *Decoder) Parse(data string) (Value, error) {
	// A failed parse leaves values on the stacks; they go too, or they
	// would sit under every later parse and keep old input alive.
	clear(d.arena)
	clear(d.karena)
	clear(d.stack)
	clear(d.kstack)
	d.arena, d.karena = d.arena[:0], d.karena[:0]
	d.stack, d.kstack = d.stack[:0], d.kstack[:0]
	p := jsonParser{s: data, d: d}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return Value{}, p.fail("unexpected data after the value")
	}
	return v, nil
}

// collect moves the values pushed since base from the stack into the
// arena and returns them as one slice.
func (d *Decoder) collect(base, kbase int, keys bool) ([]Value, []string) {
	start := len(d.arena)
	d.arena = append(d.arena, d.stack[base:]...)
	items := d.arena[start:len(d.arena):len(d.arena)]
	clear(d.stack[base:])
	d.stack = d.stack[:base]
	if !keys {
		return items, nil
	}
	kstart := len(d.karena)
	d.karena = append(d.karena, d.kstack[kbase:]...)
	names := d.karena[kstart:len(d.karena):len(d.karena)]
	d.kstack = d.kstack[:kbase]
	return items, names
}

func (p *jsonParser) fail(msg string) error {
	return fmt.Errorf("offset %d: %s", p.i, msg)
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.fail("nested too deeply")
	}
	if p.i >= len(p.s) {
		return Value{}, p.fail("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Str: s}, err
	case c == 't':
		return p.literal("true", Value{Kind: Bool, Str: "true"})
	case c == 'f':
		return p.literal("false", Value{Kind: Bool, Str: "false"})
	case c == 'n':
		return p.literal("null", Value{Kind: Null})
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return Value{}, p.fail(fmt.Sprintf("unexpected %q", p.s[p.i]))
}

func (p *jsonParser) literal(word string, v Value) (Value, error) {
	if !strings.HasPrefix(p.s[p.i:], word) {
		return Value{}, p.fail("invalid literal")
	}
	p.i += len(word)
	return v, nil
}

func (p *jsonParser) number() (Value, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return Value{}, p.fail("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return Value{}, p.fail("invalid number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return Value{}, p.fail("invalid number")
		}
	}
	return Value{Kind: Number, Str: p.s[start:p.i]}, nil
}

// str reads a string; the result aliases the input unless it needs
// unescaping or UTF-8 repair.
func (p *jsonParser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.s) {
		for p.i < len(p.s) && plainByte[p.s[p.i]] && p.s[p.i] < utf8.RuneSelf {
			p.i++
		}
		if p.i >= len(p.s) {
			break
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			return s, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowStr(start)
		case c < 0x20:
			return "", p.fail("control character in string")
		}
		p.i++
	}
	return "", p.fail("unterminated string")
}

var errEscape = errors.New("invalid escape")

// slowStr decodes a string with escapes or non-ASCII bytes.
func (p *jsonParser) slowStr(start int) (string, error) {
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.fail("unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail(errEscape.Error())
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(utf8.RuneError)
					if strings.HasPrefix(p.s[p.i:], `\u`) {
						save := p.i
						p.i += 2
						if lo, ok := p.hex4(); ok {
							if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
								r2 = d
							} else {
								p.i = save
							}
						} else {
							p.i = save
						}
					}
					r = r2
				}
				b.WriteRune(r)
			default:
				return "", p.fail(errEscape.Error())
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r) // RuneError for invalid bytes, as encoding/json does
			p.i += size
		}
	}
	return "", p.fail("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

func (p *jsonParser) array(depth int) (Value, error) {
	p.i++
	v := Value{Kind: Array}
	base := len(p.d.stack)
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.d.stack = append(p.d.stack, e)
		p.space()
		if p.i >= len(p.s) {
			return Value{}, p.fail("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			v.Items, _ = p.d.collect(base, 0, false)
			return v, nil
		default:
			return Value{}, p.fail("expected , or ] in array")
		}
	}
}

func (p *jsonParser) object(depth int) (Value, error) {
	p.i++
	v := Value{Kind: Object}
	base, kbase := len(p.d.stack), len(p.d.kstack)
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, p.fail("expected a member name")
		}
		k, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.fail("expected : after a member name")
		}
		p.i++
		p.space()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.d.kstack = append(p.d.kstack, k)
		p.d.stack = append(p.d.stack, e)
		p.space()
		if p.i >= len(p.s) {
			return Value{}, p.fail("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			v.Items, v.Keys = p.d.collect(base, kbase, true)
			return v, nil
		default:
			return Value{}, p.fail("expected , or } in object")
		}
	}
}

// SkipValue validates the JSON value that starts at data[i] (after any
// whitespace) without building it, and returns where it starts and ends.
// A syntax error is reported as *SyntaxError with the offset of the byte
// that is wrong.
func SkipValue(data string, i int) (start, end int, err error) {
	p := jsonParser{s: data, i: i}
	p.space()
	start = p.i
	if err := p.skip(0); err != nil {
		return start, p.i, err
	}
	return start, p.i, nil
}

// plainByte marks the bytes a JSON string holds as they are: all but the
// quote, the backslash and the control characters.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < len(t); c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// SyntaxError is a JSON syntax error at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

func (p *jsonParser) syntax(msg string) error { return &SyntaxError{Offset: p.i, Msg: msg} }

// skip walks one value, checking its syntax.
func (p *jsonParser) skip(depth int) error {
	if depth > maxDepth {
		return p.syntax("nested too deeply")
	}
	if p.i >= len(p.s) {
		return p.syntax("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == closer {
			p.i++
			return nil
		}
		for {
			p.space()
			if c == '{' {
				if p.i >= len(p.s) || p.s[p.i] != '"' {
					return p.syntax("expected a member name")
				}
				if err := p.skipStr(); err != nil {
					return err
				}
				p.space()
				if p.i >= len(p.s) || p.s[p.i] != ':' {
					return p.syntax("expected : after a member name")
				}
				p.i++
				p.space()
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			p.space()
			if p.i >= len(p.s) {
				return p.syntax("unexpected end of input")
			}
			switch p.s[p.i] {
			case ',':
				p.i++
			case closer:
				p.i++
				return nil
			default:
				if c == '{' {
					return p.syntax("expected , or } after an object member (a comma may be missing)")
				}
				return p.syntax("expected , or ] after an array element (a comma may be missing)")
			}
		}
	case c == '"':
		return p.skipStr()
	case c == 't', c == 'f', c == 'n':
		for _, w := range []string{"true", "false", "null"} {
			if strings.HasPrefix(p.s[p.i:], w) {
				p.i += len(w)
				return nil
			}
		}
		return p.syntax("invalid literal")
	case c == '-' || c >= '0' && c <= '9':
		if _, err := p.number(); err != nil {
			return p.syntax("invalid number")
		}
		return nil
	}
	return p.syntax(fmt.Sprintf("unexpected %q", p.s[p.i]))
}

func (p *jsonParser) skipStr() error {
	p.i++
	for p.i < len(p.s) {
		for p.i < len(p.s) && plainByte[p.s[p.i]] {
			p.i++ // most of a string's bytes stand for themselves
		}
		if p.i >= len(p.s) {
			break
		}
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return p.syntax("unterminated string")
			}
			switch p.s[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				p.i += 2
				if _, ok := p.hex4(); !ok {
					return p.syntax("invalid \\u escape")
				}
			default:
				return p.syntax("invalid escape")
			}
		case c < 0x20:
			return p.syntax("control character in string")
		default:
			p.i++
		}
	}
	return p.syntax("unterminated string")
}
