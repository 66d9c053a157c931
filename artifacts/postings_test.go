package artifacts

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// samplePostings has tf>1, a term in two fields of one item (delta 0), a
// term whose first posting is item 0, a term with a space and unicode.
var samplePostings = []TermPostings{
	{Term: "=acme harbor", Postings: []Posting{{Doc: 3, Field: 4, TF: 1}}},
	{Term: "=marc@x.test", Postings: []Posting{{Doc: 0, Field: 2, TF: 1}, {Doc: 0, Field: 3, TF: 1}, {Doc: 7, Field: 2, TF: 1}}},
	{Term: "arm64", Postings: []Posting{{Doc: 0, Field: 0, TF: 4}, {Doc: 1, Field: 0, TF: 1}, {Doc: 1, Field: 3, TF: 12}, {Doc: 1000000, Field: 1, TF: 2}}},
	{Term: "crème", Postings: []Posting{{Doc: 5, Field: 0, TF: 1}}},
	{Term: "repo:github.com/acme/harbor", Postings: []Posting{{Doc: 2, Field: 1, TF: 1}, {Doc: 2, Field: 2, TF: 3}, {Doc: 2, Field: 4, TF: 1}}},
	{Term: "日本語", Postings: []Posting{{Doc: 4, Field: 0, TF: 1}, {Doc: 6, Field: 0, TF: 1}}},
}

func TestPostingsRoundTrip(t *testing.T) {
	dict, post := mustEncodePostings(t, samplePostings)
	got, err := DecodePostings(post)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(samplePostings, got); diff != "" {
		t.Errorf("DecodePostings(EncodePostings(x)) (-want +got):\n%s", diff)
	}
	dict2, post2 := mustEncodePostings(t, got)
	if !bytes.Equal(post, post2) || !bytes.Equal(dict, dict2) {
		t.Errorf("EncodePostings(DecodePostings(b)) != b:\n%s\n---\n%s", post, post2)
	}
	entries, err := DecodeTerms(dict)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(samplePostings) {
		t.Fatalf("terms.tsv has %d rows, want %d", len(entries), len(samplePostings))
	}
	for i, e := range entries {
		tp := samplePostings[i]
		if e.Term != tp.Term {
			t.Errorf("row %d term = %q, want %q", i, e.Term, tp.Term)
		}
		docs := map[int32]bool{}
		for _, p := range tp.Postings {
			docs[p.Doc] = true
		}
		if e.DF != len(docs) {
			t.Errorf("%q: df = %d, want %d", e.Term, e.DF, len(docs))
		}
	}
}

func TestPostingsExactBytes(t *testing.T) {
	dict, post := mustEncodePostings(t, []TermPostings{
		{Term: "=marc@x.test", Postings: []Posting{{0, 2, 1}, {0, 3, 1}, {7, 2, 1}}},
		{Term: "arm64", Postings: []Posting{{1, 0, 4}, {3, 1, 1}, {3, 2, 2}}},
		{Term: "lonely"},
	})
	wantPost := "#cairn postings v2\tterm\tpostings\n" +
		"=marc@x.test\t0:2 0:3 7:2\n" +
		"arm64\t1:0x4 2:1 0:2x2\n" +
		"lonely\t\n"
	if string(post) != wantPost {
		t.Errorf("postings.tsv:\n got %q\nwant %q", post, wantPost)
	}
	wantDict := "#cairn terms v2\tterm\tdf\toffset\tlength\n" +
		"=marc@x.test\t2\t33\t25\n" +
		"arm64\t2\t58\t22\n" +
		"lonely\t0\t80\t8\n"
	if string(dict) != wantDict {
		t.Errorf("terms.tsv:\n got %q\nwant %q", dict, wantDict)
	}
}

