package load

import (
	"context"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refusingFS fails to open one file, as a file without read permission would.
type refusingFS struct {
	fs.FS
	refused string
}

func (r refusingFS) Open(name string) (fs.File, error) {
	if name == r.refused {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return r.FS.Open(name)
}

// An unhashed run parses the same base with the same diagnostics, an
// unreadable file in a group it does not parse included, and leaves the
// hashes out.
func TestUnhashedRunParsesTheSameBase(t *testing.T) {
	base := mapBase(map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
		"wiki/index.md":                 "---\ntitle: Index\n---\nStart here.\n",
		"docs/guide.md":                 "# Guide\n",
		"docs/secret.md":                "# Secret\n",
	})
	fsys := refusingFS{FS: base, refused: "docs/secret.md"}
	hashed, err := Run(context.Background(), Input{FS: fsys}, GroupCorpus)
	if err != nil {
		t.Fatal(err)
	}
	unhashed, err := Run(context.Background(), Input{FS: fsys, Unhashed: true}, GroupCorpus)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docs/secret.md:1:1: error: cannot read the file: permission denied [read]"}
	if diff := cmp.Diff(want, diagLines(unhashed.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(diagLines(hashed.Diagnostics), diagLines(unhashed.Diagnostics)); diff != "" {
		t.Errorf("diagnostics differ from the hashed run (-hashed +unhashed):\n%s", diff)
	}
	if diff := cmp.Diff(hashed.Base, unhashed.Base); diff != "" {
		t.Errorf("base differs from the hashed run (-hashed +unhashed):\n%s", diff)
	}
	if unhashed.SemanticsDigest != hashed.SemanticsDigest {
		t.Errorf("semantics digest %s, hashed run %s", unhashed.SemanticsDigest, hashed.SemanticsDigest)
	}
	if len(unhashed.Inputs) != 0 || len(unhashed.Stat) != 0 || len(unhashed.Keys) != 0 {
		t.Errorf("unhashed run has %d inputs, %d stat entries, %d keys; want none", len(unhashed.Inputs), len(unhashed.Stat), len(unhashed.Keys))
	}
}

// TestProgress checks that Progress counts every record document, page
// and content file parsed, one call each, up to the total it announces.
func TestProgress(t *testing.T) {
	base := mapBase(map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
		"wiki/index.md":                 "# Index\n",
		"docs/guide.md":                 "# Guide\n",
		"docs/other.md":                 "# Other\n",
	})
	var calls [][2]int
	_, err := Run(context.Background(), Input{FS: base, Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{1, 4}, {2, 4}, {3, 4}, {4, 4}}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("progress calls (-want +got):\n%s", diff)
	}
}
