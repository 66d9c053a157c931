package tables

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden/testhome"
	"github.com/cairn-kb/cairn/stages"
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
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	out, err := stages.Build(context.Background(), stages.Input{FS: root.FS(), ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out.Plan.Root = dir
	if _, err := artifacts.Sync(out.Plan); err != nil {
		t.Fatal(err)
	}
	return dir
}
