package collect

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/stages/model"
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
