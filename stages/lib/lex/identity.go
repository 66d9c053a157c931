package lex

import (
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Identities resolves any known URI, email or login to every name of the
// entity it belongs to.
type Identities struct {
	names map[string][]string // any name → all names of its identity, canonical first
	all   [][]string          // every identity's names, in identity-name order
	// exact maps an exact form of any name to the identity it belongs to
	// (its index in all, plus one), or to -1 for a form several share,
	// whose identities shared holds.
	exact  map[string]int
	shared map[string][]int
}

// NewIdentities indexes the identities of a configuration.
func NewIdentities(cfg model.Config) Identities {
	n := 0
	for _, id := range cfg.Identities {
		n += 1 + len(id.Aliases)
	}
	ids := Identities{names: make(map[string][]string, n), exact: make(map[string]int, 3*n)}
	for i, name := range slices.Sorted(maps.Keys(cfg.Identities)) {
		id := cfg.Identities[name]
		all := append([]string{id.Canonical}, id.Aliases...)
		for _, n := range all {
			ids.names[n] = all
		}
		ids.all = append(ids.all, all)
		for _, n := range all {
			nameForms(n, func(f string) { ids.addExact(Exact(f), i) })
		}
	}
	return ids
}

// addExact records that the exact form k belongs to identity i.
func (ids *Identities) addExact(k string, i int) {
	switch at, ok := ids.exact[k]; {
	case !ok:
		ids.exact[k] = i + 1
	case at == i+1:
	case at > 0:
		ids.exact[k] = -1
		if ids.shared == nil {
			ids.shared = map[string][]int{}
		}
		ids.shared[k] = []int{at - 1, i}
	case !slices.Contains(ids.shared[k], i):
		ids.shared[k] = append(ids.shared[k], i)
	}
}

// ExactForms lists the exact identifiers of every name of the identity a
// value belongs to (or of the value alone): each name, and for an entity
// URI its identity and the suffix after its last slash.
func (ids Identities) ExactForms(value string) []string {
	names := ids.names[value]
	if names == nil {
		names = []string{value}
	}
	return formsOf(names)
}

// ValueForms lists the exact identifiers of one relation value alone, as
// the index holds them: the value, and for an entity URI its identity and
// suffix. A query reaches the other names of an identity itself (Names).
func ValueForms(value string) []string { return formsOf([]string{value}) }

// Names returns every name (canonical URI and aliases) of every identity
// that term is an exact form of, sorted; nil when there is none.
func (ids Identities) Names(term string) []string {
	var out []string
	switch at := ids.exact[term]; {
	case at > 0:
		out = slices.Clone(ids.all[at-1])
	case at < 0:
		for _, i := range ids.shared[term] {
			out = append(out, ids.all[i]...)
		}
	default:
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func formsOf(names []string) []string {
	var out []string
	for _, n := range names {
		nameForms(n, func(f string) { out = append(out, f) })
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nameForms calls form with each exact identifier of one name: the name,
// and for an entity URI its identity and the suffix after its last slash.
func nameForms(n string, form func(string)) {
	form(n)
	if id := EntityIdentity(n); id != "" {
		form(id)
	}
	if s := EntitySuffix(n); s != "" {
		form(s)
	}
}

// EntityIdentity returns the identity of an entity URI, the part after its
// scheme (HAR-142 for ticket:HAR-142, email/marc@x.test for
// person:email/marc@x.test), or "" for a URL or a value without a scheme.
func EntityIdentity(v string) string {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || scheme == "" || rest == "" || scheme == "http" || scheme == "https" || strings.HasPrefix(rest, "//") {
		return ""
	}
	for _, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return ""
		}
	}
	return rest
}

// EntitySuffix returns the part of an entity URI after its last slash
// (marc@x.test for person:email/marc@x.test), or "" when the value is not
// an entity URI with a path. URLs have no suffix identity: their last
// segment is rarely a name.
func EntitySuffix(v string) string {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || scheme == "" || scheme == "http" || scheme == "https" || strings.HasPrefix(rest, "//") {
		return ""
	}
	i := strings.LastIndexByte(rest, '/')
	if i < 0 || i == len(rest)-1 {
		return ""
	}
	return rest[i+1:]
}
