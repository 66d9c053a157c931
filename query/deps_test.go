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

// queryForbidden are the packages of the build that query must not import,
// and why. Everything else under stages is pure code over values (load,
// model, lex, project, index, graph, govern, ...), which query reuses so
// that a scan computes exactly what a build would have written.
var queryForbidden = map[string]string{
	"stages":         "stages.Build runs the whole pipeline, takes the build lock and writes .cairn/; a query only reads",
	"stages/emit":    "emit writes the artifacts to disk; a query reads them through package artifacts and writes nothing",
	"stages/builder": "builder takes the build lock and writes .cairn/ and the rules files; a query only reads",
	"stages/rules":   "the rules files and rules table are the build's output; a query reads them through package artifacts",
	"stages/usage":   "term usage is counted once by the build and stored in usage.tsv; a query never recounts it",
}

// queryLayers ranks the packages of the read side, from the bottom up. A
// package of query may import only query packages of a lower rank, so
// that lower layers never depend on upper ones; the answer packages share
// one rank, so that none of them imports another. A new package of query
// must be given its rank here.
var queryLayers = map[string]int{
	// Leaves: the artifacts' reader, the question's words and days, and
	// the receipt snapshots of delta packs.
	"query/tables":             0,
	"query/question":           0,
	"query/internal/querytest": 0, // test support: the bases tests query (only tests import it)
	"query/receipts":           0,
	"query/corpus":             1, // the corpus (index or scan) and the freshness verdict
	"query/words":              2, // the candidate window and the query terms' statistics
	"query/rank":               3, // the ranking shared by packs and search
	"query/render":             4, // what every answer renders alike
	"query/provenance":         5, // what stands behind a governance answer
	// The answer kinds: one rank, so that none imports another.
	"query/at":     6,
	"query/search": 6,
	"query/list":   6,
	"query/read":   6,
	"query/pack":   6,
	"query":        8, // the facade, and the session that serves every answer kind
	"query/eval":   9, // the ranking's evaluation, through the facade
}

// TestDependencyDirection enforces cmd → stages → artifacts and
// cmd → query → query/tables → artifacts: artifacts imports nothing of
// ours, stages never import query or cmd, query never imports the parts of
// the build in queryForbidden, query/tables imports only artifacts,
// query/question only the tokeniser, stages/lib/markdown nothing of ours, only
// the CLI runs a build in place (stages/builder), the packages of query
// import each other only downwards by the ranks of queryLayers (so no
// answer package imports another), no package imports the test bases of
// query/internal/querytest, and nothing imports a command but the CLI its
// own internal engines.
func TestDependencyDirection(t *testing.T) {
	all := imports(t, "..")
	if len(all) < 8 {
		t.Fatalf("found only %d packages; is the module root ..?", len(all))
	}
	forbidden := func(pkg, imp string) string {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
		switch {
		case target == "query/internal/querytest":
			return "querytest builds bases, which only a test may do; no package imports it outside its tests"
		case rel == "artifacts" || strings.HasPrefix(rel, "artifacts/"):
			return "artifacts is the contract and imports nothing of ours"
		case (rel == "stages" || strings.HasPrefix(rel, "stages/")) && (isUnder(target, "query") || isUnder(target, "cmd")):
			return "the build never depends on the read side or the CLI"
		case target == "stages/builder" && !isUnder(rel, "cmd"):
			return "a build in place (the lock, Sync, the caches) is the CLI's to run; the pipeline itself is stages.Build"
		case rel == "stages/lib/markdown":
			return "the Markdown reader is a leaf: it knows goldmark and nothing of ours"
		case isUnder(rel, "stages/lib") && !isUnder(target, "stages/lib") && target != "artifacts":
			return "a library the build and the read side share (stages/lib) knows only other libraries and the artifacts' contract, never a stage"
		case rel == "query/question" && target != "stages/lib/lex":
			return "the question is words and days: it knows the tokeniser it must agree with, and nothing of the artifacts, the build or the answers"
		case rel == "query/tables" && target != "artifacts":
			return "the tables reader reads the artifacts through their contract alone: it knows no query, stage or command"
		case isUnder(rel, "query"):
			if isUnder(target, "query") {
				from, okFrom := queryLayers[rel]
				to, okTo := queryLayers[target]
				switch {
				case !okFrom || !okTo:
					return "every package of query has a rank in queryLayers"
				case from == to:
					return "packages of one layer (the answer kinds among them) never import each other"
				case from < to:
					return "a lower layer of the read side never depends on an upper one"
				}
			}
			if why, ok := queryForbidden[target]; ok {
				return why
			}
			if isUnder(target, "cmd") {
				return "query never depends on the CLI"
			}
		case isUnder(target, "cmd/cairn/internal") && isUnder(rel, "cmd/cairn"):
			// The engines of cairn's commands (collect, check, import
			// kapi, note) are cairn's own, below its CLI.
		case isUnder(target, "cmd"):
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

// isUnder reports whether the module-relative package path rel is dir or
// a package inside it.
func isUnder(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }
