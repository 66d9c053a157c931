package corpus

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Bodies is what cairn read asks of a corpus besides ranking's
// questions: a record's stored bytes and its cached body. Both corpora
// answer them, from the document's span or from the loaded base.
type Bodies interface {
	Corpus
	// RawRecord is the record's JSON object exactly as its document
	// stores it, unmapped fields included.
	RawRecord(row artifacts.Doc) (string, error)
	// CachedBody is the record's verified cached body, if it has one.
	CachedBody(uri string) (artifacts.Body, string, bool, error)
}

func (c *IndexCorpus) RawRecord(row artifacts.Doc) (string, error) {
	path, _, _ := strings.Cut(row.URI, "#")
	return c.span(path, row.SpanOff, row.SpanLen)
}

// CachedBody reads the body bodies.tsv names and checks it against the
// size and SHA-256 the build verified: a body that changed since is not
// the one the build vouched for.
func (c *IndexCorpus) CachedBody(uri string) (artifacts.Body, string, bool, error) {
	b, ok := c.bodies[uri]
	if !ok {
		return b, "", false, nil
	}
	text, sized, err := ReadSized(c.fsys, b.Path, b.Bytes)
	if err != nil {
		return b, "", false, &artifacts.CorruptError{Path: artifacts.BodiesPath, Msg: fmt.Sprintf("the cached body %s cannot be read: %v", b.Path, err)}
	}
	sum := sha256.Sum256(text)
	if !sized || hex.EncodeToString(sum[:]) != b.SHA256 {
		return b, "", false, &artifacts.CorruptError{Path: artifacts.BodiesPath, Msg: fmt.Sprintf("the cached body %s changed since the build", b.Path)}
	}
	return b, string(text), true, nil
}

func (c *scanCorpus) RawRecord(row artifacts.Doc) (string, error) {
	path, _, _ := strings.Cut(row.URI, "#")
	d := c.base.Documents[c.docs[path]]
	i, ok := slices.BinarySearchFunc(d.Records, row.SpanOff, func(r model.Record, off int64) int { return cmp.Compare(r.Offset, off) })
	if !ok {
		return "", fmt.Errorf("no record of %s at offset %d", path, row.SpanOff)
	}
	return d.Records[i].Raw, nil
}

// CachedBody is the body the load verified (the scan never sees one that
// disagrees with the manifest).
func (c *scanCorpus) CachedBody(uri string) (artifacts.Body, string, bool, error) {
	for _, b := range c.base.Bodies {
		if b.URI == uri {
			return artifacts.Body{URI: b.URI, Path: b.Path, Bytes: b.Bytes, SHA256: b.SHA256}, b.Text, true, nil
		}
	}
	return artifacts.Body{}, "", false, nil
}

// ReadSized reads path when it is a regular file of exactly size bytes,
// the size the build verified; otherwise it reports false, and a file of
// another size (a body replaced by a huge one) is not read at all.
func ReadSized(fsys fs.FS, path string, size int64) ([]byte, bool, error) {
	st, err := fs.Stat(fsys, path)
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() || st.Size() != size {
		return nil, false, nil
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil {
		return nil, false, err
	}
	return data, int64(len(data)) == size, nil
}
