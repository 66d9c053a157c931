package goldentest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages"
)

// Build builds the base at dir in place, as `cairn build` does: the
// pipeline in memory, then artifacts.Sync.
func Build(t testing.TB, dir string) {
	t.Helper()
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
}

// WriteFile writes data to the file rel (slash-separated) of the folder
// dir, making its folders.
func WriteFile(t testing.TB, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
