package govern

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// dayLayout is how days and windows are written (valid_from, valid_until).
const dayLayout = time.DateOnly

// Day renders an instant as the day governance windows are compared with.
func Day(t time.Time) string { return t.UTC().Format(dayLayout) }

// inWindow reports whether day lies in from..until, both inclusive; an
// empty side is unbounded. Days compare as strings since they are
// zero-padded YYYY-MM-DD.
func inWindow(from, until, day string) bool {
	return (from == "" || from <= day) && (until == "" || day <= until)
}

// Scope is where a rule, a note or a suggestion holds: content paths
// matching any of Paths (none: everywhere), at a point whose axes satisfy
// every one of Axes.
type Scope struct {
	Paths []string
	Axes  map[string]string
}

// Everywhere reports whether the scope holds at every place.
func (s Scope) Everywhere() bool { return len(s.Paths) == 0 && len(s.Axes) == 0 }

// Text describes the scope for a reader: "docs/api/**" or "market emea",
// joined with "; " when both are set.
func (s Scope) Text() string {
	var parts []string
	if len(s.Paths) > 0 {
		parts = append(parts, strings.Join(s.Paths, ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Axes)) {
		parts = append(parts, name+" "+s.Axes[name])
	}
	return strings.Join(parts, "; ")
}

// axes answers containment questions over the declared typed axes.
type axes struct {
	// within maps axis → value → every value it contains, itself included.
	within map[string]map[string]map[string]bool
}

// newAxes computes each axis's containment closure. Cycles are refused by
// load; a cycle here would only make two values contain each other.
func newAxes(declared map[string]model.Axis) axes {
	a := axes{within: map[string]map[string]map[string]bool{}}
	for name, axis := range declared {
		closure := map[string]map[string]bool{}
		var reach func(root, v string)
		reach = func(root, v string) {
			if closure[root][v] {
				return
			}
			closure[root][v] = true
			for _, w := range axis.Contains[v] {
				reach(root, w)
			}
		}
		for v := range axis.Contains {
			closure[v] = map[string]bool{}
			reach(v, v)
		}
		a.within[name] = closure
	}
	return a
}

// contains reports whether value outer of axis contains inner (or is it).
func (a axes) contains(axis, outer, inner string) bool {
	return outer == inner || a.within[axis][outer][inner]
}

// satisfied reports whether a point with axes at satisfies every binding
// of want: the point has the axis, with the wanted value or one it
// contains. A point without the axis does not satisfy it.
func (a axes) satisfied(want, at map[string]string) bool {
	for name, value := range want {
		got, ok := at[name]
		if !ok || !a.contains(name, value, got) {
			return false
		}
	}
	return true
}

// pathsMatch reports whether path matches any glob. No globs match every
// path; the empty path (the default point itself, no file) matches none,
// so a rule scoped to paths never holds at the project's default point.
func pathsMatch(globs []string, path string) bool {
	if len(globs) == 0 {
		return true
	}
	if path == "" {
		return false
	}
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, path); ok {
			return true
		}
	}
	return false
}

// holds reports whether scope s holds at path, at a point with axes at.
func (a axes) holds(s Scope, path string, at map[string]string) bool {
	return pathsMatch(s.Paths, path) && a.satisfied(s.Axes, at)
}

// literalPrefix is the length of a glob's leading run without wildcards:
// the longer it is, the narrower the glob, which is how the most specific
// point is chosen.
func literalPrefix(glob string) int {
	if i := strings.IndexAny(glob, `*?[{\`); i >= 0 {
		return i
	}
	return len(glob)
}
