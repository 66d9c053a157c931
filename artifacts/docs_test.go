package artifacts

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sampleDocs are realistic docs.tsv rows, sorted by URI: records with spans,
// pages without, unicode URIs, empty flags and lengths, one-sided validity.
// sampleOrigins are the record documents of sampleDocs, as documents.tsv
// would give them.
var sampleOrigins = OriginsOf([]Document{
	{Path: "index/people.json", Layer: "index", Source: "people", Records: 1, First: 2}, // out of order: OriginsOf sorts them
	{Path: "events/2026-11-02/github.json", Layer: "events", Source: "github", Date: "2026-11-02", Records: 1, First: 0, Flags: "created,shared"},
	{Path: "events/2026-11-02/mail.json", Layer: "events", Source: "mail", Date: "2026-11-02", Records: 1, First: 1, Flags: "private,received"},
	{Path: "events/2026-11-02/empty.json", Layer: "events", Source: "mail", Date: "2026-11-02", First: -1},
})

var sampleDocs = []Doc{
	{
		URI: "events/2026-11-02/github.json#HAR-142", Kind: "events", Source: "github",
		Date: "2026-11-02", Time: "2026-11-02T09:14:00Z",
		Flags: []string{"created", "shared"}, SourceFlags: "created,shared",
		Lengths: []FieldLen{{Field: 0, N: 3}, {Field: 2, N: 12}, {Field: 5, N: 0}},
		Digest:  "0123456789abcdef", SpanOff: 312, SpanLen: 148,
		URLKey: "a1b2c3d4e5f60718", Title: "Fix the arm64 build (HAR-142)",
	},
	{
		URI: "events/2026-11-02/mail.json#caf%C3%A9%20cr%C3%A8me", Kind: "events", Source: "mail",
		Date: "2026-11-02", Time: "2026-11-02T23:59:59.5Z",
		Flags: []string{"private", "received", "superseded"}, SourceFlags: "private,received",
		Digest: "fedcba9876543210", SpanOff: 0, SpanLen: 0,
	},
	{
		URI: "index/people.json#person:email/ma%C3%AFa@x.test", Kind: "index", Source: "people",
		Lengths: []FieldLen{{Field: 1, N: 1}},
		Digest:  "00000000000000ff", SpanOff: 98765432109, SpanLen: 7,
	},
	{
		URI: "wiki/café-crème.md", Kind: "wiki", Source: "wiki",
		Date: "2026-01-05", ValidFrom: "2026-01-01",
		Flags:   []string{"superseded"},
		Lengths: []FieldLen{{Field: 3, N: 2}, {Field: 4, N: 120}},
		Digest:  "1111111111111111", SpanOff: -1, Title: "Café crème ☕",
	},
	{
		URI: "wiki/日本語/索引.md", Kind: "wiki", Source: "wiki",
		ValidUntil: "2027-01-01",
		Digest:     "2222222222222222", SpanOff: -1,
	},
	{URI: "wiki/𝔘nicode.md", Kind: "wiki", Source: "wiki", ValidFrom: "2026-01-01", ValidUntil: "2026-12-31", SpanOff: -1},
}

// sampleFieldCount is the field count sampleDocs's lengths name.
const sampleFieldCount = 6

// keysOf makes plausible keys for rows: package project computes the real
// ones, which this package only encodes and decodes.
func keysOf(rows []Doc, fields int) []Key {
	keys := make([]Key, len(rows))
	for i, d := range rows {
		k := Key{Chrono: uint32(len(rows) - 1 - i), Source: uint32(i % 3), TitleGroup: -1, URLGroup: -1,
			OwnID: uint32(i) * 0x9e3779b9, OwnURI: ^uint32(i), Digest: 0x0123456789abcdef ^ uint64(i), Norms: make([]byte, fields)}
		if d.Date != "" {
			k.Day = 20260000 + int32(i%12+1)*100 + int32(i%28+1)
			k.Flags |= KeyDated
		}
		if d.Title != "" {
			k.TitleGroup = int32(i)
			k.TitleTerms = uint32(i+1) << 20
		}
		if d.URLKey != "" {
			k.URLGroup = 0
		}
		if d.SpanOff >= 0 {
			k.Flags |= KeyRecord
			k.HalfLife = 14
		}
		for _, l := range d.Lengths {
			if int(l.Field) < fields {
				k.Norms[l.Field] = byte(min(l.N, MaxNorm))
			}
		}
		keys[i] = k
	}
	return keys
}

