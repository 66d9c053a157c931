package artifacts

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var sampleManifest = Manifest{
	Format:          FormatVersion,
	RankingVersion:  RankingVersion,
	ToolVersion:     "v0.3.1",
	SemanticsDigest: "89abcdef01234567",
	Inputs: []FileStamp{
		{Path: "cairn.yaml", Bytes: 412, XXHash: "0123456789abcdef"},
		{Path: "wiki/café.md", Bytes: 0, XXHash: "ef46db3751d8e999"},
	},
	Outputs: []FileStamp{
		{Path: ".cairn/docs.key", Bytes: 40, XXHash: "1111111111111111"},
		{Path: ".cairn/docs.tsv", Bytes: 1024, XXHash: "2222222222222222"},
	},
	Stages: []StageStamp{
		{Stage: "graph", Key: "aaaaaaaaaaaaaaaa", Outputs: []string{".cairn/edges.dst.tsv", ".cairn/edges.tsv"}},
		{Stage: "index", Key: "bbbbbbbbbbbbbbbb", Outputs: []string{".cairn/docs.key", ".cairn/docs.tsv"}},
		{Stage: "rules", Key: "cccccccccccccccc", Outputs: []string{}},
	},
}

func TestManifestRoundTrip(t *testing.T) {
	data := EncodeManifest(sampleManifest)
	got, err := DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleManifest, got); diff != "" {
		t.Errorf("DecodeManifest(EncodeManifest(x)) (-want +got):\n%s", diff)
	}
	if again := EncodeManifest(got); !bytes.Equal(again, data) {
		t.Errorf("EncodeManifest(DecodeManifest(b)) != b:\n%s\n---\n%s", data, again)
	}
	if s, ok := got.Stage("index"); !ok || s.Key != "bbbbbbbbbbbbbbbb" {
		t.Errorf("Stage(index) = %v, %v", s, ok)
	}
	if _, ok := got.Stage("emit"); ok {
		t.Errorf("Stage(emit) found a stage that is not there")
	}
	if s, ok := got.Input("wiki/café.md"); !ok || s.Bytes != 0 {
		t.Errorf("Input(wiki/café.md) = %v, %v", s, ok)
	}
	if s, ok := got.Output(".cairn/docs.tsv"); !ok || s.Bytes != 1024 {
		t.Errorf("Output(.cairn/docs.tsv) = %v, %v", s, ok)
	}
	if _, ok := got.Output(".cairn/edges.tsv"); ok {
		t.Errorf("Output found an output that is not there")
	}
}

// TestManifestHead: the head decoder gives everything but the inputs,
// whatever the paths hold: quotes, brackets, backslashes, even the key.
func TestManifestHead(t *testing.T) {
	tricky := sampleManifest
	tricky.Inputs = append(slices.Clone(tricky.Inputs),
		FileStamp{Path: `docs/"inputs": [{]\.md`, Bytes: 1, XXHash: "0000000000000001"},
		FileStamp{Path: `docs/\"}]`, Bytes: 2, XXHash: "0000000000000002"})
	tricky.Outputs = append(slices.Clone(tricky.Outputs), FileStamp{Path: `.cairn/"inputs":[`, Bytes: 3, XXHash: "0000000000000003"})
	for _, m := range []Manifest{sampleManifest, tricky} {
		got, err := DecodeManifestHead(EncodeManifest(m))
		if err != nil {
			t.Fatal(err)
		}
		want := m
		want.Inputs = nil
		want.Outputs = sortedStamps(m.Outputs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DecodeManifestHead (-want +got):\n%s", diff)
		}
	}
}

// manifestDecoders are the two decoders, which must refuse the same bytes.
var manifestDecoders = map[string]func([]byte) (Manifest, error){
	"whole": DecodeManifest,
	"head":  DecodeManifestHead,
}

func TestManifestSortsAndFixesFormat(t *testing.T) {
	m := Manifest{
		Format:          99,
		RankingVersion:  RankingVersion,
		SemanticsDigest: "0000000000000000",
		Inputs:          []FileStamp{{Path: "wiki/b.md", Bytes: 2, XXHash: "b"}, {Path: "cairn.yaml", Bytes: 1, XXHash: "a"}},
		Stages:          []StageStamp{{Stage: "index", Key: "k2", Outputs: []string{"z", "a"}}, {Stage: "graph", Key: "k1"}},
	}
	data := EncodeManifest(m)
	want := `{
  "cairn-manifest": 1,
  "format": ` + strconv.Itoa(FormatVersion) + `,
  "ranking_version": 3,
  "tool_version": "",
  "semantics_digest": "0000000000000000",
  "outputs": [],
  "stages": [
    {
      "stage": "graph",
      "key": "k1",
      "outputs": []
    },
    {
      "stage": "index",
      "key": "k2",
      "outputs": [
        "a",
        "z"
      ]
    }
  ],
  "inputs": [
    {
      "path": "cairn.yaml",
      "bytes": 1,
      "xxhash": "a"
    },
    {
      "path": "wiki/b.md",
      "bytes": 2,
      "xxhash": "b"
    }
  ]
}
`
	if string(data) != want {
		t.Errorf("manifest.json:\n%s\nwant:\n%s", data, want)
	}
	if m.Inputs[0].Path != "wiki/b.md" || m.Stages[0].Outputs[0] != "z" {
		t.Errorf("EncodeManifest sorted its argument in place")
	}
}

