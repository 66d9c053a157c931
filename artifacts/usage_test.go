package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sampleUsage is usage.tsv as the usage stage produces it: every term,
// sorted by id, each one's uses most first and ties by path.
var sampleUsage = []TermUsage{
	{Term: "allowlist", Total: 6, Uses: []Use{
		{Path: "docs/b.md", Count: 3},
		{Path: "README.md", Count: 1},
		{Path: "blog/café.md", Count: 1},
		{Path: "docs/a.md", Count: 1},
	}},
	{Term: "api-key", Total: 0},
	{Term: "harbor", Total: 12, Uses: []Use{{Path: "docs/日本語.md", Count: 12}}},
	{Term: "push-token", Total: 0},
	{Term: "whitelist", Total: 2, Uses: []Use{{Path: "docs/api/tokens.md", Count: 1}, {Path: "docs/b.md", Count: 1}}},
}

const sampleUsageText = "#cairn usage v7\tterm\tpath\tcount\n" +
	"allowlist\t.\t6\n" +
	"allowlist\tdocs/b.md\t3\n" +
	"allowlist\tREADME.md\t1\n" +
	"allowlist\tblog/café.md\t1\n" +
	"allowlist\tdocs/a.md\t1\n" +
	"api-key\t.\t0\n" +
	"harbor\t.\t12\n" +
	"harbor\tdocs/日本語.md\t12\n" +
	"push-token\t.\t0\n" +
	"whitelist\t.\t2\n" +
	"whitelist\tdocs/api/tokens.md\t1\n" +
	"whitelist\tdocs/b.md\t1\n"

func TestUsageRoundTrip(t *testing.T) {
	data := must(EncodeUsage(sampleUsage))
	if string(data) != sampleUsageText {
		t.Fatalf("usage.tsv:\n got %q\nwant %q", data, sampleUsageText)
	}
	got, err := DecodeUsage(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleUsage, got); diff != "" {
		t.Errorf("Decode(Encode(x)) (-want +got):\n%s", diff)
	}
	if again := must(EncodeUsage(got)); !bytes.Equal(again, data) {
		t.Errorf("Encode(Decode(b)) != b:\n%s\n---\n%s", data, again)
	}
}

// TestEncodeUsageSorts: the encoder owns the order, whatever order the
// terms and uses come in.
func TestEncodeUsageSorts(t *testing.T) {
	shuffled := []TermUsage{sampleUsage[4], sampleUsage[1], sampleUsage[0], sampleUsage[3], sampleUsage[2]}
	shuffled[2].Uses = []Use{sampleUsage[0].Uses[3], sampleUsage[0].Uses[1], sampleUsage[0].Uses[0], sampleUsage[0].Uses[2]}
	if got := must(EncodeUsage(shuffled)); string(got) != sampleUsageText {
		t.Errorf("usage.tsv of shuffled rows:\n got %q\nwant %q", got, sampleUsageText)
	}
	if shuffled[2].Uses[0].Path != "docs/a.md" || shuffled[0].Term != "whitelist" {
		t.Errorf("EncodeUsage reordered its caller's slices")
	}
	SortUsage(shuffled)
	if diff := cmp.Diff(sampleUsage, shuffled); diff != "" {
		t.Errorf("SortUsage (-want +got):\n%s", diff)
	}
	empty := must(EncodeUsage(nil))
	if string(empty) != "#cairn usage v7\tterm\tpath\tcount\n" {
		t.Errorf("empty usage.tsv = %q", empty)
	}
	if rows, err := DecodeUsage(empty); rows != nil || err != nil {
		t.Errorf("DecodeUsage(empty) = %v, %v", rows, err)
	}
}

