package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// asCorrupt fails unless err is a *CorruptError for path.
func asCorrupt(t *testing.T, err error, path string) *CorruptError {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v (%T), want *CorruptError", err, err)
	}
	if ce.Path != path {
		t.Errorf("CorruptError.Path = %q, want %q", ce.Path, path)
	}
	return ce
}

// tsvArtifact is one TSV artifact's bytes and a decoder that counts rows.
type tsvArtifact struct {
	path   string
	data   []byte
	decode func([]byte) (int, error)
}

func tsvArtifacts(t testing.TB) []tsvArtifact {
	docs, _ := encodeDocs(t, sampleDocs, sampleFieldCount)
	dict, post := mustEncodePostings(t, samplePostings)
	count := func(n int, err error) (int, error) { return n, err }
	return []tsvArtifact{
		{DocsPath, docs, func(b []byte) (int, error) { r, err := DecodeDocs(b, sampleOrigins); return count(len(r), err) }},
		{FieldsPath, EncodeFields(sampleFields), func(b []byte) (int, error) { r, err := DecodeFields(b); return count(len(r), err) }},
		{TermsPath, dict, func(b []byte) (int, error) { r, err := DecodeTerms(b, int64(len(post))); return count(len(r), err) }},
		{PostingsPath, post, func(b []byte) (int, error) { r, err := decodePostingLines(b); return count(len(r), err) }},
		{EdgesPath, must(EncodeEdges(sampleEdges)), func(b []byte) (int, error) { r, err := DecodeEdges(b); return count(len(r), err) }},
		{EdgesDstPath, must(EncodeEdgesDst(sampleEdgesDst)), func(b []byte) (int, error) { r, err := DecodeEdgesDst(b); return count(len(r), err) }},
	}
}

// TestTruncatedArtifacts cuts every TSV artifact at every byte. A cut inside
// a line is corrupt; a cut right after a row's LF is a shorter valid file,
// which no format can tell from a real one.
func TestTruncatedArtifacts(t *testing.T) {
	for _, a := range tsvArtifacts(t) {
		t.Run(a.path, func(t *testing.T) {
			headerEnd := bytes.IndexByte(a.data, '\n') + 1
			total := bytes.Count(a.data, []byte{'\n'}) - 1
			if total < 2 {
				t.Fatalf("sample has %d rows; want at least 2", total)
			}
			if n, err := a.decode(a.data); err != nil || n != total {
				t.Fatalf("whole file: %d rows, %v; want %d rows", n, err, total)
			}
			for cut := 0; cut < len(a.data); cut++ {
				n, err := a.decode(a.data[:cut])
				if cut >= headerEnd && a.data[cut-1] == '\n' {
					want := bytes.Count(a.data[headerEnd:cut], []byte{'\n'})
					if err != nil || n != want {
						t.Errorf("cut at %d (a line end): %d rows, %v; want %d rows", cut, n, err, want)
					}
					continue
				}
				if err == nil {
					t.Errorf("cut at %d: decoded %d rows, want a *CorruptError", cut, n)
					continue
				}
				ce := asCorrupt(t, err, a.path)
				if cut < headerEnd && ce.Line != 1 {
					t.Errorf("cut at %d in the header: line %d, want 1", cut, ce.Line)
				}
			}
		})
	}
}

func TestMissingFinalLF(t *testing.T) {
	for _, a := range tsvArtifacts(t) {
		t.Run(a.path, func(t *testing.T) {
			lastLine := bytes.Count(a.data, []byte{'\n'})
			_, err := a.decode(a.data[:len(a.data)-1])
			ce := asCorrupt(t, err, a.path)
			if ce.Line != lastLine || ce.Msg != "last line has no LF; the file is truncated" {
				t.Errorf("got %d %q; want %d %q", ce.Line, ce.Msg, lastLine, "last line has no LF; the file is truncated")
			}
		})
	}
}