// TestTermRangesDecode reads each term the way a query does: its byte range
// in postings.tsv, named by terms.tsv.
func TestTermRangesDecode(t *testing.T) {
	dict, post := mustEncodePostings(t, samplePostings)
	entries, err := DecodeTerms(dict)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		rng := post[e.Offset : e.Offset+e.Length]
		got, err := DecodePostingsLine(e.Term, rng)
		if err != nil {
			t.Fatalf("%q: %v", e.Term, err)
		}
		if diff := cmp.Diff(samplePostings[i].Postings, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", e.Term, diff)
		}
		// The same term against a neighbour's range, and against its own
		// range shifted by one byte either way, must be refused.
		other := entries[(i+1)%len(entries)]
		if _, err := DecodePostingsLine(e.Term, post[other.Offset:other.Offset+other.Length]); err == nil {
			t.Errorf("%q decoded the line of %q", e.Term, other.Term)
		} else if ce := asCorrupt(t, err, PostingsPath); !strings.Contains(ce.Msg, "another term's line") {
			t.Errorf("%q on %q: message %q does not say another term's line", e.Term, other.Term, ce.Msg)
		}
		if _, err := DecodePostingsLine(e.Term, post[e.Offset:e.Offset+e.Length-1]); err == nil {
			t.Errorf("%q: a range one byte short decoded", e.Term)
		}
		if _, err := DecodePostingsLine(e.Term, post[e.Offset+1:e.Offset+e.Length]); err == nil {
			t.Errorf("%q: a range starting one byte late decoded", e.Term)
		}
	}
}

func TestDecodePostingsLineErrors(t *testing.T) {
	cases := []struct{ term, line, msg string }{
		{"arm64", "", `postings of "arm64": line does not end with LF`},
		{"arm64", "arm64\t0:1", `postings of "arm64": line does not end with LF`},
		{"arm64", "arm64 0:1\n", `postings of "arm64": the byte range holds another term's line`},
		{"arm", "arm64\t0:1\n", `postings of "arm": the byte range holds another term's line`},
		{"arm64", "arm\t0:1\n", `postings of "arm64": the byte range holds another term's line`},
		{"arm64", "arm64\t0\n", `postings of "arm64": posting "0" is not delta:field[xTF]`},
		{"arm64", "arm64\tx:1\n", `postings of "arm64": posting "x:1" is not delta:field[xTF]`},
		{"arm64", "arm64\t0:y\n", `postings of "arm64": posting "0:y" is not delta:field[xTF]`},
		{"arm64", "arm64\t-1:0\n", `postings of "arm64": posting "-1:0" is not delta:field[xTF]`},
		{"arm64", "arm64\t0:-1\n", `postings of "arm64": posting "0:-1" is not delta:field[xTF]`},
		{"arm64", "arm64\t0:1x0\n", `postings of "arm64": posting "0:1x0" is not delta:field[xTF]`},
		{"arm64", "arm64\t0:1x\n", `postings of "arm64": posting "0:1x" is not delta:field[xTF]`},
		{"arm64", "arm64\t0:1  2:0\n", `postings of "arm64": posting "" is not delta:field[xTF]`},
		{"arm64", "arm64\t0:1\t2:0\n", `postings of "arm64": posting "0:1\t2:0" is not delta:field[xTF]`},
	}
	for _, c := range cases {
		_, err := DecodePostingsLine(c.term, []byte(c.line))
		if err == nil {
			t.Errorf("DecodePostingsLine(%q, %q) accepted", c.term, c.line)
			continue
		}
		ce := asCorrupt(t, err, PostingsPath)
		if ce.Msg != c.msg {
			t.Errorf("DecodePostingsLine(%q, %q):\n got %q\nwant %q", c.term, c.line, ce.Msg, c.msg)
		}
	}
}

// TestDecodePostingsLineBounds checks the limits of the 8-byte posting:
// item ordinals are int32 and may not overflow when deltas are summed,
// fields and term frequencies are uint16.
func TestDecodePostingsLineBounds(t *testing.T) {
	ok := []struct {
		line string
		want []Posting
	}{
		{"t\t2147483647:65535x65535\n", []Posting{{Doc: 2147483647, Field: 65535, TF: 65535}}},
		{"t\t2147483646:0 1:0\n", []Posting{{Doc: 2147483646}, {Doc: 2147483647}}},
	}
	for _, c := range ok {
		for i := range c.want {
			if c.want[i].TF == 0 {
				c.want[i].TF = 1
			}
		}
		got, err := DecodePostingsLine("t", []byte(c.line))
		if err != nil {
			t.Errorf("DecodePostingsLine(%q): %v", c.line, err)
		} else if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("DecodePostingsLine(%q) (-want +got):\n%s", c.line, diff)
		}
	}
	for _, line := range []string{
		"t\t2147483647:0 1:0\n",
		"t\t2147483648:0\n",
		"t\t9223372036854775807:0 9223372036854775807:0\n",
		"t\t0:65536\n",
		"t\t0:0x65536\n",
	} {
		if ps, err := DecodePostingsLine("t", []byte(line)); err == nil {
			t.Errorf("DecodePostingsLine(%q) = %v, nil; want a *CorruptError", line, ps)
		} else {
			asCorrupt(t, err, PostingsPath)
		}
	}
}

