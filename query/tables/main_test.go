package tables

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/golden/testhome"
)

// TestMain runs the tests in a home of their own (testhome), as the
// query's tests do: a build writes the base's stat cache.
func TestMain(m *testing.M) { os.Exit(testhome.Run(m)) }

// builtDemo copies the demo base into a temporary folder and builds it.
func builtDemo(t testing.TB) string {
	t.Helper()
	return builtGolden(t, "demo")
}

// builtGolden copies the base of a golden case and builds it the way
// `cairn build` does.
func builtGolden(t testing.TB, name string) string {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("../../golden", name, "base"))); err != nil {
		t.Fatal(err)
	}
	goldentest.Build(t, dir)
	return dir
}