func encodeDocs(t testing.TB, rows []Doc, fields int) (docs, key []byte) {
	t.Helper()
	docs, key, err := EncodeDocs(rows, keysOf(rows, fields), fields)
	if err != nil {
		t.Fatal(err)
	}
	return docs, key
}

// noLengths compares rows as docs.tsv holds them: without their lengths,
// which docs.key's norms stand for, and their digest, which docs.key holds.
var noLengths = cmpopts.IgnoreFields(Doc{}, "Lengths", "Digest")

func TestDocsRoundTrip(t *testing.T) {
	keys := keysOf(sampleDocs, sampleFieldCount)
	docs, key, err := EncodeDocs(sampleDocs, keys, sampleFieldCount)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeDocs(docs, sampleOrigins)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleDocs, got, noLengths); diff != "" {
		t.Errorf("DecodeDocs(EncodeDocs(x)) differs (-want +got):\n%s", diff)
	}
	for _, d := range got {
		if d.Lengths != nil || d.Digest != "" {
			t.Errorf("%s: decoded lengths %v and digest %q; docs.tsv holds neither", d.URI, d.Lengths, d.Digest)
		}
	}
	docs2, key2, err := EncodeDocs(got, keys, sampleFieldCount)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docs, docs2) {
		t.Errorf("EncodeDocs(DecodeDocs(b)) != b:\n%s\n---\n%s", docs, docs2)
	}
	if !bytes.Equal(key, key2) {
		t.Errorf("docs.key differs after a round trip")
	}
}

func TestDocsEmptyTable(t *testing.T) {
	docs, key := encodeDocs(t, nil, 0)
	if want := "#cairn docs v7\turi\tkind\tsource\tdate\ttime\tvalid\tflags\tspan\turlkey\ttitle\n"; string(docs) != want {
		t.Errorf("docs.tsv = %q, want %q", docs, want)
	}
	if want := "#cairn docs.key v7 width 79" + strings.Repeat(" ", 51) + "\n"; string(key) != want {
		t.Errorf("docs.key = %q, want %q", key, want)
	}
	rows, err := DecodeDocs(docs, Origins{})
	if err != nil || rows != nil {
		t.Errorf("DecodeDocs(empty) = %v, %v; want nil, nil", rows, err)
	}
}

