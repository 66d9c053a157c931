package artifacts

import (
	"bytes"
	"errors"
	"fmt"
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
	got, err := DecodePostings(dict, post)
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
	entries, err := DecodeTerms(dict, int64(len(post)))
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
		{Term: "arm64", Postings: []Posting{{1, 0, 4}, {3, 1, 1}, {3, 2, 2}, {9, 2, 1}, {12, 2, 3}}},
		{Term: "lonely"},
		{Term: "solo", Postings: []Posting{{5, 1, 2}, {5, 3, 1}}},
		{Term: "zeta", Postings: []Posting{{40, 33, 17}, {1064, 33, 1}}},
	})
	// A posting names its field when it differs from the one before it,
	// and an item's next field follows a comma. Numbers end themselves,
	// so postings follow each other without a separator: the last digit
	// is base 32 (0-9a-v) and any before it are base-26 letters A-Z, worth
	// the value div 32 (40 is B8, 33 is B1, 17 is h, 1024 is BG0).
	wantPost := "#cairn postings v7\tpostings\n" +
		"0:2,37:2\n" +
		"1:0x42:1,2x263x3\n" +
		"\n" +
		"B8:B1xhBG0\n"
	if string(post) != wantPost {
		t.Errorf("postings.tsv:\n got %q\nwant %q", post, wantPost)
	}
	// A line's range is offset+length in base 32 (28 is s, 9 is 9, 37 is
	// 15, 17 is h); a term one item holds has no line, and its row holds
	// its postings.
	wantDict := "#cairn terms v7\tterm\tdf\tpostings\n" +
		"=marc@x.test\t2\ts+9\n" +
		"arm64\t4\t15+h\n" +
		"lonely\t0\t1m+1\n" +
		"solo\t1\t5:1x2,3\n" +
		"zeta\t2\t1n+b\n"
	if string(dict) != wantDict {
		t.Errorf("terms.tsv:\n got %q\nwant %q", dict, wantDict)
	}
}

// TestTermRangesDecode reads each term the way a query does: its byte range
// in postings.tsv, named by terms.tsv, or the postings its row holds.
func TestTermRangesDecode(t *testing.T) {
	dict, post := mustEncodePostings(t, samplePostings)
	entries, err := DecodeTerms(dict, int64(len(post)))
	if err != nil {
		t.Fatal(err)
	}
	inline := 0
	for i, e := range entries {
		if e.Inline != "" {
			inline++
			got, err := DecodeInline(e)
			if err != nil || e.DF != 1 || e.Offset != 0 || e.Length != 0 {
				t.Fatalf("%q: %+v, %v", e.Term, e, err)
			}
			if diff := cmp.Diff(samplePostings[i].Postings, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", e.Term, diff)
			}
			continue
		}
		if post[e.Offset-1] != '\n' {
			t.Errorf("%q: its range does not start a line", e.Term)
		}
		rng := post[e.Offset : e.Offset+e.Length]
		got, err := DecodePostingsLine(e.Term, rng)
		if err != nil {
			t.Fatalf("%q: %v", e.Term, err)
		}
		if diff := cmp.Diff(samplePostings[i].Postings, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", e.Term, diff)
		}
		if _, err := DecodePostingsLine(e.Term, post[e.Offset:e.Offset+e.Length-1]); err == nil {
			t.Errorf("%q: a range one byte short decoded", e.Term)
		}
	}
	if inline != 3 { // =acme harbor, crème and the repo, in three fields of one item
		t.Errorf("%d terms of one item hold their postings in their rows, want 3", inline)
	}
}

// TestDecodePostingsChecksRanges: terms.tsv and postings.tsv decoded
// together must agree on where every line starts and ends.
func TestDecodePostingsChecksRanges(t *testing.T) {
	dict, post := mustEncodePostings(t, samplePostings)
	entries, err := DecodeTerms(dict, int64(len(post)))
	if err != nil {
		t.Fatal(err)
	}
	e := entries[1]
	offset := func(v int64) []byte { return append(appendBase32([]byte{'\t'}, uint64(v)), '+') }
	shifted := bytes.Replace(dict, offset(e.Offset), offset(e.Offset+1), 1)
	for _, c := range []struct {
		name, path string
		dict, post []byte
	}{
		{"a line more", PostingsPath, dict, append(slices.Clip(post), "0:1\n"...)},
		{"a line fewer", PostingsPath, dict, post[:bytes.LastIndexByte(post[:len(post)-1], '\n')+1]},
		{"a range shifted", TermsPath, shifted, post},
		{"two lines swapped", TermsPath, swapFirstTwoLines(t, dict), post},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodePostings(c.dict, c.post)
			if err == nil {
				t.Fatal("accepted")
			}
			asCorrupt(t, err, c.path)
		})
	}
}

// swapFirstTwoLines swaps the first two rows of a TSV after its header.
func swapFirstTwoLines(t *testing.T, data []byte) []byte {
	t.Helper()
	rows := bytes.SplitAfter(data, []byte{'\n'})
	if len(rows) < 4 {
		t.Fatalf("%d rows; want at least 2 after the header", len(rows)-1)
	}
	rows[1], rows[2] = rows[2], rows[1]
	return bytes.Join(rows, nil)
}