func TestWrongHeaders(t *testing.T) {
	version := fmt.Sprintf(" v%d\t", FormatVersion)
	for _, a := range tsvArtifacts(t) {
		t.Run(a.path, func(t *testing.T) {
			hdr, body, _ := bytes.Cut(a.data, []byte{'\n'})
			variants := []struct{ name, header string }{
				{"next version", strings.Replace(string(hdr), version, fmt.Sprintf(" v%d\t", FormatVersion+1), 1)},
				{"no version", strings.Replace(string(hdr), version, "\t", 1)},
				{"column dropped", string(hdr[:bytes.LastIndexByte(hdr, '\t')])},
				{"column added", string(hdr) + "\textra"},
				{"CRLF", string(hdr) + "\r"},
				{"upper case", strings.ToUpper(string(hdr))},
				{"leading BOM", "\xef\xbb\xbf" + string(hdr)},
				{"header of another", "#cairn other v2\tname\tweight"},
			}
			for _, v := range variants {
				_, err := a.decode(append([]byte(v.header+"\n"), body...))
				if err == nil {
					t.Errorf("%s: accepted", v.name)
					continue
				}
				ce := asCorrupt(t, err, a.path)
				if ce.Line != 1 || !strings.HasPrefix(ce.Msg, "header is not ") {
					t.Errorf("%s: %d %q, want line 1 and a header message", v.name, ce.Line, ce.Msg)
				}
			}
			if _, err := a.decode(body); err == nil {
				t.Errorf("no header: accepted")
			}
			// Every decoder refuses every other artifact's bytes.
			for _, other := range tsvArtifacts(t) {
				if other.path == a.path {
					continue
				}
				if _, err := a.decode(other.data); err == nil {
					t.Errorf("decoder of %s accepted %s", a.path, other.path)
				}
			}
		})
	}
}