func TestEncodeUsageRefusesUndecodableRows(t *testing.T) {
	for _, c := range []struct {
		name  string
		terms []TermUsage
	}{
		{"empty id", []TermUsage{{Term: ""}}},
		{"id with a tab", []TermUsage{{Term: "a\tb"}}},
		{"id with a newline", []TermUsage{{Term: "a\nb"}}},
		{"repeated id", []TermUsage{{Term: "a"}, {Term: "a"}}},
		{"total path", []TermUsage{{Term: "a", Total: 1, Uses: []Use{{Path: ".", Count: 1}}}}},
		{"empty path", []TermUsage{{Term: "a", Total: 1, Uses: []Use{{Path: "", Count: 1}}}}},
		{"path with CR", []TermUsage{{Term: "a", Total: 1, Uses: []Use{{Path: "a\r.md", Count: 1}}}}},
		{"zero count", []TermUsage{{Term: "a", Uses: []Use{{Path: "a.md", Count: 0}}}}},
		{"repeated path", []TermUsage{{Term: "a", Total: 3, Uses: []Use{{Path: "a.md", Count: 1}, {Path: "b.md", Count: 1}, {Path: "a.md", Count: 1}}}}},
		{"wrong total", []TermUsage{{Term: "a", Total: 2, Uses: []Use{{Path: "a.md", Count: 1}}}}},
		{"too large", []TermUsage{{Term: "a", Total: maxUsageCount, Uses: []Use{{Path: "a.md", Count: maxUsageCount}, {Path: "b.md", Count: maxUsageCount}}}}},
	} {
		if data, err := EncodeUsage(c.terms); err == nil {
			t.Errorf("%s: EncodeUsage wrote %q instead of refusing", c.name, data)
		}
	}
}

func TestDecodeUsageCorrupt(t *testing.T) {
	const hdr = "#cairn usage v7\tterm\tpath\tcount\n"
	cases := []struct {
		name, data string
		line       int
		msg        string
	}{
		{"two columns", hdr + "a\t.\n", 2, "row is not term TAB path TAB count"},
		{"four columns", hdr + "a\t.\t0\t1\n", 2, "row is not term TAB path TAB count"},
		{"empty term", hdr + "\t.\t0\n", 2, "row is not term TAB path TAB count"},
		{"empty path", hdr + "a\t\t0\n", 2, "row is not term TAB path TAB count"},
		{"blank line", hdr + "a\t.\t0\n\n", 3, "row is not term TAB path TAB count"},
		{"CR inside", hdr + "a\tx\ry\t0\n", 2, "the row holds a CR, which no term id or path written by cairn does"},
		{"signed count", hdr + "a\t.\t+1\na\tx.md\t1\n", 2, `count "+1" is not a decimal count`},
		{"leading zero", hdr + "a\t.\t01\n", 2, `count "01" is not a decimal count`},
		{"count not a number", hdr + "a\t.\t1e3\n", 2, `count "1e3" is not a decimal count`},
		{"count too long", hdr + "a\t.\t1000000000000000000\n", 2, `count "1000000000000000000" is not a decimal count`},
		{"no totals row", hdr + "a\tx.md\t1\n", 2, `term "a" starts without its totals row (path .)`},
		{"terms out of order", hdr + "b\t.\t0\na\t.\t0\n", 3, `term "a" does not sort after "b"`},
		{"term repeated", hdr + "a\t.\t0\nb\t.\t0\na\t.\t0\n", 4, `term "a" does not sort after "b"`},
		{"second totals row", hdr + "a\t.\t1\na\tx.md\t1\na\t.\t1\n", 4, `term "a" has a second totals row`},
		{"zero use", hdr + "a\t.\t0\na\tx.md\t0\n", 3, `term "a": x.md has count 0; files that do not use a term have no row`},
		{"uses by path only", hdr + "a\t.\t3\na\tx.md\t1\na\ty.md\t2\n", 4, `term "a": y.md does not sort after x.md (most uses first, then by path)`},
		{"tie out of path order", hdr + "a\t.\t2\na\ty.md\t1\na\tx.md\t1\n", 4, `term "a": x.md does not sort after y.md (most uses first, then by path)`},
		{"path repeated", hdr + "a\t.\t5\na\tx.md\t3\na\ty.md\t1\na\tx.md\t1\n", 5, `term "a": x.md has a second row`},
		{"total too small", hdr + "a\t.\t1\na\tx.md\t2\nb\t.\t0\n", 2, `term "a": total 1 but its rows add up to 2; the file is truncated or edited`},
		{"total too large at the end", hdr + "a\t.\t0\nb\t.\t3\nb\tx.md\t2\n", 3, `term "b": total 3 but its rows add up to 2; the file is truncated or edited`},
		{"counts overflow", hdr + "a\t.\t0\na\tx.md\t999999999999999999\na\ty.md\t999999999999999999\n", 4, `term "a": the counts add up to more than 999999999999999999`},
		{"CRLF", hdr + "a\t.\t0\r\n", 2, "the line ends with CR; artifacts use LF line endings"},
		{"no final LF", hdr + "a\t.\t0", 2, "last line has no LF; the file is truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeUsage([]byte(c.data))
			if err == nil {
				t.Fatal("accepted")
			}
			ce := asCorrupt(t, err, UsagePath)
			if ce.Line != c.line || ce.Msg != c.msg {
				t.Errorf("got line %d %q, want line %d %q", ce.Line, ce.Msg, c.line, c.msg)
			}
		})
	}
}