func TestDocsExactBytes(t *testing.T) {
	rows := []Doc{
		{URI: "events/2026-11-02/github.json#HAR-142", Kind: "events", Source: "github", Date: "2026-11-02",
			Time: "2026-11-02T09:14:00Z", Flags: []string{"created", "shared"},
			Lengths: []FieldLen{{0, 3}, {2, 12}}, Digest: "0123456789abcdef", SpanOff: 312, SpanLen: 148,
			Title: "Fix\tthe build"},
		{URI: "wiki/café.md", Kind: "wiki", Source: "wiki", ValidUntil: "2027-01-01", SpanOff: -1, URLKey: "00000000000000aa"},
	}
	keys := []Key{
		{Offset: 999, Chrono: 0, Day: 20261102, Source: 0, HalfLife: 14, Flags: KeyCreated | KeyRecord | KeyID | KeyDated,
			TitleGroup: 0, TitleTerms: 0xfedcba98, URLGroup: -1, OwnID: 0xdeadbeef, OwnURI: 0x1, Digest: 0x0123456789abcdef,
			Norms: []byte{2, 0, 4}},
		{Chrono: 1, Source: 1, Flags: KeyPage | KeyBounded, TitleGroup: -1, URLGroup: 1, OwnURI: 0xffffffff, Norms: []byte{0, 31, 0}},
	}
	docs, key, err := EncodeDocs(rows, keys, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "#cairn docs v7\turi\tkind\tsource\tdate\ttime\tvalid\tflags\tspan\turlkey\ttitle\n" +
		"#HAR-142\t\t\t\tT09:14:00Z\t-\tcreated,shared\t312+148\t-\tFix the build\n" +
		"wiki/café.md\twiki\twiki\t-\t-\t..2027-01-01\t-\t-\t00000000000000aa\t-\n"
	if string(docs) != want {
		t.Errorf("docs.tsv:\n got %q\nwant %q", docs, want)
	}
	// The offsets are the encoder's (71 and 135), whatever the keys said.
	// Columns in order: offset, chrono, day, source, halflife, flags,
	// tgroup, tterms, ugroup, ownid, ownuri, digest, norms.
	wantKey := "#cairn docs.key v7 width 81" + strings.Repeat(" ", 53) + "\n" +
		"00000027" + "000000" + "0jaa7e" + "0000" + "000e" + "701" + "000000" + "3vdpeko" + "------" + "3farfnf" + "0000001" + "028q5cu4qnjff" + "204\n" +
		"00000047" + "000001" + "------" + "0001" + "0000" + "880" + "------" + "0000000" + "000001" + "0000000" + "3vvvvvv" + "0000000000000" + "0v0\n"
	if string(key) != wantKey {
		t.Errorf("docs.key:\n got %q\nwant %q", key, wantKey)
	}
}

// TestDocsKeyFetchesEachRow reads every ordinal the way a query does: the
// fixed-width key line, then the row at the offset it starts with.
func TestDocsKeyFetchesEachRow(t *testing.T) {
	keys := keysOf(sampleDocs, sampleFieldCount)
	docs, key, err := EncodeDocs(sampleDocs, keys, sampleFieldCount)
	if err != nil {
		t.Fatal(err)
	}
	width := KeyWidth(sampleFieldCount)
	if want := width * (len(sampleDocs) + 1); len(key) != want {
		t.Fatalf("len(docs.key) = %d, want %d", len(key), want)
	}
	var kd KeyDecoder
	for i, want := range sampleDocs {
		line := key[(i+1)*width : (i+2)*width]
		at, err := KeyOffset(line)
		if err != nil {
			t.Fatalf("ordinal %d: %v", i, err)
		}
		if docs[at-1] != '\n' {
			t.Errorf("ordinal %d: offset %d is not at a line start", i, at)
		}
		rest := docs[at:]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			t.Fatalf("ordinal %d: no LF after offset %d", i, at)
		}
		got, err := DecodeDocRow(i+2, rest[:end], sampleOrigins)
		if err != nil {
			t.Fatalf("ordinal %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got, noLengths); diff != "" {
			t.Errorf("ordinal %d (-want +got):\n%s", i, diff)
		}
		k, err := kd.Decode(i+2, line, sampleFieldCount)
		if err != nil {
			t.Fatalf("ordinal %d: %v", i, err)
		}
		wantKey := keys[i]
		wantKey.Offset = at
		if diff := cmp.Diff(wantKey, k); diff != "" {
			t.Errorf("ordinal %d key (-want +got):\n%s", i, diff)
		}
	}
}

func TestDecodeDocRowErrors(t *testing.T) {
	good := strings.Split("wiki/a.md\twiki\twiki\t-\t-\t-\t-\t-\t-\tA page", "\t")
	record := strings.Split("#a\t\t\t\tT10:00:00Z\t-\t-\t0+9\t-\t-", "\t")
	with := func(col int, v string) string {
		c := slices.Clone(good)
		c[col] = v
		return strings.Join(c, "\t")
	}
	withSpan := func(v string) string {
		c := slices.Clone(record)
		c[7] = v
		return strings.Join(c, "\t")
	}
	// A row is read as line 7 (ordinal 5, past the records) or as line 3
	// (ordinal 1, mail.json's record).
	cases := []struct {
		name, row, msg string
		line           int // 7 when 0
	}{
		{"nine columns", strings.Join(good[:9], "\t"), "row has 9 columns, want 10", 0},
		{"eleven columns (a digest column)", with(7, "0123456789abcdef\t-"), "row has 11 columns, want 10", 0},
		{"validity without dots", with(5, "2026-01-01"), `validity "2026-01-01" is not from..until`, 0},
		{"span not a number", withSpan("12+x"), `span "12+x" is not offset+length`, 0},
		{"span without plus", withSpan("12"), `span "12" is not offset+length`, 0},
		{"negative span", withSpan("-5+3"), `span "-5+3" is not offset+length`, 0},
		{"empty span cell", withSpan(""), `column 8 is empty; empty values are written as -`, 0},
		{"a page's kind left empty", with(1, ""), `column 2 is empty; empty values are written as -`, 0},
		{"a record's kind written", "#a\tevents\t\t\t-\t-\t-\t0+9\t-\t-",
			"column 2 of a record's row is not empty; its kind, source and date are its document's, in documents.tsv", 3},
		{"a record's date written", "#a\t\t\t2026-11-02\t-\t-\t-\t0+9\t-\t-",
			"column 4 of a record's row is not empty; its kind, source and date are its document's, in documents.tsv", 3},
		{"a record's URI written whole", "events/2026-11-02/mail.json#a\t\t\t\t-\t-\t-\t0+9\t-\t-",
			`record "events/2026-11-02/mail.json#a" does not name its URI from #; its document's path is in documents.tsv`, 3},
		{"a record of no document", "#a\t\t\t\t-\t-\t-\t0+9\t-\t-",
			"record 5: documents.tsv has no document whose records hold it", 0},
		{"a record's flags written as its document's", "#a\t\t\t\t-\t-\tprivate,received\t0+9\t-\t-",
			`flags "private,received" are the ones its document gives; the cell is left empty`, 3},
		{"a record's flags left to a document of none", "#a\t\t\t\t-\t-\t\t0+9\t-\t-",
			"the flags of a record whose document gives none are empty; no flags are written as -", 4},
		{"a record's time left to a document of no date", "#a\t\t\t\tT10:00:00Z\t-\t-\t0+9\t-\t-",
			`time "T10:00:00Z" leaves its date to a document that has none`, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := c.line
			if line == 0 {
				line = 7
			}
			_, err := DecodeDocRow(line, []byte(c.row), sampleOrigins)
			ce := asCorrupt(t, err, DocsPath)
			if ce.Line != line || ce.Msg != c.msg {
				t.Errorf("got line %d %q, want line %d %q", ce.Line, ce.Msg, line, c.msg)
			}
		})
	}
	if _, err := DecodeDocRow(2, []byte(strings.Join(good, "\t")), Origins{}); err != nil {
		t.Errorf("the good row does not decode: %v", err)
	}
	d, err := DecodeDocRow(3, []byte(strings.Join(record, "\t")), sampleOrigins)
	if err != nil || d.URI != "events/2026-11-02/mail.json#a" || d.Kind != "events" || d.Source != "mail" || d.Date != "2026-11-02" || d.Time != "2026-11-02T10:00:00Z" {
		t.Errorf("the good record's row decodes to %+v, %v; want its document's path, kind, source, date and the date of its time", d, err)
	}
}

