package load

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// TestReadAll reads with the size stat gave, a stale smaller one (the
// file grew) and a stale larger one (it shrank): always the whole file.
func TestReadAll(t *testing.T) {
	text := strings.Repeat("0123456789", 100)
	for _, size := range []int64{0, 1, 999, 1000, 1001, 5000} {
		got, err := readAll(strings.NewReader(text), size)
		if err != nil || string(got) != text {
			t.Errorf("size %d: read %d bytes (%v), want the %d of the file", size, len(got), err, len(text))
		}
	}
}

// TestReadCaps refuses a file over its cap with a diagnostic naming the
// cap, in both readers, and reads one at the cap.
func TestReadCaps(t *testing.T) {
	fsys := fstest.MapFS{
		"at.txt":   {Data: []byte(strings.Repeat("a", 64))},
		"over.txt": {Data: []byte(strings.Repeat("a", 65))},
	}
	var ds diag.List
	if data, ok := readFile(fsys, "at.txt", 64, &ds); !ok || len(data) != 64 {
		t.Errorf("readFile at the cap: %d bytes, ok=%v", len(data), ok)
	}
	if text, ok := readText(fsys, "at.txt", 64, &ds); !ok || len(text) != 64 {
		t.Errorf("readText at the cap: %d bytes, ok=%v", len(text), ok)
	}
	if len(ds.Sorted()) != 0 {
		t.Errorf("diagnostics for files at the cap: %v", ds.Sorted())
	}
	var fileDs, textDs diag.List
	if _, ok := readFile(fsys, "over.txt", 64, &fileDs); ok {
		t.Error("readFile read a file over its cap")
	}
	if _, ok := readText(fsys, "over.txt", 64, &textDs); ok {
		t.Error("readText read a file over its cap")
	}
	for _, got := range [][]diag.Diagnostic{fileDs.Sorted(), textDs.Sorted()} {
		if len(got) != 1 || !strings.Contains(got[0].String(), "64-byte cap") {
			t.Errorf("diagnostics %v, want one naming the 64-byte cap", got)
		}
	}
}
