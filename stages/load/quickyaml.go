package load

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/model"
)

// quickFrontmatter decodes the frontmatter most pages have without the
// YAML library, which costs a query re-reading pages more than the rest of
// their projection: the known keys at the left margin, each once, with
// one-line scalars (double-quoted or single-quoted without escapes, or
// plain), flow lists of such scalars, block lists of them, and the
// relations mapping of such lists. Anything else (comments after a
// value, anchors, tags, multi-line or null scalars, flow mappings, keys
// cairn does not interpret, which YAML would type) gives ok false, and
// the YAML library decodes the frontmatter. Where it accepts, the result
// is the library's, diagnostics included (there are none); a differential
// test holds the two together.
func quickFrontmatter(yml []byte) (fm frontmatter, pos quickPositions, ok bool) {
	text := string(yml)
	for _, r := range text {
		if r != '\n' && !unicode.IsPrint(r) || r == utf8.RuneError {
			return fm, pos, false // tabs, CR, controls, invalid UTF-8
		}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	f := &fm.Frontmatter
	for i := 0; i < len(lines); {
		l := lines[i]
		if skippable(l) {
			i++
			continue
		}
		key, value, ok := marginKey(l)
		if !ok || pos.has(key) {
			return fm, pos, false
		}
		pos.top = append(pos.top, quickKey{key, i + 1, 1})
		switch dst := quickField(f, key).(type) {
		case *string:
			s, ok := blockScalar(value)
			if !ok {
				return fm, pos, false
			}
			*dst = s
			i++
		case *[]string:
			var list []string
			if value == "" {
				list, i, ok = blockList(lines, i+1, 0)
			} else {
				list, ok = flowList(value)
				i++
			}
			if !ok {
				return fm, pos, false
			}
			*dst = list
		case *map[string][]string:
			if value != "" {
				return fm, pos, false
			}
			f.Relations, pos.relations, i, ok = relationsBlock(lines, i+1)
			if !ok {
				return fm, pos, false
			}
		default:
			return fm, pos, false // a key cairn does not interpret
		}
	}
	return fm, pos, true
}

// yamlWords are names YAML may read as null or a boolean rather than as
// text; a relation so named is left to the library.
var yamlWords = map[string]bool{"null": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "y": true, "n": true}

// quickField is the frontmatter field a key fills, or nil.
func quickField(f *model.Frontmatter, key string) any {
	switch key {
	case "title":
		return &f.Title
	case "description":
		return &f.Description
	case "type":
		return &f.Type
	case "status":
		return &f.Status
	case "tags":
		return &f.Tags
	case "aliases":
		return &f.Aliases
	case "relations":
		return &f.Relations
	case "date":
		return &f.Date
	case "valid_from":
		return &f.ValidFrom
	case "valid_until":
		return &f.ValidUntil
	case "next_action":
		return &f.NextAction
	case "blocker":
		return &f.Blocker
	case "reviewed":
		return &f.Reviewed
	case "due":
		return &f.Due
	case "category":
		return &f.Category
	case "visibility":
		return &f.Visibility
	case "point":
		return &f.Point
	case "supersedes":
		return &f.Supersedes
	case "superseded_by":
		return &f.SupersededBy
	}
	return nil
}

// quickPositions are the lines and columns of the keys read, relative to
// the YAML, as the library's nodes would give them.
type quickPositions struct {
	top       []quickKey
	relations []quickKey // the keys inside relations
}

type quickKey struct {
	name      string
	line, col int
}

func (p *quickPositions) has(key string) bool {
	for _, k := range p.top {
		if k.name == key {
			return true
		}
	}
	return false
}

// at is keyLine for the keys read: the position of the deepest key found
// along the path, or 1:1 when the first is missing.
func (p *quickPositions) at(keys ...string) (int, int) {
	line, col := 1, 1
	level := p.top
	for i, k := range keys {
		found := false
		for _, q := range level {
			if q.name == k {
				line, col, found = q.line, q.col, true
				break
			}
		}
		if !found || i > 0 || k != "relations" {
			break // only relations holds a mapping
		}
		level = p.relations
	}
	return line, col
}

// skippable reports a blank line or a whole-line comment.
func skippable(l string) bool {
	t := strings.TrimLeft(l, " ")
	return t == "" || t[0] == '#'
}

// marginKey splits "key: value" at the left margin; the key is lowercase
// letters and underscores, and the value comes trimmed.
func marginKey(l string) (key, value string, ok bool) {
	key, rest, found := strings.Cut(l, ":")
	if !found || key == "" || strings.TrimLeft(key, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return "", "", false
	}
	if rest != "" && rest[0] != ' ' {
		return "", "", false
	}
	return key, strings.Trim(rest, " "), true
}

// indentOf counts a line's leading spaces.
func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// blockList reads the "- item" lines from lines[i] on, all at one indent
// of at least min, and returns the items and the index of the line after
// them. A null value (no list), a nested collection or a continuation
// line is not quick.
func blockList(lines []string, i, min int) ([]string, int, bool) {
	var items []string
	indent := -1
	for ; i < len(lines); i++ {
		l := lines[i]
		if skippable(l) {
			continue
		}
		n := indentOf(l)
		item := strings.HasPrefix(l[n:], "- ")
		if indent < 0 {
			if n < min || !item {
				return nil, i, false
			}
			indent = n
		}
		if n < indent || n == indent && !item {
			break // the list ended; the caller reads this line
		}
		if n > indent {
			return nil, i, false
		}
		s, ok := blockScalar(strings.Trim(l[n+2:], " "))
		if !ok {
			return nil, i, false
		}
		items = append(items, s)
	}
	return items, i, len(items) > 0
}

// relationsBlock reads the relations mapping from lines[i] on: names at one
// indent, each with a flow list or a block list.
func relationsBlock(lines []string, i int) (map[string][]string, []quickKey, int, bool) {
	rel := map[string][]string{}
	var keys []quickKey
	indent := -1
	for i < len(lines) {
		l := lines[i]
		if skippable(l) {
			i++
			continue
		}
		n := indentOf(l)
		if n == 0 {
			break
		}
		if indent < 0 {
			indent = n
		}
		if n != indent {
			return nil, nil, i, false
		}
		name, value, found := strings.Cut(l[n:], ":")
		if !found || !IsFieldName(name) || yamlWords[name] || value != "" && value[0] != ' ' {
			return nil, nil, i, false
		}
		if _, dup := rel[name]; dup {
			return nil, nil, i, false
		}
		keys = append(keys, quickKey{name, i + 1, n + 1})
		var list []string
		ok := false
		if value = strings.Trim(value, " "); value == "" {
			list, i, ok = blockList(lines, i+1, n)
		} else {
			list, ok = flowList(value)
			i++
		}
		if !ok {
			return nil, nil, i, false
		}
		rel[name] = list
	}
	return rel, keys, i, len(keys) > 0
}

// blockScalar is a one-line scalar outside a flow list.
func blockScalar(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	switch v[0] {
	case '"', '\'':
		s, rest, ok := quoted(v)
		return s, ok && rest == ""
	}
	return plain(v, false)
}

// quoted reads a quoted scalar at the start of v, without escapes, and
// returns it with what follows it, spaces trimmed.
func quoted(v string) (string, string, bool) {
	q := v[0]
	end := strings.IndexByte(v[1:], q)
	if end < 0 {
		return "", "", false
	}
	s := v[1 : 1+end]
	if q == '"' && strings.Contains(s, `\`) {
		return "", "", false
	}
	return s, strings.TrimLeft(v[2+end:], " "), true
}

// plain accepts a plain scalar that YAML reads as the same text, as
// cairn's string fields take it: nothing that starts an indicator, no
// ": " or " #", not a null; in a flow list, no flow indicators either.
func plain(v string, flow bool) (string, bool) {
	if v == "" || strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(v[0])) {
		return "", false
	}
	if strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return "", false
	}
	if flow && strings.ContainsAny(v, ",[]{}") {
		return "", false
	}
	switch v {
	case "~", "null", "Null", "NULL":
		return "", false
	}
	return v, true
}

// flowList reads "[a, "b", 'c']" on one line; [] is an empty list.
func flowList(v string) ([]string, bool) {
	if len(v) < 2 || v[0] != '[' {
		return nil, false
	}
	rest := strings.TrimLeft(v[1:], " ")
	items := []string{}
	if rest == "]" {
		return items, true
	}
	for {
		var s string
		var ok bool
		if rest == "" {
			return nil, false
		}
		switch rest[0] {
		case '"', '\'':
			s, rest, ok = quoted(rest)
		default:
			end := strings.IndexAny(rest, ",]")
			if end < 0 {
				return nil, false
			}
			s, ok = plain(strings.TrimRight(rest[:end], " "), true)
			rest = rest[end:]
		}
		if !ok || rest == "" {
			return nil, false
		}
		items = append(items, s)
		switch {
		case rest == "]":
			return items, true
		case rest[0] == ',':
			rest = strings.TrimLeft(rest[1:], " ")
		default:
			return nil, false
		}
	}
}