func TestBadRows(t *testing.T) {
	fieldsHdr := "#cairn fields v7\tname\tweight\n"
	termsHdr := "#cairn terms v7\tterm\tdf\tpostings\n"
	postHdr := "#cairn postings v7\tpostings\n"
	edgesHdr := "#cairn edges v7\tsrc\tkind=dst...\n"
	docsHdr := "#cairn docs v7\turi\tkind\tsource\tdate\ttime\tvalid\tflags\tspan\turlkey\ttitle\n"
	fields := func(b []byte) error { _, err := DecodeFields(b); return err }
	terms := func(b []byte) error { _, err := DecodeTerms(b, 1<<20); return err }
	post := func(b []byte) error { _, err := decodePostingLines(b); return err }
	edges := func(b []byte) error { _, err := DecodeEdges(b); return err }
	docs := func(b []byte) error { _, err := DecodeDocs(b, sampleOrigins); return err }
	cases := []struct {
		name, path, data string
		decode           func([]byte) error
		line             int
		msg              string
	}{
		{"weight not a number", FieldsPath, fieldsHdr + "id\t10\ntitle\tfive\n", fields, 3, `row "title\tfive" is not name TAB weight`},
		{"weight missing", FieldsPath, fieldsHdr + "title\n", fields, 2, `row "title" is not name TAB weight`},
		{"empty field name", FieldsPath, fieldsHdr + "\t5\n", fields, 2, `row "\t5" is not name TAB weight`},
		{"blank fields line", FieldsPath, fieldsHdr + "id\t10\n\n", fields, 3, `row "" is not name TAB weight`},
		{"df not a number", TermsPath, termsHdr + "arm64\tmany\t10\n", terms, 2, `df "many" is not a number`},
		{"negative offset", TermsPath, termsHdr + "arm64\t2\t-10+1\n", terms, 2, `postings "-10+1" are not a range offset+length in base 32`},
		{"not a base-32 offset", TermsPath, termsHdr + "a\t2\ts+9\nb\t2\t1w+1\n", terms, 3, `postings "1w+1" are not a range offset+length in base 32`},
		{"a range without its length", TermsPath, termsHdr + "a\t2\ts\n", terms, 2, `postings "s" are not a range offset+length in base 32`},
		{"a range of no bytes", TermsPath, termsHdr + "a\t2\ts+0\n", terms, 2, `postings "s+0" are not a range offset+length in base 32`},
		{"offsets out of order", TermsPath, termsHdr + "a\t2\ts+9\nb\t2\tv+1\n", terms, 3, `the postings of "b" start at byte 31, not where the line before ends (37)`},
		{"offsets out of order past a term of one item", TermsPath, termsHdr + "a\t2\ts+9\nb\t1\t0:1\nc\t2\tv+1\n", terms, 4, `the postings of "c" start at byte 31, not where the line before ends (37)`},
		{"a range past postings.tsv", TermsPath, termsHdr + "a\t2\ts+vvvv\n", terms, 2, `the postings of "a" run past the 1048576 bytes of postings.tsv`},
		{"terms out of order", TermsPath, termsHdr + "b\t1\t0:1\na\t1\t0:1\n", terms, 3, `term "a" follows "b"; terms are sorted and unique`},
		{"a term of one item without postings", TermsPath, termsHdr + "a\t1\t\n", terms, 2, "a term one item holds has no postings in its row"},
		{"a term of one item with bad postings", TermsPath, termsHdr + "a\t1\t0:1 \n", terms, 2, `postings of "a": posting " " is not delta[:field][xTF] or ,field[xTF] (the first names its field)`},
		{"the length column of format 4", TermsPath, termsHdr + "arm64\t2\t10\t10\n", terms, 2, "row is not term TAB df TAB postings"},
		{"two term columns", TermsPath, termsHdr + "arm64\t1\n", terms, 2, "row is not term TAB df TAB postings"},
		{"empty term", TermsPath, termsHdr + "\t1\t10\n", terms, 2, "row is not term TAB df TAB postings"},
		{"posting not a number", PostingsPath, postHdr + "0:1\n0:zero\n", post, 3, `postings of "line 3": posting "0:zero" is not delta[:field][xTF] or ,field[xTF] (the first names its field)`},
		{"first posting without its field", PostingsPath, postHdr + "0:1\n45:2\n", post, 3, `postings of "line 3": posting "45:2" is not delta[:field][xTF] or ,field[xTF] (the first names its field)`},
		{"postings row with a term", PostingsPath, postHdr + "a\t0:1\n", post, 2, `postings of "line 2": posting "a\t0:1" is not delta[:field][xTF] or ,field[xTF] (the first names its field)`},
		{"edge row without links", EdgesPath, edgesHdr + "wiki/a.md\tlink=wiki/b.md\nwiki/c.md\n", edges, 3, "row is not node TAB kind=node..."},
		{"edge link without =", EdgesPath, edgesHdr + "wiki/a.md\tlink:wiki/b.md\n", edges, 2, `link "link:wiki/b.md" is not kind=node`},
		{"docs span", DocsPath, docsHdr + "index/people.json#a\t\t\t\t-\t-\t-\t1+x\t-\t-\n", docs, 2, `span "1+x" is not offset+length`},
		{"docs CRLF row", DocsPath, docsHdr + "wiki/a.md\twiki\twiki\t-\t-\t-\t-\t-\t-\t1+2\r\n", docs, 2, "the line ends with CR; artifacts use LF line endings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.decode([]byte(c.data))
			if err == nil {
				t.Fatal("accepted")
			}
			ce := asCorrupt(t, err, c.path)
			if ce.Line != c.line || ce.Msg != c.msg {
				t.Errorf("got line %d %q, want line %d %q", ce.Line, ce.Msg, c.line, c.msg)
			}
		})
	}
}

func TestCorruptErrorText(t *testing.T) {
	for _, c := range []struct {
		err  CorruptError
		want string
	}{
		{CorruptError{Path: DocsPath, Line: 3, Msg: "row has 9 columns, want 10"}, ".cairn/docs.tsv:3: corrupt artifact: row has 9 columns, want 10"},
		{CorruptError{Path: ManifestPath, Msg: "not a cairn manifest"}, ".cairn/manifest.json: corrupt artifact: not a cairn manifest"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}
