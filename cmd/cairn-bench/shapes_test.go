package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestShapesAreDeterministicJSON: each shape's base is byte-identical for
// the same arguments, every document is valid JSON, and each shape has
// the layout it names.
func TestShapesAreDeterministicJSON(t *testing.T) {
	const size = 200_000
	for _, shape := range shapes {
		a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		st, err := generateShape(a, shape, size, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := generateShape(b, shape, size, 1); err != nil {
			t.Fatal(err)
		}
		ta, tb := readTree(t, a), readTree(t, b)
		if len(ta) != len(tb) {
			t.Fatalf("%s: %d and %d files", shape, len(ta), len(tb))
		}
		docs := 0
		for p, data := range ta {
			if string(tb[p]) != string(data) {
				t.Errorf("%s: %s differs between two runs", shape, p)
			}
			if filepath.Ext(p) == ".json" {
				docs++
				if !json.Valid(data) {
					t.Errorf("%s: %s is not valid JSON", shape, p)
				}
			}
		}
		want := map[string]int{shapeOneDoc: 1, shapeTinyDocs: 200}[shape]
		if want > 0 && docs != want {
			t.Errorf("%s: %d documents, want %d", shape, docs, want)
		}
		if st.Documents != docs {
			t.Errorf("%s: stats say %d documents, the tree holds %d", shape, st.Documents, docs)
		}
	}
}
