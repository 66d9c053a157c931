//go:build unix

package query

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
)

// TestLinkedArtifactIsNotRead: an artifact replaced by a link is never
// opened through it, even by the reads that start before Open has checked
// the manifest. The link leads to a named pipe, which an open that follows
// it would wait on for ever.
func TestLinkedArtifactIsNotRead(t *testing.T) {
	query := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	want := uris(answer(t, querytest.BuiltDemo(t), query...))
	for _, name := range []string{artifacts.DocumentsPath, artifacts.BodiesPath, artifacts.DocsPath} {
		t.Run(name, func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			pipe := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(pipe, 0o600); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			at := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.Remove(at); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(pipe, at); err != nil {
				t.Skipf("no symlinks here: %v", err)
			}
			done := make(chan Pack, 1)
			go func() { done <- answer(t, dir, query...) }()
			select {
			case p := <-done:
				if p.Receipt.Index.State == string(corpus.StateUsed) {
					t.Errorf("receipt.index = %+v, want the scan", p.Receipt.Index)
				}
				if got := uris(p); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("answer from the scan:\n%v\nwant:\n%v", got, want)
				}
			case <-time.After(time.Minute):
				t.Fatalf("the query is still waiting on the pipe %s links to", name)
			}
		})
	}
}