func FuzzDecodePostingsLine(f *testing.F) {
	_, post := mustEncodePostings(f, samplePostings)
	for _, line := range bytes.SplitAfter(post, []byte{'\n'})[1:] {
		if len(line) == 0 {
			continue
		}
		term, _, _ := bytes.Cut(line, []byte{'\t'})
		f.Add(string(term), line)
	}
	f.Add("t", []byte("t\t\n"))
	f.Add("t", []byte("t\t0:0x1 +1:02\n"))
	f.Add("t", []byte("t\t0:0 \n"))
	f.Add("", []byte("\t1:1\n"))
	f.Add("t", []byte("t\t0:1x2x3\n"))
	f.Fuzz(func(t *testing.T, term string, line []byte) {
		ps, err := DecodePostingsLine(term, line)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, want *CorruptError", err, err)
			}
			return
		}
		var prev int32
		for i, p := range ps {
			if p.Doc < prev {
				t.Fatalf("posting %d goes back from item %d to %d", i, prev, p.Doc)
			}
			if p.TF < 1 {
				t.Fatalf("posting %d = %+v", i, p)
			}
			prev = p.Doc
		}
		if term == "" || strings.ContainsAny(term, "\t\n\r") {
			return // a term the encoder refuses
		}
		encode := func(ps []Posting) []byte {
			_, p := mustEncodePostings(t, []TermPostings{{Term: term, Postings: ps}})
			_, l, _ := bytes.Cut(p, []byte{'\n'})
			return l
		}
		reLine := encode(ps)
		ps2, err := DecodePostingsLine(term, reLine)
		if err != nil {
			t.Fatalf("re-encoded line %q does not decode: %v", reLine, err)
		}
		if !slices.Equal(ps, ps2) {
			t.Fatalf("round trip: %v, then %v", ps, ps2)
		}
		// A line the encoder wrote is reproduced byte for byte.
		if again := encode(ps2); !bytes.Equal(reLine, again) {
			t.Fatalf("canonical line %q re-encodes as %q", reLine, again)
		}
	})
}

// mustEncodePostings is EncodePostings on input a test knows to be valid.
func mustEncodePostings(t testing.TB, terms []TermPostings) (dict, postings []byte) {
	t.Helper()
	dict, postings, err := EncodePostings(terms)
	if err != nil {
		t.Fatal(err)
	}
	return dict, postings
}

// TestEncodePostingsRefusesWhatItCannotWrite: input the decoder would
// refuse is an error at encoding, never a file.
func TestEncodePostingsRefusesWhatItCannotWrite(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		terms     []TermPostings
	}{
		{"empty term", "is empty or holds a tab", []TermPostings{{Term: "", Postings: []Posting{{Doc: 0, TF: 1}}}}},
		{"tab in term", "is empty or holds a tab", []TermPostings{{Term: "a\tb", Postings: []Posting{{Doc: 0, TF: 1}}}}},
		{"terms out of order", "terms must be sorted and unique", []TermPostings{{Term: "b", Postings: []Posting{{TF: 1}}}, {Term: "a", Postings: []Posting{{TF: 1}}}}},
		{"repeated term", "terms must be sorted and unique", []TermPostings{{Term: "a", Postings: []Posting{{TF: 1}}}, {Term: "a", Postings: []Posting{{Doc: 1, TF: 1}}}}},
		{"items going back", "postings must be sorted by item then field", []TermPostings{{Term: "a", Postings: []Posting{{Doc: 5, TF: 1}, {Doc: 3, TF: 1}}}}},
		{"fields going back", "postings must be sorted by item then field", []TermPostings{{Term: "a", Postings: []Posting{{Doc: 5, Field: 2, TF: 1}, {Doc: 5, Field: 1, TF: 1}}}}},
		{"negative item", "items are 0 or more", []TermPostings{{Term: "a", Postings: []Posting{{Doc: -1, TF: 1}}}}},
		{"zero frequency", "frequencies 1 or more", []TermPostings{{Term: "a", Postings: []Posting{{Doc: 0, TF: 0}}}}},
	} {
		if _, _, err := EncodePostings(c.terms); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want one saying %q", c.name, err, c.msg)
		}
	}
}
