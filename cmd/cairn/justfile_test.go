package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fuzzLine is one line of the justfile's fuzz recipe.
var fuzzLine = regexp.MustCompile(`^    go test \./(\S+) -run '\^\$' -fuzz '\^(Fuzz\w+)\$' -fuzztime \{\{FUZZTIME\}\}$`)

// fuzzFunc is a fuzz target's declaration.
var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)

// TestJustFuzzRunsEveryTarget: the justfile's fuzz recipe runs each fuzz
// target of the repository once, in the package that declares it, and
// nothing else: a line naming a target that is not there fuzzes nothing
// and says nothing, and a target without a line is never fuzzed.
func TestJustFuzzRunsEveryTarget(t *testing.T) {
	data, err := os.ReadFile("../../justfile")
	if err != nil {
		t.Fatal(err)
	}
	_, recipe, ok := strings.Cut(string(data), "\nfuzz FUZZTIME=\"30s\":\n")
	if !ok {
		t.Fatal("the justfile has no fuzz recipe")
	}
	var listed []string
	for line := range strings.Lines(recipe) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(line, "    ") {
			break
		}
		m := fuzzLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("fuzz recipe line %q is not `go test ./PKG -run '^$' -fuzz '^FuzzX$' -fuzztime {{FUZZTIME}}`", line)
			continue
		}
		listed = append(listed, m[1]+" "+m[2])
	}

	var declared []string
	err = filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bench-out" || d.Name() == "golden") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel("../..", filepath.Dir(p))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			declared = append(declared, filepath.ToSlash(pkg)+" "+m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(declared)
	if len(declared) == 0 {
		t.Fatal("no fuzz target found: the walk is wrong")
	}
	for _, d := range declared {
		if !slices.Contains(listed, d) {
			t.Errorf("fuzz target %s has no line in the justfile's fuzz recipe", d)
		}
	}
	for i, l := range listed {
		if !slices.Contains(declared, l) {
			t.Errorf("the fuzz recipe runs %s, which no test file of that package declares", l)
		}
		if i > 0 && listed[i-1] == l {
			t.Errorf("the fuzz recipe runs %s twice", l)
		}
	}
}
