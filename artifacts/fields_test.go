package artifacts

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var sampleFields = []Field{
	{Name: "body", Weight: 1},
	{Name: "id", Weight: 10},
	{Name: "résumé", Weight: 3},
	{Name: "title", Weight: 5},
	{Name: "uri", Weight: 100},
}

func TestFieldsRoundTrip(t *testing.T) {
	data := EncodeFields(sampleFields)
	want := "#cairn fields v7\tname\tweight\nbody\t1\nid\t10\nrésumé\t3\ntitle\t5\nuri\t100\n"
	if string(data) != want {
		t.Errorf("fields.tsv = %q, want %q", data, want)
	}
	got, err := DecodeFields(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleFields, got); diff != "" {
		t.Errorf("DecodeFields(EncodeFields(x)) (-want +got):\n%s", diff)
	}
	if again := EncodeFields(got); !bytes.Equal(again, data) {
		t.Errorf("EncodeFields(DecodeFields(b)) = %q, want %q", again, data)
	}
}
