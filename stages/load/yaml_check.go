package load

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// yamlChecker walks a node tree against a Go type.
type yamlChecker struct {
	file   string
	shift  int // firstLine - 1: node lines are relative to data
	ds     *diag.List
	failed bool
	seen   map[checkKey]bool
}

// checkKey memoizes the walk: an anchored node used through many aliases is
// checked once per type, which keeps alias bombs linear and ends cycles.
type checkKey struct {
	node *yaml.Node
	typ  reflect.Type
}

func (c *yamlChecker) errorf(line, col int, code, format string, args ...any) {
	c.failed = true
	c.ds.Errorf(c.file, line+c.shift, col, code, format, args...)
}

var (
	yamlNodeType     = reflect.TypeFor[yaml.Node]()
	unmarshalerNames = []string{"UnmarshalYAML", "UnmarshalText"}
)

// check reports every mismatch between node n and type t; path names n for
// messages ("" is the top level).
func (c *yamlChecker) check(n *yaml.Node, t reflect.Type, path string) {
	if n == nil {
		return
	}
	if n.Kind == yaml.AliasNode {
		if n = n.Alias; n == nil {
			return
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	key := checkKey{n, t}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // null decodes to the zero value of anything
	}
	if t == yamlNodeType || t.Kind() == reflect.Interface {
		return
	}
	if customDecoded(t) {
		c.trial(n, t, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if c.want(n, yaml.MappingNode, t, path) {
			c.checkStruct(n, t, path, map[string]int{})
		}
	case reflect.Map:
		if c.want(n, yaml.MappingNode, t, path) {
			c.checkMap(n, t, path, map[string]int{})
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && n.Kind == yaml.ScalarNode {
			c.trial(n, t, path) // []byte takes a !!binary scalar
			return
		}
		if c.want(n, yaml.SequenceNode, t, path) {
			for i, item := range n.Content {
				c.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	default:
		if !c.want(n, yaml.ScalarNode, t, path) {
			return
		}
		if isInt(t) && n.Tag == "!!float" {
			// yaml truncates 1.5 into an int field; a cap or weight that
			// silently loses its fraction is worse than an error.
			if f, err := strconv.ParseFloat(n.Value, 64); err != nil || f != math.Trunc(f) {
				c.typeError(n, t, path)
				return
			}
		}
		if t.Kind() == reflect.String && n.Tag == "!!str" {
			return // the common case needs no trial decode
		}
		c.trial(n, t, path)
	}
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// customDecoded reports whether t decodes itself, so that only yaml can
// say whether a node fits it.
func customDecoded(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	for _, name := range unmarshalerNames {
		if _, ok := pt.MethodByName(name); ok {
			return true
		}
	}
	return false
}

// want reports a type error unless n is of the wanted kind.
func (c *yamlChecker) want(n *yaml.Node, kind yaml.Kind, t reflect.Type, path string) bool {
	if n.Kind == kind {
		return true
	}
	c.typeError(n, t, path)
	return false
}

// trial decodes n alone into a fresh value of t: yaml decides whether a
// scalar fits (it accepts 1 for a string but not "x" for an int).
func (c *yamlChecker) trial(n *yaml.Node, t reflect.Type, path string) {
	if err := safeDecode(n, reflect.New(t).Interface()); err != nil {
		if customDecoded(t) {
			var te *yaml.TypeError
			text := err.Error()
			if errors.As(err, &te) && len(te.Errors) > 0 {
				text = stripLine(te.Errors[0])
			}
			c.errorf(n.Line, n.Column, "yaml-type", "wrong value for %s: %s; fix the value", describePath(path), trimYAMLPrefix(text))
			return
		}
		c.typeError(n, t, path)
	}
}

func (c *yamlChecker) typeError(n *yaml.Node, t reflect.Type, path string) {
	want := expectedKind(t)
	c.errorf(n.Line, n.Column, "yaml-type", "wrong type for %s: expected %s, found %s; write %s instead", describePath(path), want, foundKind(n), want)
}

// checkStruct checks the keys of mapping n against a struct's fields.
// defined maps each key seen so far to its line, shared across merged
// mappings so that a key given twice is caught.
func (c *yamlChecker) checkStruct(n *yaml.Node, t reflect.Type, path string, defined map[string]int) {
	info := c.structOf(t)
	c.eachMember(n, t, path, defined, func(k, v *yaml.Node) {
		if ft, ok := info.fields[k.Value]; ok {
			c.check(v, ft, joinPath(path, k.Value))
		} else if info.inline != nil {
			c.check(v, info.inline, joinPath(path, k.Value))
		} else {
			where := "at the top level"
			if path != "" {
				where = "in " + path
			}
			c.errorf(k.Line, k.Column, "unknown-key", "unknown key %q %s; known keys: %s", k.Value, where, strings.Join(info.known, ", "))
		}
	})
}

// checkMap checks the keys and values of mapping n against a map type.
func (c *yamlChecker) checkMap(n *yaml.Node, t reflect.Type, path string, defined map[string]int) {
	c.eachMember(n, t, path, defined, func(k, v *yaml.Node) {
		c.check(k, t.Key(), joinPath(path, "(key "+strconv.Quote(k.Value)+")"))
		c.check(v, t.Elem(), joinPath(path, k.Value))
	})
}

// eachMember calls fn for each key and value of mapping n that is defined
// for the first time. Merge keys (<<) are not members: the mappings they
// merge are checked against t as part of n. A key defined again is
// reported and removed from n, so the decoding that follows takes the
// first value, as every check here did, instead of refusing the whole
// document and leaving later checks to report what is only missing.
func (c *yamlChecker) eachMember(n *yaml.Node, t reflect.Type, path string, defined map[string]int, fn func(k, v *yaml.Node)) {
	var repeated []int // offsets in n.Content of keys defined again
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMergeKey(k) {
			c.eachMerged(v, func(m *yaml.Node) { c.check(m, t, path) })
			continue
		}
		if c.firstDefinition(k, path, defined) {
			fn(k, v)
		} else {
			repeated = append(repeated, i)
		}
	}
	if len(repeated) == 0 {
		return
	}
	kept := make([]*yaml.Node, 0, len(n.Content)-2*len(repeated))
	for i := 0; i+1 < len(n.Content); i += 2 {
		if len(repeated) > 0 && repeated[0] == i {
			repeated = repeated[1:]
			continue
		}
		kept = append(kept, n.Content[i], n.Content[i+1])
	}
	n.Content = kept
}

// firstDefinition records key k and reports it if the mapping already has it.
func (c *yamlChecker) firstDefinition(k *yaml.Node, path string, defined map[string]int) bool {
	if k.Kind != yaml.ScalarNode {
		return true // a complex key is a type error the caller reports
	}
	if prev, dup := defined[k.Value]; dup {
		c.errorf(k.Line, k.Column, "duplicate-key", "key %q appears twice in %s (first on line %d); keep one", k.Value, describePath(path), prev+c.shift)
		return false
	}
	defined[k.Value] = k.Line
	return true
}

// isMergeKey reports whether k is YAML's "<<" merge key.
func isMergeKey(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Tag == "!!merge" }

// eachMerged calls f on each mapping a merge key brings in: a mapping, an
// alias of one, or a list of those.
func (c *yamlChecker) eachMerged(v *yaml.Node, f func(*yaml.Node)) {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v == nil {
		return
	}
	switch v.Kind {
	case yaml.MappingNode:
		f(v)
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind == yaml.AliasNode {
				item = item.Alias
			}
			if item != nil && item.Kind == yaml.MappingNode {
				f(item)
			} else if item != nil {
				c.errorf(item.Line, item.Column, "yaml-type", "a '<<' merge list may hold only mappings, found %s; merge mappings only", foundKind(item))
			}
		}
	default:
		c.errorf(v.Line, v.Column, "yaml-type", "a '<<' merge key needs a mapping or a list of mappings, found %s; merge mappings only", foundKind(v))
	}
}

// structInfo is what the walk needs to know about a struct type.
type structInfo struct {
	fields map[string]reflect.Type
	inline reflect.Type // value type of a ",inline" map field, which takes any other key
	known  []string     // sorted names of fields, for messages
}

// structOf reads the yaml tags of t the way yaml does: "-" skips a field,
// an empty name is the lower-cased field name, ",inline" merges a struct's
// fields or makes a map take every other key.
// The result is kept per type for the life of the process: every page's
// frontmatter is checked against the same struct.
func (c *yamlChecker) structOf(t reflect.Type) *structInfo {
	if info, ok := structInfos.Load(t); ok {
		return info.(*structInfo)
	}
	info := &structInfo{fields: map[string]reflect.Type{}}
	addFields(info, t)
	for name := range info.fields {
		info.known = append(info.known, name)
	}
	slices.Sort(info.known)
	actual, _ := structInfos.LoadOrStore(t, info)
	return actual.(*structInfo)
}

// structInfos caches structOf: reflect.Type → *structInfo, never changed
// once stored.
var structInfos sync.Map

func addFields(info *structInfo, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if slices.Contains(strings.Split(opts, ","), "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Struct:
				addFields(info, ft)
			case reflect.Map:
				info.inline = ft.Elem()
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		info.fields[name] = f.Type
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describePath(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// expectedKind names what a Go type takes, in YAML words.
func expectedKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value of type " + t.String()
}

// foundKind names what a node holds, quoting a scalar (shortened).
func foundKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		return strconv.Quote(v)
	}
	return "something else"
}

// yamlSpot locates nodes below a YAML node; a missing path resolves to the
// deepest node that exists, so a diagnostic always has a line when the file
// has one.
type yamlSpot struct{ n *yaml.Node }

func (s yamlSpot) pos(path ...string) (int, int) {
	n := s.n
	for _, p := range path {
		next := yamlChild(n, p)
		if next == nil {
			break
		}
		n = next
	}
	return yamlNodePos(n)
}

func (s yamlSpot) keyPos(path ...string) (int, int) {
	if len(path) == 0 {
		return s.pos()
	}
	parent := s.sub(path[:len(path)-1]...)
	if k := yamlKey(parent.n, path[len(path)-1]); k != nil {
		return yamlNodePos(k)
	}
	return s.pos(path...)
}

// sub descends to the node at path, staying at the deepest node found.
func (s yamlSpot) sub(path ...string) yamlSpot {
	for _, p := range path {
		next := yamlChild(s.n, p)
		if next == nil {
			return s
		}
		s.n = next
	}
	return s
}

func yamlNodePos(n *yaml.Node) (int, int) {
	if n == nil {
		return 0, 0
	}
	return n.Line, n.Column
}

// yamlChild returns the value of key in a mapping, or the item at an index
// in a list, following aliases.
func yamlChild(n *yaml.Node, key string) *yaml.Node {
	n = yamlUnalias(n)
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	for i := 0; i+1 < len(n.Content) && n.Kind == yaml.MappingNode; i += 2 {
		if n.Content[i].Value == key && !isMergeKey(n.Content[i]) {
			return n.Content[i+1]
		}
	}
	return nil
}

func yamlKey(n *yaml.Node, key string) *yaml.Node {
	n = yamlUnalias(n)
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func yamlUnalias(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			return nil
		}
	}
	return n
}
