package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// bodyEntry is one manifest entry: a cached body of one record.
type bodyEntry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// loadBodies reads bodies/manifest.json and each body it names. A body
// whose size or sha256 disagrees with the manifest is left out with a
// warning: an unverified body must never reach ranking. Nothing is fetched.
//
// walked maps each body file the walk listed to its size. Only those are
// read, since only they count in the corpus key: a body in a hidden folder
// or behind a symlinked one is left out with a warning.
func loadBodies(fsys fs.FS, cfg model.Config, manifest string, walked map[string]int64, ds *diag.List) []model.Body {
	// The manifest grows with the records that have bodies, so it is
	// capped like a record document, not like a governance file.
	data, ok := readFile(fsys, manifest, MaxDocumentBytes, ds)
	if !ok {
		return nil
	}
	var entries map[string]bodyEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		line, col := 1, 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col = diag.LineCol(data, se.Offset-1)
		}
		ds.Errorf(manifest, line, col, "bad-bodies-manifest", "invalid bodies manifest: %v; it maps record URI to {\"path\", \"sha256\", \"bytes\"}", err)
		return nil
	}
	uris := make([]string, 0, len(entries))
	for u := range entries {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	at := keyOffsets(data)
	lines := diag.NewLines(string(data))
	var out []model.Body
	for _, uri := range uris {
		e := entries[uri]
		line, col := lines.Pos(at[uri])
		warn := func(format string, args ...any) { ds.Warnf(manifest, line, col, "body-unverified", format, args...) }
		if e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.Contains(e.Path, "\\") || path.Clean(e.Path) != e.Path || strings.HasPrefix(e.Path, "..") {
			ds.Errorf(manifest, line, col, "path-escape", "body path %q of %s must be a plain path inside the %s folder", e.Path, uri, cfg.Layers.Bodies)
			continue
		}
		p := cfg.Layers.Bodies + "/" + e.Path
		size, listed := walked[p]
		if !listed {
			if _, err := fs.Stat(fsys, p); err != nil {
				warn("body of %s is ignored: cannot read %s (%v); cairn never fetches a missing body", uri, p, unwrapPath(err))
			} else {
				warn("body of %s is ignored: %s is in a hidden or symlinked folder, which cairn does not read; move it into %s", uri, p, cfg.Layers.Bodies)
			}
			continue
		}
		if size > MaxBodyBytes {
			warn("body of %s is ignored: %s is over the %d-byte cap", uri, p, MaxBodyBytes)
			continue
		}
		text, err := ReadCapped(fsys, p, MaxBodyBytes)
		switch {
		case err != nil:
			warn("body of %s is ignored: cannot read %s (%v); cairn never fetches a missing body", uri, p, unwrapPath(err))
			continue
		case int64(len(text)) != e.Bytes:
			warn("body of %s is ignored: %s has %d bytes, the manifest says %d; re-record the body or fix the manifest", uri, p, len(text), e.Bytes)
			continue
		}
		sum := sha256.Sum256(text)
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, e.SHA256) {
			warn("body of %s is ignored: %s has sha256 %s, the manifest says %s; re-record the body or fix the manifest", uri, p, got, e.SHA256)
			continue
		}
		if !utf8.Valid(text) {
			warn("body of %s is ignored: %s is not UTF-8 text", uri, p)
			continue
		}
		out = append(out, model.Body{URI: uri, Path: p, SHA256: strings.ToLower(e.SHA256), Bytes: e.Bytes, Text: string(text)})
	}
	return out
}

// keyOffsets maps each key of the JSON object data, already decoded
// without error, to the offset of its first occurrence, in one pass: a
// search from the top for each key would read the manifest once per body.
func keyOffsets(data []byte) map[string]int {
	at := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the opening brace
		return at
	}
	for dec.More() {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return at
		}
		key, _ := tok.(string)
		if i := bytes.IndexByte(data[off:], '"'); i >= 0 {
			off += i
		}
		if _, seen := at[key]; !seen {
			at[key] = off
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return at
		}
	}
	return at
}
