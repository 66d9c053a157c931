package artifacts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bigManifest has more inputs than the head probe reads, and outputs
// enough for its head alone to pass the probe when many is set.
func bigManifest(manyOutputs bool) Manifest {
	m := Manifest{RankingVersion: RankingVersion, ToolVersion: "test", SemanticsDigest: "0123456789abcdef",
		Stages: []StageStamp{{Stage: "index", Key: "k", Outputs: []string{".cairn/docs.tsv"}}}}
	for i := range 2000 {
		m.Inputs = append(m.Inputs, FileStamp{Path: fmt.Sprintf("events/2026-11-%02d/%04d.json", i%28+1, i), Bytes: int64(i), XXHash: "0000000000000001"})
	}
	n := 3
	if manyOutputs {
		n = 600
	}
	for i := range n {
		m.Outputs = append(m.Outputs, FileStamp{Path: fmt.Sprintf("docs/%04d/AGENTS.md", i), Bytes: 10, XXHash: "0000000000000002"})
	}
	return m
}

func writeManifest(t *testing.T, data []byte) string {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, filepath.FromSlash(ManifestPath))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestReadPreviousHead: the head read gives what decoding the whole file
// gives, whether the head fits the first probe or not.
func TestReadPreviousHead(t *testing.T) {
	for _, many := range []bool{false, true} {
		data := EncodeManifest(bigManifest(many))
		if len(data) < 4*headProbe {
			t.Fatalf("the manifest has %d bytes; the test wants several probes' worth", len(data))
		}
		want, err := DecodeManifestHead(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadPreviousHead(writeManifest(t, data))
		if err != nil || got == nil {
			t.Fatalf("many outputs %v: %v, %v", many, got, err)
		}
		if diff := cmp.Diff(want, *got); diff != "" {
			t.Errorf("many outputs %v (-whole +head):\n%s", many, diff)
		}
	}
}

// TestReadPreviousHeadStopsAtInputs: bytes inside the input list are not
// read, so damage there goes unseen by a query, which needs only the
// stage keys; a file cut short is still refused, by its last bytes.
func TestReadPreviousHeadStopsAtInputs(t *testing.T) {
	data := EncodeManifest(bigManifest(false))
	start := bytes.Index(data, []byte(`"inputs": [`)) + 2*headProbe
	i := start + bytes.Index(data[start:], []byte("\n    {")) + len("\n    ")
	garbled := bytes.Clone(data)
	garbled[i] = '!' // an input's object no longer opens
	if _, err := DecodeManifest(garbled); err == nil {
		t.Fatal("the garbled manifest decodes whole; the test garbles nothing")
	}
	m, err := ReadPreviousHead(writeManifest(t, garbled))
	if err != nil || m == nil || m.SemanticsDigest != "0123456789abcdef" || m.Inputs != nil {
		t.Errorf("garbled inputs: %+v, %v; want the head", m, err)
	}
	for _, cut := range []int{len(data) - 1, len(data) - 3, len(data) / 2, headProbe / 2} {
		_, err := ReadPreviousHead(writeManifest(t, data[:cut]))
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Errorf("cut at %d of %d bytes: %v, want a CorruptError", cut, len(data), err)
		}
	}
}

// TestReadPreviousHeadOtherLayouts: a manifest whose inputs come first, as
// format 1 wrote them, is read whole: of this format it decodes, of
// another it comes back with its outputs and the format error.
func TestReadPreviousHeadOtherLayouts(t *testing.T) {
	m := bigManifest(false)
	m.Format = FormatVersion
	inputsFirst := func(format int) []byte {
		type old struct {
			Kind            int          `json:"cairn-manifest"`
			Format          int          `json:"format"`
			RankingVersion  int          `json:"ranking_version"`
			ToolVersion     string       `json:"tool_version"`
			SemanticsDigest string       `json:"semantics_digest"`
			Inputs          []FileStamp  `json:"inputs"`
			Outputs         []FileStamp  `json:"outputs"`
			Stages          []StageStamp `json:"stages"`
		}
		var b strings.Builder
		b.WriteString(mustJSON(t, old{1, format, m.RankingVersion, m.ToolVersion, m.SemanticsDigest, m.Inputs, m.Outputs, m.Stages}))
		return []byte(b.String())
	}
	got, err := ReadPreviousHead(writeManifest(t, inputsFirst(FormatVersion)))
	if err != nil || got == nil || got.SemanticsDigest != m.SemanticsDigest || len(got.Stages) != 1 || len(got.Outputs) != 3 {
		t.Errorf("inputs first, this format: %+v, %v", got, err)
	}
	got, err = ReadPreviousHead(writeManifest(t, inputsFirst(1)))
	var ce *CorruptError
	if !errors.As(err, &ce) || got == nil || got.Format != 1 || len(got.Outputs) != 3 {
		t.Errorf("inputs first, format 1: %+v, %v; want its outputs and the format error", got, err)
	}
}

// mustJSON encodes v as EncodeManifest does: indented, LF-terminated.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
