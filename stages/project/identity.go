package project

import (
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/model"
)

// Identities resolves any known URI, email or login to every name of the
// entity it belongs to.
type Identities struct {
	names map[string][]string // any name → all names of its identity, canonical first
}

// NewIdentities indexes the identities of a configuration.
func NewIdentities(cfg model.Config) Identities {
	ids := Identities{names: map[string][]string{}}
	for _, name := range slices.Sorted(maps.Keys(cfg.Identities)) {
		id := cfg.Identities[name]
		all := append([]string{id.Canonical}, id.Aliases...)
		for _, n := range all {
			ids.names[n] = all
		}
	}
	return ids
}

// ExactForms lists the exact identifiers a relation value gives its item:
// the value itself, for an entity URI the suffix after its last slash, and
// the same for every alias of the identity the value names.
func (ids Identities) ExactForms(value string) []string {
	names := ids.names[value]
	if names == nil {
		names = []string{value}
	}
	var out []string
	for _, n := range names {
		out = append(out, n)
		if id := EntityIdentity(n); id != "" {
			out = append(out, id)
		}
		if s := EntitySuffix(n); s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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