// decodePostingLines decodes postings.tsv alone, a line at a time, for the
// format tests that take one file's decoder; a line's name in errors is
// its number.
func decodePostingLines(data []byte) ([][]Posting, error) {
	return decodeRows(PostingsPath, data, postingsHeader, func(n int, line []byte) ([]Posting, error) {
		ps, err := DecodePostingsLine(fmt.Sprint("line ", n), append(line[:len(line):len(line)], '\n'))
		var ce *CorruptError
		if errors.As(err, &ce) {
			ce.Line = n
		}
		return ps, err
	})
}

func TestDecodePostingsLineErrors(t *testing.T) {
	const shape = `" is not delta[:field][xTF] or ,field[xTF] (the first names its field)`
	cases := []struct{ line, msg string }{
		{"", `line does not end with LF`},
		{"0:1", `line does not end with LF`},
		{"arm64\t0:1\n", `posting "arm64\t0:1` + shape},
		{"0\n", `posting "0` + shape},
		{"x:1\n", `posting "x:1` + shape},
		{"0:y\n", `posting "0:y` + shape},
		{"-1:0\n", `posting "-1:0` + shape},
		{"0:-1\n", `posting "0:-1` + shape},
		{"0:1x0\n", `posting "0:1x0` + shape},
		{"0:1x\n", `posting "0:1x` + shape},
		{"0:12x0\n", `posting "2x0` + shape},
		{"0:12:\n", `posting "2:` + shape},
		// A number's last digit ends it: a space is no separator, and
		// letters end in a digit, without a leading A.
		{"0:1 2:0\n", `posting " 2:0` + shape},
		{"0:1\t2:0\n", `posting "\t2:0` + shape},
		{"0:1B\n", `posting "B` + shape},
		{"0:1Ab\n", `posting "Ab` + shape},
		{"0:10\n", `posting "0" repeats its item with a 0 delta; an item's next field follows a comma`},
		{"0:10:2\n", `posting "0:2" repeats its item with a 0 delta; an item's next field follows a comma`},
		{"0:2,1\n", `posting ",1" repeats its item with field 1 after field 2; an item's postings go by rising field`},
		{",1\n", `posting ",1" is the next field of no item; a line starts with delta:field`},
		{"0:1,\n", `posting ",` + shape},
		{"0:1,x2\n", `posting ",x2` + shape},
		{"0:1,2:3\n", `posting ":3` + shape},
	}
	for _, c := range cases {
		_, err := DecodePostingsLine("arm64", []byte(c.line))
		if err == nil {
			t.Errorf("DecodePostingsLine(%q) accepted", c.line)
			continue
		}
		ce := asCorrupt(t, err, PostingsPath)
		if want := `postings of "arm64": ` + c.msg; ce.Msg != want {
			t.Errorf("DecodePostingsLine(%q):\n got %q\nwant %q", c.line, ce.Msg, want)
		}
	}
}

func TestDecodePostingsLineBounds(t *testing.T) {
	ok := []struct {
		line string
		want []Posting
	}{
		// The example of the package documentation.
		{"3:v,B1x29\n", []Posting{{Doc: 3, Field: 31}, {Doc: 3, Field: 33, TF: 2}, {Doc: 12, Field: 33}}},
		// 2^31-1 is FQWFMDv (67108863 in base 26, then 31), 2^16-1 is DATv.
		{"FQWFMDv:DATvxDATv\n", []Posting{{Doc: 2147483647, Field: 65535, TF: 65535}}},
		{"FQWFMDu:01:0\n", []Posting{{Doc: 2147483646}, {Doc: 2147483647}}},
		{"FQWFMDu:71xDATv\n", []Posting{{Doc: 2147483646, Field: 7}, {Doc: 2147483647, Field: 7, TF: 65535}}},
		{"0:0Zv\n", []Posting{{Doc: 0}, {Doc: 831}}},
		{"0:0BA0\n", []Posting{{Doc: 0}, {Doc: 832}}},
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
		"FQWFMDv:01:0\n",
		"FQWFMDv:01\n",
		"FQWFME0:0\n",
		"ZZZZZZZZZZZZZv:0ZZZZZZZZZZZZZv:0\n",
		"0:DAU0\n",
		"0:0xDAU0\n",
		"0:01xDAU0\n",
		"0:0B0x0\n",
		"0:A\n",
		"0:A0\n",
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
		if len(line) > 0 {
			f.Add("t", line)
		}
	}
	f.Add("t", []byte("\n"))
	f.Add("t", []byte("0:0x1 +1:02\n"))
	f.Add("t", []byte("0:0 \n"))
	f.Add("", []byte("1:1\n"))
	f.Add("t", []byte("0:1x2x3\n"))
	f.Add("t", []byte("0:1 4 0:3x2 9x4\n"))
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
