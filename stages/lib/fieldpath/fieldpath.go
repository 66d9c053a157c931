// Package fieldpath parses and evaluates the jq subset that record documents
// use in their fields map: `.key`, `.a.b`, `[n]`, `[-1]`, `[]`, `."odd key"`.
// No pipes, no functions. Evaluation yields scalar values as text: a missing
// or null value yields nothing, and objects and arrays are never stringified
// (an array of scalars at the end of a path yields each scalar).
package fieldpath

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stepKind is what one step of a path does.
type stepKind uint8

const (
	stepKey   stepKind = iota // .key or ."key"
	stepIndex                 // [n] or [-n]
	stepEach                  // []
)

type step struct {
	kind  stepKind
	key   string
	index int
}

// Path is a parsed field path.
type Path struct {
	src   string
	steps []step
}

// String returns the path as written.
func (p Path) String() string { return p.src }

// Keys returns the object keys a path of key steps alone walks through,
// and false for a path with an index or an iteration: such a path selects
// values, not one place in a document.
func (p Path) Keys() ([]string, bool) {
	keys := make([]string, 0, len(p.steps))
	for _, s := range p.steps {
		if s.kind != stepKey {
			return nil, false
		}
		keys = append(keys, s.key)
	}
	return keys, true
}

// Error is a parse error with the 1-based rune column where it was found.
type Error struct {
	Col int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// Parse parses a jq-subset path. The identity path "." is accepted and
// selects the whole record (useful only for scalars, so mostly rejected by
// evaluation yielding nothing).
func Parse(src string) (Path, error) {
	p := Path{src: src}
	if src == "" {
		return p, &Error{1, "empty path; write a path such as .title"}
	}
	if src[0] != '.' && src[0] != '[' {
		return p, &Error{1, fmt.Sprintf("a path starts with . or [, not %q", firstRune(src))}
	}
	i := 0
	col := func() int { return utf8.RuneCountInString(src[:i]) + 1 }
	for i < len(src) {
		switch c := src[i]; {
		case c == '.':
			i++
			if i == len(src) {
				if len(p.steps) == 0 {
					return p, nil // "." alone
				}
				return p, &Error{col(), "a path cannot end with ."}
			}
			switch {
			case src[i] == '"':
				key, n, err := quotedKey(src[i:])
				if err != nil {
					return p, &Error{col(), err.Error()}
				}
				p.steps = append(p.steps, step{kind: stepKey, key: key})
				i += n
			case src[i] == '[':
				// ".[0]" is jq for "[0]"; fall through to the bracket case.
			case isIdentStart(src[i]):
				j := i
				for j < len(src) && isIdentPart(src[j]) {
					j++
				}
				p.steps = append(p.steps, step{kind: stepKey, key: src[i:j]})
				i = j
			case src[i] == '.':
				return p, &Error{col(), "empty key between two dots; remove one dot or quote the key"}
			default:
				return p, &Error{col(), fmt.Sprintf("unexpected %q after .; quote odd keys as .\"odd key\"", firstRune(src[i:]))}
			}
		case c == '[':
			j := strings.IndexByte(src[i:], ']')
			if j < 0 {
				return p, &Error{col(), "unclosed [; write [n], [-1] or []"}
			}
			inner := strings.TrimSpace(src[i+1 : i+j])
			if inner == "" {
				p.steps = append(p.steps, step{kind: stepEach})
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil {
					return p, &Error{col(), fmt.Sprintf("%q is not an array index; write [n], [-1] or [] (slices and string keys in brackets are not supported)", inner)}
				}
				p.steps = append(p.steps, step{kind: stepIndex, index: n})
			}
			i += j + 1
		case c == '|':
			return p, &Error{col(), "pipes are not supported; a field path is one chain of .key, [n] and []"}
		case c == ' ' || c == '\t':
			return p, &Error{col(), "unexpected space; quote keys containing spaces as .\"odd key\""}
		default:
			return p, &Error{col(), fmt.Sprintf("unexpected %q; functions and operators are not supported", firstRune(src[i:]))}
		}
	}
	return p, nil
}

// quotedKey reads a JSON string at the start of s and returns its value and
// byte length.
func quotedKey(s string) (string, int, error) {
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			var key string
			if err := json.Unmarshal([]byte(s[:j+1]), &key); err != nil {
				return "", 0, fmt.Errorf("bad quoted key %s: %v", s[:j+1], err)
			}
			return key, j + 1, nil
		}
	}
	return "", 0, fmt.Errorf("unclosed quoted key; close it with \"")
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func firstRune(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return string(r)
}

// Eval applies the path to a decoded JSON value and appends each scalar
// it reaches, as text, to out.
func (p Path) Eval(v *Value, out []string) []string {
	return eval(p.steps, v, out)
}

func eval(steps []step, v *Value, out []string) []string {
	if v == nil || v.Kind == Null {
		return out
	}
	if len(steps) == 0 {
		if v.Kind == Array {
			// An array of scalars at the end of a path yields each scalar;
			// nested containers are never stringified.
			for i := range v.Items {
				if e := &v.Items[i]; isScalar(e) {
					out = append(out, e.Str)
				}
			}
		} else if isScalar(v) {
			out = append(out, v.Str)
		}
		return out
	}
	st, rest := steps[0], steps[1:]
	switch st.kind {
	case stepKey:
		if v.Kind == Object {
			if m, ok := v.Member(st.key); ok {
				return eval(rest, m, out)
			}
		}
	case stepIndex:
		if v.Kind == Array {
			i := st.index
			if i < 0 {
				i += len(v.Items)
			}
			if i >= 0 && i < len(v.Items) {
				return eval(rest, &v.Items[i], out)
			}
		}
	case stepEach:
		switch v.Kind {
		case Array:
			for i := range v.Items {
				out = eval(rest, &v.Items[i], out)
			}
		case Object:
			// jq's .[] over an object yields its values; visit them in key
			// order so the result never depends on how the record was written.
			order := make([]int, len(v.Keys))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(v.Keys[a], v.Keys[b]) })
			for _, i := range order {
				out = eval(rest, &v.Items[i], out)
			}
		}
	}
	return out
}

func isScalar(v *Value) bool { return v.Kind == String || v.Kind == Number || v.Kind == Bool }