func TestDecodeManifestErrors(t *testing.T) {
	good := string(EncodeManifest(sampleManifest))
	format := fmt.Sprintf(`"format": %d`, FormatVersion)
	cases := []struct{ name, data, msg string }{
		{"other format", strings.Replace(good, format, `"format": 99`, 1), fmt.Sprintf("format 99, this cairn reads %d; run cairn build", FormatVersion)},
		{"no marker", strings.Replace(good, `"cairn-manifest": 1,`, ``, 1), "not a cairn manifest"},
		{"marker 2", strings.Replace(good, `"cairn-manifest": 1`, `"cairn-manifest": 2`, 1), "not a cairn manifest"},
		{"unknown key", strings.Replace(good, format, `"formats": 2`, 1), `json: unknown field "formats"`},
		{"bytes not a number", strings.Replace(good, `"bytes": 412`, `"bytes": "412"`, 1), ""},
		{"outputs out of order", strings.Replace(good, `".cairn/docs.key"`, `".cairn/zz"`, 1), `outputs are not sorted by path with each path once: ".cairn/zz" then ".cairn/docs.tsv"`},
		{"output twice", strings.Replace(good, `".cairn/docs.key"`, `".cairn/docs.tsv"`, 1), `outputs are not sorted by path with each path once: ".cairn/docs.tsv" then ".cairn/docs.tsv"`},
		{"inputs out of order", strings.Replace(good, `"cairn.yaml"`, `"zz.yaml"`, 1), `inputs are not sorted by path with each path once: "zz.yaml" then "wiki/café.md"`},
		{"empty", "", "EOF"},
		{"array", "[]\n", ""},
	}
	for _, c := range cases {
		for name, decode := range manifestDecoders {
			if name == "head" && (strings.Contains(c.name, "bytes") || strings.HasPrefix(c.name, "inputs")) {
				continue // the head leaves the inputs undecoded: their types are not its business
			}
			t.Run(c.name+"/"+name, func(t *testing.T) {
				_, err := decode([]byte(c.data))
				if err == nil {
					t.Fatal("accepted")
				}
				ce := asCorrupt(t, err, ManifestPath)
				if c.msg != "" && ce.Msg != c.msg {
					t.Errorf("message %q, want %q", ce.Msg, c.msg)
				}
			})
		}
	}
}

func TestManifestTruncated(t *testing.T) {
	data := EncodeManifest(sampleManifest)
	// The last byte is the LF; dropping only it is TestDecodeManifestRefusesTrailingBytes.
	for cut := 0; cut < len(data)-1; cut++ {
		for name, decode := range manifestDecoders {
			if _, err := decode(data[:cut]); err == nil {
				t.Errorf("%s: cut at %d: accepted", name, cut)
			} else {
				asCorrupt(t, err, ManifestPath)
			}
		}
	}
}

// TestDecodeManifestRefusesTrailingBytes: the manifest is one JSON object and
// one LF, nothing else.
func TestDecodeManifestRefusesTrailingBytes(t *testing.T) {
	good := EncodeManifest(sampleManifest)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"no final LF", good[:len(good)-1]},
		{"junk after", append(slices.Clone(good), "garbage"...)},
		{"written twice", append(slices.Clone(good), good...)},
	} {
		for name, decode := range manifestDecoders {
			if _, err := decode(c.data); err == nil {
				t.Errorf("%s: %s decoder accepted it; want a *CorruptError", c.name, name)
			}
		}
	}
}

// TestDecodeManifestOfAnotherFormat: a manifest of a newer format, with keys
// this cairn does not know, is refused by its format (not by the new key)
// and still hands back its outputs, so a build can delete the stale ones.
func TestDecodeManifestOfAnotherFormat(t *testing.T) {
	good := string(EncodeManifest(sampleManifest))
	newer := strings.Replace(good, fmt.Sprintf(`"format": %d`, FormatVersion), `"format": 99, "shards": 4`, 1)
	m, err := DecodeManifest([]byte(newer))
	ce := asCorrupt(t, err, ManifestPath)
	if want := fmt.Sprintf("format 99, this cairn reads %d; run cairn build", FormatVersion); ce.Msg != want {
		t.Errorf("message %q, want %q", ce.Msg, want)
	}
	if m.Format != 99 || len(m.Outputs) != len(sampleManifest.Outputs) || len(m.Outputs) == 0 {
		t.Errorf("got format %d and %d outputs, want 99 and the %d outputs", m.Format, len(m.Outputs), len(sampleManifest.Outputs))
	}
}

// FuzzManifestHead: whatever the whole decoder accepts, the head decoder
// accepts too, with the same values but the inputs.
func FuzzManifestHead(f *testing.F) {
	f.Add(EncodeManifest(sampleManifest))
	f.Add([]byte(`{"cairn-manifest":1,"format":1,"inputs":[{"path":"a\"]","bytes":1,"xxhash":"x"}],"outputs":[],"stages":[]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, err := DecodeManifest(data)
		if err != nil {
			return
		}
		head, err := DecodeManifestHead(data)
		if err != nil {
			t.Fatalf("the whole decoder accepts %q, the head decoder refuses it: %v", data, err)
		}
		whole.Inputs = nil
		if diff := cmp.Diff(whole, head); diff != "" {
			t.Errorf("head differs from whole (-whole +head):\n%s", diff)
		}
	})
}
