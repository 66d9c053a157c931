package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ManifestKind is the marker key of manifest.json.
const ManifestKind = "cairn-manifest"

// Manifest is manifest.json: what a build read, what it wrote, and the keys
// that decide whether a stage must run again.
//
// The input list comes last: it is most of the file, and a reader that
// trusts the stage keys stops reading where it starts (ReadPreviousHead).
type Manifest struct {
	Format          int          `json:"format"`
	RankingVersion  int          `json:"ranking_version"`
	ToolVersion     string       `json:"tool_version"`
	SemanticsDigest string       `json:"semantics_digest"`
	Outputs         []FileStamp  `json:"outputs"`
	Stages          []StageStamp `json:"stages"`
	Inputs          []FileStamp  `json:"inputs"`
}

// FileStamp identifies the bytes of one input or output file.
type FileStamp struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	XXHash string `json:"xxhash"`
}

// StageStamp is one stage's input key and the outputs it produced.
type StageStamp struct {
	Stage   string   `json:"stage"`
	Key     string   `json:"key"`
	Outputs []string `json:"outputs"`
}

type manifestFile struct {
	Kind int `json:"cairn-manifest"`
	Manifest
}

// EncodeManifest renders manifest.json with sorted inputs, outputs and
// stages, indented, LF-terminated.
func EncodeManifest(m Manifest) []byte {
	m.Format = FormatVersion
	m.Inputs = sortedStamps(m.Inputs)
	m.Outputs = sortedStamps(m.Outputs)
	m.Stages = slices.Clone(m.Stages)
	slices.SortFunc(m.Stages, func(a, b StageStamp) int { return strings.Compare(a.Stage, b.Stage) })
	for i := range m.Stages {
		outs := slices.Sorted(slices.Values(m.Stages[i].Outputs))
		if outs == nil {
			outs = []string{} // a stage with no outputs says so: [], not null
		}
		m.Stages[i].Outputs = outs
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(manifestFile{Kind: 1, Manifest: m}); err != nil {
		panic(err) // plain strings and integers always encode
	}
	return b.Bytes()
}

func sortedStamps(s []FileStamp) []FileStamp {
	s = append([]FileStamp{}, s...) // never nil: an empty list is written []
	slices.SortFunc(s, func(a, b FileStamp) int { return strings.Compare(a.Path, b.Path) })
	return s
}

// DecodeManifest parses manifest.json and checks its format version. A
// manifest of another format is an error, but it comes back with its
// format and outputs, read leniently (that format may have other keys), so
// that a build can still delete the outputs it no longer writes.
func DecodeManifest(data []byte) (Manifest, error) {
	return decodeManifest(data, true)
}

// DecodeManifestHead is DecodeManifest leaving Inputs nil: the input list
// is most of the file, and a reader that trusts the stage keys never
// needs it. The list is still checked to be well-formed JSON.
func DecodeManifestHead(data []byte) (Manifest, error) {
	return decodeManifest(data, false)
}

// manifestHeadFile is manifest.json with its inputs left undecoded.
type manifestHeadFile struct {
	Kind            int             `json:"cairn-manifest"`
	Format          int             `json:"format"`
	RankingVersion  int             `json:"ranking_version"`
	ToolVersion     string          `json:"tool_version"`
	SemanticsDigest string          `json:"semantics_digest"`
	Outputs         []FileStamp     `json:"outputs"`
	Stages          []StageStamp    `json:"stages"`
	Inputs          json.RawMessage `json:"inputs"`
}

// withoutInputs returns data with the value of the top-level "inputs" key
// replaced by null, found by a scan that tracks only strings and nesting:
// far cheaper than letting encoding/json walk a list it would throw away.
// It returns data unchanged when it finds no such well-formed value, and
// the decoder then judges the whole file.
func withoutInputs(data []byte) []byte {
	out := data
	eachTopKey(data, func(key string, colon int) bool {
		if key != `"inputs"` {
			return true
		}
		v := colon + 1
		for v < len(data) && (data[v] == ' ' || data[v] == '\n' || data[v] == '\t' || data[v] == '\r') {
			v++
		}
		if v == len(data) || data[v] != '[' {
			return false
		}
		end := closing(data, v)
		if end < 0 {
			return false
		}
		out = make([]byte, 0, len(data)-(end-v)+4)
		out = append(out, data[:v]...)
		out = append(out, "null"...)
		out = append(out, data[end:]...)
		return false
	})
	return out
}

// eachTopKey calls fn with each top-level key of the JSON object in data,
// quoted, and the offset of the colon after it, found by a scan that
// tracks only strings and nesting; fn returns false to stop the scan.
func eachTopKey(data []byte, fn func(key string, colon int) bool) {
	depth, key := 0, -1 // key: where the last string at depth 1 started
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if depth == 1 {
				key = start
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ':':
			if depth == 1 && key >= 0 && !fn(strings.TrimSpace(string(data[key:i])), i) {
				return
			}
		}
	}
}

