package diag

import "testing"

// TestStringQuotesOddPaths: a path holding a line break, a tab, another
// control character or bytes that are not UTF-8 is quoted, so that every
// diagnostic stays one line of file:line:col and says exactly which file;
// an ordinary path is written as it is.
func TestStringQuotesOddPaths(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"events/2026-11-02/github.json", "events/2026-11-02/github.json:3:1: error: m [c]"},
		{"wiki/café notes.md", "wiki/café notes.md:3:1: error: m [c]"},
		{"events/a\nb.json", `"events/a\nb.json":3:1: error: m [c]`},
		{"docs/tab\there.md", `"docs/tab\there.md":3:1: error: m [c]`},
		{"docs/latin\xe9.md", `"docs/latin\xe9.md":3:1: error: m [c]`},
		{`docs/"quoted".md`, `docs/"quoted".md:3:1: error: m [c]`},
	} {
		d := Diagnostic{File: c.file, Line: 3, Severity: Error, Code: "c", Message: "m"}
		if got := d.String(); got != c.want {
			t.Errorf("String() = %s, want %s", got, c.want)
		}
	}
}
