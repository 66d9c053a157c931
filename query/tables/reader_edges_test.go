package tables

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden/goldentest"
)

// TestIncomingCorruptLink: a link of edges.dst.tsv that lost its "=" is
// corrupt whether the line is read whole or only up to a limit.
func TestIncomingCorruptLink(t *testing.T) {
	dir := builtDemo(t)
	d := readArtifact(t, dir, artifacts.EdgesDstPath)
	start := bytes.IndexByte(d, '\n') + 1
	line := d[start : start+bytes.IndexByte(d[start:], '\n')]
	node, _, _ := bytes.Cut(line, []byte{'\t'})
	i := start + bytes.IndexByte(line, '=')
	d[i] = '-'
	goldentest.WriteFile(t, dir, artifacts.EdgesDstPath, d)
	r := mustOpen(t, dir)
	for _, limit := range []int{0, 1, 100} {
		var ce *artifacts.CorruptError
		if _, _, err := r.Incoming(string(node), limit); !errors.As(err, &ce) {
			t.Errorf("limit %d: %v, want a *artifacts.CorruptError", limit, err)
		}
	}
}