func TestDecodeUsageHeaders(t *testing.T) {
	hdr, body, _ := strings.Cut(sampleUsageText, "\n")
	for _, h := range []string{
		strings.Replace(hdr, fmt.Sprintf(" v%d\t", FormatVersion), fmt.Sprintf(" v%d\t", FormatVersion+1), 1),
		hdr + "\textra",
		hdr[:strings.LastIndexByte(hdr, '\t')],
		hdr + "\r",
		"#cairn edges v7\tsrc\tkind=dst...",
	} {
		_, err := DecodeUsage([]byte(h + "\n" + body))
		if ce := asCorrupt(t, err, UsagePath); ce.Line != 1 {
			t.Errorf("header %q: line %d, want 1", h, ce.Line)
		}
	}
	for _, other := range tsvArtifacts(t) {
		if _, err := DecodeUsage(other.data); err == nil {
			t.Errorf("DecodeUsage accepted %s", other.path)
		}
		if _, err := other.decode([]byte(sampleUsageText)); err == nil {
			t.Errorf("the decoder of %s accepted usage.tsv", other.path)
		}
	}
}

// TestUsageTruncated cuts usage.tsv at every byte. Totals rows make a cut
// inside a term's section corrupt; only a cut between two sections gives a
// shorter valid file, holding the sections before the cut.
func TestUsageTruncated(t *testing.T) {
	data := []byte(sampleUsageText)
	// between[i] is where section i starts; the last is the end of file.
	var between []int
	for at := bytes.IndexByte(data, '\n') + 1; at < len(data); at += bytes.IndexByte(data[at:], '\n') + 1 {
		if _, rest, _ := bytes.Cut(data[at:], []byte{'\t'}); bytes.HasPrefix(rest, []byte(".\t")) {
			between = append(between, at)
		}
	}
	between = append(between, len(data))
	if len(between) != len(sampleUsage)+1 {
		t.Fatalf("found %d section starts, want %d", len(between)-1, len(sampleUsage))
	}
	for cut := 0; cut < len(data); cut++ {
		rows, err := DecodeUsage(data[:cut])
		sections := slices.Index(between, cut)
		if sections < 0 {
			if err == nil {
				t.Errorf("cut at %d: decoded %d terms, want a *CorruptError", cut, len(rows))
			} else {
				asCorrupt(t, err, UsagePath)
			}
			continue
		}
		if err != nil {
			t.Errorf("cut at %d (between sections): %v", cut, err)
			continue
		}
		if diff := cmp.Diff(sampleUsage[:sections], rows, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("cut at %d (-want +got):\n%s", cut, diff)
		}
	}
}

