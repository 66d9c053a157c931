package artifacts

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var sampleDocuments = []Document{
	{Path: "events/2026-11-02/github.json", Layer: "events", Source: "github", Date: "2026-11-02", Records: 12, First: 0, Flags: "created,shared",
		Relations: []string{"author", "repo"}, Fields: map[string][]string{"id": {".number"}, "title": {".title"}}},
	{Path: "events/2026-11-02/mail.json", Layer: "events", Source: "mail", Date: "2026-11-02", Records: 0, First: -1,
		Fields: map[string][]string{"id": {".id"}, "title": {".subject", ".topic"}}},
	{Path: "events/2026-11-03/github.json", Layer: "events", Source: "github", Date: "2026-11-03", Records: 3, First: 12,
		Relations: []string{"author", "repo"}, Fields: map[string][]string{"id": {".number"}, "title": {".title"}}},
	{Path: "index/people.json", Layer: "index", Source: "people", Records: 140, First: 40,
		Fields: map[string][]string{"id": {".uri"}, "title": {".name"}}},
}

// TestDocumentsRoundTrip: documents.tsv decodes to what was encoded, and
// encodes again to the same bytes; rows of one fields map share it.
func TestDocumentsRoundTrip(t *testing.T) {
	data := EncodeDocuments(sampleDocuments)
	got, err := DecodeDocuments(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleDocuments, got); diff != "" {
		t.Errorf("DecodeDocuments(EncodeDocuments(x)) (-want +got):\n%s", diff)
	}
	if again := EncodeDocuments(got); !bytes.Equal(again, data) {
		t.Errorf("EncodeDocuments(DecodeDocuments(b)) != b:\n%s\n---\n%s", data, again)
	}
	// The two github rows are not next to each other: the map is shared
	// through the decoder's table, not only from the row before.
	if first, third := got[0].Fields["id"], got[2].Fields["id"]; &first[0] != &third[0] {
		t.Error("two rows of one fields map decoded two maps")
	}
	if got[0].Relations[0] != "author" || &got[0].Relations[0] != &got[2].Relations[0] {
		t.Error("two rows of one relations column decoded two slices")
	}
}

func TestDecodeDocumentsErrors(t *testing.T) {
	hdr := documentsHeader
	for _, c := range []struct{ name, row, msg string }{
		{"eight columns", "a.json\tevents\ta\t-\t1\t0\t-\t-\n", "row has 8 columns, want 9"},
		{"records signed", "a.json\tevents\ta\t-\t+1\t0\t-\t-\t{}\n", `records "+1" is not a count`},
		{"records empty", "a.json\tevents\ta\t-\t\t0\t-\t-\t{}\n", `records "" is not a count`},
		{"records past 2^31", "a.json\tevents\ta\t-\t2147483648\t0\t-\t-\t{}\n", `records "2147483648" is not a count`},
		{"first past ten digits", "a.json\tevents\ta\t-\t1\t12345678901\t-\t-\t{}\n", `first "12345678901" is not an ordinal`},
		{"first not an ordinal", "a.json\tevents\ta\t-\t1\t-\t-\t-\t{}\n", `first "-" is not an ordinal`},
		{"first of no records", "a.json\tevents\ta\t-\t0\t5\t-\t-\t{}\n", `first "5" of a document without records is not -`},
		{"fields not JSON", "a.json\tevents\ta\t-\t1\t0\t-\t-\t{id}\n", "fields is not a JSON object of path lists: invalid character 'i' looking for beginning of object key string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeDocuments([]byte(hdr + c.row))
			ce := asCorrupt(t, err, DocumentsPath)
			if ce.Line != 2 || ce.Msg != c.msg {
				t.Errorf("got line %d %q, want line 2 %q", ce.Line, ce.Msg, c.msg)
			}
		})
	}
}
