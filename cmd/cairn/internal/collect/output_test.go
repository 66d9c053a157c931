package collect

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

var testDay = dayWindow(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))

var testFields = map[string]model.FieldPaths{"id": {".key"}, "title": {".t"}, "time": {".at"}}

// check parses and validates one command output as an events day.
func check(out string) ([]string, error) {
	recs, offs, err := parseRecords([]byte(out))
	if err != nil {
		return nil, err
	}
	fm, err := compileFields(testFields)
	if err != nil {
		return nil, err
	}
	return recs, checkRecords([]byte(out), recs, offs, fm, model.LayerEvents, testDay)
}

func TestParseRecordsShapes(t *testing.T) {
	for _, out := range []string{
		`[{"key": "A-1", "t": "one", "at": "2026-11-24T10:00:00Z"}]`,
		"{\"records\": [\n  {\"key\": \"A-1\", \"t\": \"one\", \"at\": \"2026-11-24T11:00:00+01:00\"}\n]}\n",
	} {
		recs, err := check(out)
		if err != nil || len(recs) != 1 || !strings.HasPrefix(recs[0], `{"key":"A-1",`) {
			t.Errorf("%q: %v %v", out, recs, err)
		}
	}
	if recs, err := check(`{"records": []}`); err != nil || len(recs) != 0 {
		t.Errorf("an empty day: %v %v", recs, err)
	}
}

func TestParseRecordsErrors(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"", "output line 1, column 1: invalid JSON: unexpected end of JSON input"},
		{"[\n {\"key\": \"A\",}\n]", "output line 2, column 14: invalid JSON: invalid character '}'"},
		{`{"record": []}`, `output line 1, column 2: unknown key "record"`},
		{`{}`, `output line 1, column 1: the object holds no "records"`},
		{`"hello"`, "expected a JSON array of records"},
		{`[1]`, "record 1 is not a JSON object"},
		{`[{"t": "x", "at": "2026-11-24T10:00:00Z"}]`, "record 1 has no id: the id path .key gives nothing"},
		{`[{"key": "A", "at": "2026-11-24T10:00:00Z"}, {"key": "A", "at": "2026-11-24T10:00:00Z"}]`, `record 2 has the id "A" of record 1`},
		{`[{"key": "A"}]`, `record 1 (id "A") has no time`},
		{`[{"key": "A", "at": "2026-11-24 10:00:00"}]`, "the time has no zone"},
		{`[{"key": "A", "at": "2026-11-25T00:00:00Z"}]`, "is outside the window 2026-11-24T00:00:00Z to 2026-11-25T00:00:00Z"},
	} {
		_, err := check(tc.out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.out, err, tc.want)
		}
	}
}

func TestTicketsIn(t *testing.T) {
	got := ticketsIn("Fix FER-12 and #7 (see UTF-8, SHA-256, &#38; and https://x.test/a#9); again FER-12, then ABC-3")
	want := "ticket:FER-12,ticket:#7,ticket:ABC-3"
	if strings.Join(got, ",") != want {
		t.Errorf("ticketsIn = %v, want %s", got, want)
	}
}

// TestDocumentEncode: the envelope's keys come in a fixed order and a
// record a line, so the same records give the same bytes.
func TestDocumentEncode(t *testing.T) {
	d := document{Source: "tickets", Layer: model.LayerEvents, Date: "2026-11-24", Fields: testFields, Window: testDay,
		CollectedAt: time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC), Records: [][]byte{[]byte(`{"key":"A"}`), []byte(`{"key":"B"}`)}}
	want := `{
  "cairn": 1,
  "source": "tickets",
  "layer": "events",
  "date": "2026-11-24",
  "fields": {"id":".key","time":".at","title":".t"},
  "window_start": "2026-11-24T00:00:00Z",
  "window_end": "2026-11-25T00:00:00Z",
  "collected_at": "2026-11-25T03:00:00Z",
  "count": 2,
  "records": [
    {"key":"A"},
    {"key":"B"}
  ]
}
`
	if got := string(d.encode()); got != want {
		t.Errorf("encode:\n%s\nwant:\n%s", got, want)
	}
}