// closing returns the index just past the bracket that closes the one at
// open, or -1 when the data ends first.
func closing(data []byte, open int) int {
	depth := 0
	for i := open; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

func decodeManifest(data []byte, inputs bool) (Manifest, error) {
	if !inputs {
		// Before any decoding, or the format check below would parse the
		// whole input list that the head leaves out.
		data = withoutInputs(data)
	}
	var head struct {
		Kind    int         `json:"cairn-manifest"`
		Format  int         `json:"format"`
		Outputs []FileStamp `json:"outputs"`
	}
	if json.Unmarshal(data, &head) == nil && head.Kind == 1 && head.Format != 0 && head.Format != FormatVersion {
		return Manifest{Format: head.Format, Outputs: head.Outputs},
			&CorruptError{Path: ManifestPath, Msg: fmt.Sprintf("format %d, this cairn reads %d; run cairn build", head.Format, FormatVersion)}
	}
	var f manifestFile
	var h manifestHeadFile
	dst, kind := any(&f), &f.Kind
	if !inputs {
		dst, kind = &h, &h.Kind
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return Manifest{}, &CorruptError{Path: ManifestPath, Msg: err.Error()}
	}
	if rest := data[dec.InputOffset():]; string(rest) != "\n" {
		return Manifest{}, &CorruptError{Path: ManifestPath, Msg: "the manifest must be one JSON object followed by one LF; the file is truncated or has extra bytes"}
	}
	if *kind != 1 {
		return Manifest{}, &CorruptError{Path: ManifestPath, Msg: "not a cairn manifest"}
	}
	m := f.Manifest
	if !inputs {
		m = Manifest{Format: h.Format, RankingVersion: h.RankingVersion, ToolVersion: h.ToolVersion,
			SemanticsDigest: h.SemanticsDigest, Outputs: h.Outputs, Stages: h.Stages}
	}
	// Input and Output search these lists by path: out of order, a stamp
	// would silently not be found.
	for _, l := range []struct {
		name   string
		stamps []FileStamp
	}{{"inputs", m.Inputs}, {"outputs", m.Outputs}} {
		for i := 1; i < len(l.stamps); i++ {
			if l.stamps[i-1].Path >= l.stamps[i].Path {
				return Manifest{}, &CorruptError{Path: ManifestPath, Msg: fmt.Sprintf("%s are not sorted by path with each path once: %q then %q", l.name, l.stamps[i-1].Path, l.stamps[i].Path)}
			}
		}
	}
	return m, nil
}

// Stage returns the stamp of the named stage.
func (m Manifest) Stage(name string) (StageStamp, bool) {
	for _, s := range m.Stages {
		if s.Stage == name {
			return s, true
		}
	}
	return StageStamp{}, false
}

// Output returns the stamp of the output at path.
func (m Manifest) Output(path string) (FileStamp, bool) {
	i, ok := slices.BinarySearchFunc(m.Outputs, path, func(s FileStamp, p string) int { return strings.Compare(s.Path, p) })
	if !ok {
		return FileStamp{}, false
	}
	return m.Outputs[i], true
}

// Input returns the stamp of the input at path.
func (m Manifest) Input(path string) (FileStamp, bool) {
	i, ok := slices.BinarySearchFunc(m.Inputs, path, func(s FileStamp, p string) int { return strings.Compare(s.Path, p) })
	if !ok {
		return FileStamp{}, false
	}
	return m.Inputs[i], true
}