func TestLookupUsage(t *testing.T) {
	data := must(EncodeUsage(sampleUsage))
	for _, want := range sampleUsage {
		for _, limit := range []int{-1, 0, 1, 2, 10} {
			got, found, err := LookupUsage(data, want.Term, limit)
			if err != nil || !found {
				t.Fatalf("LookupUsage(%q, %d) = %v, %v", want.Term, limit, found, err)
			}
			top := want.Uses
			if limit >= 0 && limit < len(top) {
				top = top[:limit]
			}
			w := UsageSummary{Total: want.Total, Files: len(want.Uses), Top: top}
			if diff := cmp.Diff(w, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("LookupUsage(%q, %d) (-want +got):\n%s", want.Term, limit, diff)
			}
		}
	}
	for _, missing := range []string{"", "a", "allowlis", "allowlist0", "b", "push", "zzz", "whitelists"} {
		got, found, err := LookupUsage(data, missing, -1)
		if err != nil || found || got.Total != 0 || got.Files != 0 || got.Top != nil {
			t.Errorf("LookupUsage(%q) = %+v, %v, %v; want not found", missing, got, found, err)
		}
	}
	if _, found, err := LookupUsage(must(EncodeUsage(nil)), "harbor", 3); found || err != nil {
		t.Errorf("LookupUsage in an empty file = %v, %v", found, err)
	}
}

// TestLookupUsageCorrupt: a lookup checks the section it reads and names
// the line in the whole file, not in the part it read.
func TestLookupUsageCorrupt(t *testing.T) {
	broken := strings.Replace(sampleUsageText, "whitelist\t.\t2\n", "whitelist\t.\t5\n", 1)
	_, _, err := LookupUsage([]byte(broken), "whitelist", 1)
	if ce := asCorrupt(t, err, UsagePath); ce.Line != 11 || !strings.Contains(ce.Msg, "total 5 but its rows add up to 2") {
		t.Errorf("got line %d %q, want line 11 and the total", ce.Line, ce.Msg)
	}
	unsorted := strings.Replace(sampleUsageText, "harbor\tdocs/日本語.md\t12\n", "harbor\tdocs/日本語.md\t12\nharbor\tdocs/x.md\t13\n", 1)
	_, _, err = LookupUsage([]byte(unsorted), "harbor", 1)
	if ce := asCorrupt(t, err, UsagePath); ce.Line != 10 {
		t.Errorf("got line %d %q, want line 10", ce.Line, ce.Msg)
	}
	truncated := sampleUsageText[:len(sampleUsageText)-1]
	_, _, err = LookupUsage([]byte(truncated), "whitelist", -1)
	if ce := asCorrupt(t, err, UsagePath); ce.Line != 13 {
		t.Errorf("truncated: got line %d %q, want line 13", ce.Line, ce.Msg)
	}
	if _, _, err := LookupUsage([]byte("#cairn usage v9\tterm\tpath\tcount\n"), "a", 1); err == nil {
		t.Errorf("LookupUsage accepted another version's header")
	}
}

func FuzzDecodeUsage(f *testing.F) {
	f.Add([]byte(sampleUsageText))
	f.Add([]byte("#cairn usage v7\tterm\tpath\tcount\na\t.\t0\n"))
	f.Add([]byte("#cairn usage v7\tterm\tpath\tcount\na\t.\t2\na\tx\t1\na\ty\t1\nb\t.\t0\n"))
	f.Add([]byte("#cairn usage v7\tterm\tpath\tcount\na\t.\t2\na\tx\t2\na\tx\t0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := DecodeUsage(data)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != UsagePath || ce.Line < 1 {
				t.Fatalf("error %v (%T), want a *CorruptError on %s with a line", err, err, UsagePath)
			}
			return
		}
		// Every accepted file is in the one form the encoder writes.
		enc, err := EncodeUsage(rows)
		if err != nil {
			t.Fatalf("decoded rows %+v do not encode: %v", rows, err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatalf("Encode(Decode(b)) != b:\n%q\n%q", data, enc)
		}
		for _, r := range rows {
			got, found, err := LookupUsage(data, r.Term, -1)
			if err != nil || !found || got.Total != r.Total || got.Files != len(r.Uses) || !cmp.Equal(got.Top, r.Uses) {
				t.Fatalf("LookupUsage(%q) = %+v, %v, %v; decoded %+v", r.Term, got, found, err, r)
			}
		}
	})
}