// TestCappedBufferKeepsBytesInBlocks: whatever the sizes of the writes,
// across block boundaries, the kept output is the bytes written, and a
// write that would pass the cap keeps nothing of itself.
func TestCappedBufferKeepsBytesInBlocks(t *testing.T) {
	want := make([]byte, 3*outputBlock+12345)
	for i := range want {
		want[i] = byte(i * 7)
	}
	stopped := false
	b := cappedBuffer{max: len(want) + 10, stop: func() { stopped = true }}
	for rest, size := want, 1; len(rest) > 0; size = size*3 + 1 {
		k := min(size, len(rest))
		if n, err := b.Write(rest[:k]); n != k || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", k, n, err)
		}
		rest = rest[k:]
	}
	if _, err := b.Write(make([]byte, 11)); err == nil || !b.over || !stopped {
		t.Fatalf("a write past the cap: err %v, over %v, stopped %v", err, b.over, stopped)
	}
	if got := b.bytes(); !bytes.Equal(got, want) {
		t.Fatalf("kept %d bytes, not the %d written", len(got), len(want))
	}
}

// TestParseOutputFkfForms: fkf's two other forms of a command's output,
// one record a line and records at a path inside a wrapper, give the same
// records as the array, and their mistakes say where.
func TestParseOutputFkfForms(t *testing.T) {
	want := []string{`{"key":"A-1","t":"one"}`, `{"key":"A-2","t":"two"}`}
	for _, tc := range []struct {
		name string
		s    model.SourcePolicy
		out  string
	}{
		{"ndjson", model.SourcePolicy{Format: "ndjson"}, "{\"key\": \"A-1\", \"t\": \"one\"}\n\n  {\"key\": \"A-2\",\n\"t\": \"two\"}"},
		{"ndjson", model.SourcePolicy{Format: "ndjson"}, "{\"key\": \"A-1\", \"t\": \"one\"}\r\n{\"key\": \"A-2\", \"t\": \"two\"}\r\n"},
		{"records path", model.SourcePolicy{Records: ".data.items"}, `{"next": "p2", "data": {"total": 2, "items": [{"key": "A-1", "t": "one"}, {"key": "A-2", "t": "two"}]}}`},
	} {
		recs, _, err := parseOutput([]byte(tc.out), tc.s)
		if tc.name == "ndjson" && strings.Contains(tc.out, "\n\"t\"") {
			// A record broken over two lines is two broken lines.
			if err == nil || !strings.Contains(err.Error(), "output line 3, column 3: invalid JSON") {
				t.Errorf("%s %q: got %v, want a broken line 3", tc.name, tc.out, err)
			}
			continue
		}
		if err != nil || !slices.Equal(recs, want) {
			t.Errorf("%s %q: %q %v", tc.name, tc.out, recs, err)
		}
	}
	if recs, _, err := parseOutput(nil, model.SourcePolicy{Format: "ndjson"}); err != nil || len(recs) != 0 {
		t.Errorf("an empty ndjson output is no records: %q %v", recs, err)
	}
	for _, tc := range []struct {
		records, out, want string
	}{
		{".data.items", `{"data": {}}`, "output line 1, column 1: the output has no .data.items (records: .data.items)"},
		{".data.items", `{"data": []}`, `output line 1, column 10: expected an object holding "items" on the way to records .data.items`},
		{".items", `{"items": {"a": 1}}`, "output line 1, column 11: records .items is not a JSON array of records"},
		{".items[]", `{"items": []}`, `records ".items[]" selects values, not one place`},
		{".items", `{"items": [1]}`, "output line 1, column 12: record 1 is not a JSON object"},
	} {
		_, _, err := parseOutput([]byte(tc.out), model.SourcePolicy{Records: tc.records})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("records %s of %q: got %v, want %q", tc.records, tc.out, err, tc.want)
		}
	}
	if _, _, err := parseOutput([]byte("{\"key\": 1}\n[2]\n"), model.SourcePolicy{Format: "ndjson"}); err == nil || !strings.Contains(err.Error(), "output line 2, column 1: record 2 is not a JSON object") {
		t.Errorf("an ndjson line that is no object: %v", err)
	}
}

// TestFillPlaceholders: fkf's placeholders are filled for the window, each
// word stays one argument, and nothing is appended.
func TestFillPlaceholders(t *testing.T) {
	got := fillPlaceholders([]string{"log", "{{date}}..{{next_date}}", "{{start}}", "{{end}}", "{{base}}/x y", "{{home}}"}, testDay, "/b ase", "/home/u")
	want := []string{"log", "2026-11-24..2026-11-25", "2026-11-24", "2026-11-25", "/b ase/x y", "/home/u"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
