package query

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/cairn-kb/cairn"

// imports lists the module-internal imports of the non-test Go files in
// every package under root, by package path.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module) {
				out[pkg] = append(out[pkg], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDependencyDirection enforces cmd → stages → artifacts and
// cmd → query → artifacts: artifacts imports nothing of ours, stages never
// import query or cmd, and query may reuse the pure loading and projection
// code but never the build pipeline.
func TestDependencyDirection(t *testing.T) {
	all := imports(t, "..")
	if len(all) < 8 {
		t.Fatalf("found only %d packages; is the module root ..?", len(all))
	}
	forbidden := func(pkg, imp string) string {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
		switch {
		case rel == "artifacts" || strings.HasPrefix(rel, "artifacts/"):
			return "artifacts is the contract and imports nothing of ours"
		case strings.HasPrefix(rel, "stages") && (strings.HasPrefix(target, "query") || strings.HasPrefix(target, "cmd")):
			return "the build never depends on the read side or the CLI"
		case strings.HasPrefix(rel, "query"):
			for _, pipeline := range []string{"stages", "stages/index", "stages/graph", "stages/usage", "stages/rules", "stages/emit"} {
				if target == pipeline {
					return "query may reuse loading and projection, never the build pipeline"
				}
			}
			if strings.HasPrefix(target, "cmd") {
				return "query never depends on the CLI"
			}
		case strings.HasPrefix(target, "cmd"):
			return "nothing imports a command"
		}
		return ""
	}
	checked := 0
	for pkg, imps := range all {
		for _, imp := range imps {
			checked++
			if why := forbidden(pkg, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no internal imports found")
	}
}