// TestRecordRowsNameTheirDocument: a record's row holds its URI from #,
// a time on its document's date from T and no flags when they are the
// ones its source gives, and reads back whole; a time on another date and
// flags of its own are written whole.
func TestRecordRowsNameTheirDocument(t *testing.T) {
	d := Doc{URI: "events/2026-11-02/mail.json#m-1", Kind: "events", Source: "mail", Date: "2026-11-02",
		Time: "2026-11-02T08:00:00Z", SpanOff: 10, SpanLen: 20, Title: "Hello",
		Flags: []string{"private", "received"}, SourceFlags: "private,received"}
	other := d
	other.Time = "2026-11-01T23:30:00Z" // the evening before, in another zone
	shared := d
	shared.Flags = []string{"received", "shared"} // its own visibility
	none := d
	none.Flags = nil
	for _, c := range []struct {
		d   Doc
		row string
	}{
		{d, "#m-1\t\t\t\tT08:00:00Z\t-\t\t10+20\t-\tHello\n"},
		{other, "#m-1\t\t\t\t2026-11-01T23:30:00Z\t-\t\t10+20\t-\tHello\n"},
		{shared, "#m-1\t\t\t\tT08:00:00Z\t-\treceived,shared\t10+20\t-\tHello\n"},
		{none, "#m-1\t\t\t\tT08:00:00Z\t-\t-\t10+20\t-\tHello\n"},
	} {
		row := string(AppendDocRow(nil, &c.d))
		if row != c.row {
			t.Errorf("row of %s at %s:\n got %q\nwant %q", c.d.URI, c.d.Time, row, c.row)
		}
		got, err := DecodeDocRow(3, []byte(strings.TrimSuffix(row, "\n")), sampleOrigins)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.d, got); diff != "" {
			t.Errorf("the row reads back otherwise (-want +got):\n%s", diff)
		}
	}
}

