package corpus

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// plainFS hands out files that cannot be read at an offset.
type plainFS struct{ fs fstest.MapFS }

type plainFile struct{ f fs.File }

func (p plainFS) Open(name string) (fs.File, error) {
	f, err := p.fs.Open(name)
	if err != nil {
		return nil, err
	}
	return plainFile{f}, nil
}
func (f plainFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f plainFile) Read(b []byte) (int, error) { return f.f.Read(b) }
func (f plainFile) Close() error               { return f.f.Close() }

// TestSpanWithoutReadAt checks that records are read right from a file
// system whose files cannot be read at an offset, the second one of a
// document as well as the first.
func TestSpanWithoutReadAt(t *testing.T) {
	c := &IndexCorpus{fsys: plainFS{fstest.MapFS{"events/d.json": {Data: []byte(`[{"id":"a"},{"id":"b"}]`)}}}}
	defer func() {
		for _, f := range c.open {
			f.Close()
		}
	}()
	for _, want := range []struct {
		off, n int64
		text   string
	}{{1, 10, `{"id":"a"}`}, {12, 10, `{"id":"b"}`}} {
		got, err := c.span("events/d.json", want.off, want.n)
		if err != nil || got != want.text {
			t.Errorf("span(%d, %d) = %q, %v; want %q", want.off, want.n, got, err, want.text)
		}
	}
}
