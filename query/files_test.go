package query

import (
	"os"
	"path/filepath"
	"testing"
)

// writeArtifact writes data to the file rel of the folder dir, making
// its folders.
func writeArtifact(t *testing.T, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