// TestDecodeDocRowRefusesEmptyCells: the encoder writes - for empty values, so
// an empty cell is corruption.
func TestDecodeDocRowRefusesEmptyCells(t *testing.T) {
	row := "wiki/a.md\twiki\twiki\t-\t-\t-\t\t-\t-\tA"
	_, err := DecodeDocRow(2, []byte(row), Origins{})
	ce := asCorrupt(t, err, DocsPath)
	if want := "column 7 is empty; empty values are written as -"; ce.Msg != want {
		t.Errorf("DecodeDocRow(%q): %q, want %q", row, ce.Msg, want)
	}
}

func FuzzDecodeDocRow(f *testing.F) {
	docs, _ := encodeDocs(f, sampleDocs, sampleFieldCount)
	for _, line := range bytes.Split(docs, []byte{'\n'})[1:] {
		if len(line) > 0 {
			f.Add(line)
		}
	}
	// Ten columns, so that the seeds reach the cell parsers.
	f.Add([]byte("a\t-\t-\t-\t-\t..\t-\t-\t-\t-"))
	f.Add([]byte("a\tb\tc\td\te\tf..g..h\ti,,j\t+1:02\tk\t1++2\tu\tt"))
	f.Add([]byte("\t\t\t\t\t\t\t\t\t\t\t"))
	f.Fuzz(func(t *testing.T, line []byte) {
		d, err := DecodeDocRow(2, line, sampleOrigins)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != DocsPath || ce.Line != 2 {
				t.Fatalf("error %v (%T), want a *CorruptError on %s:2", err, err, DocsPath)
			}
			return
		}
		if bytes.ContainsAny(line, "\n\r") {
			return // no row holds a line break; the encoder would rewrite it
		}
		enc, key := encodeDocs(t, []Doc{d}, 0)
		hdrEnd := bytes.IndexByte(enc, '\n') + 1
		at, err := KeyOffset(key[KeyWidth(0):])
		if err != nil || at != int64(hdrEnd) {
			t.Fatalf("docs.key of one row = %d, %v; want %d", at, err, hdrEnd)
		}
		rows, err := DecodeDocs(enc, sampleOrigins)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", enc, err)
		}
		if diff := cmp.Diff([]Doc{d}, rows); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", line, diff)
		}
		if again, _ := encodeDocs(t, rows, 0); !bytes.Equal(again, enc) {
			t.Fatalf("second encoding %q differs from first %q", again, enc)
		}
	})
}

// TestKeyFieldsAreTheNonZeroNorms: what a splice reads of which fields a
// kept item has, from its key line alone.
func TestKeyFieldsAreTheNonZeroNorms(t *testing.T) {
	keys := keysOf(sampleDocs, sampleFieldCount)
	_, key, err := EncodeDocs(sampleDocs, keys, sampleFieldCount)
	if err != nil {
		t.Fatal(err)
	}
	width := KeyWidth(sampleFieldCount)
	for i, k := range keys {
		var want, got []int
		for f, c := range k.Norms {
			if c > 0 {
				want = append(want, f)
			}
		}
		KeyFields(key[(i+1)*width:(i+2)*width], sampleFieldCount, func(f int) { got = append(got, f) })
		if !slices.Equal(got, want) {
			t.Errorf("%s: KeyFields %v, want %v", sampleDocs[i].URI, got, want)
		}
	}
}
