package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// runAll loads every group of fsys and returns the diagnostics as lines.
func runAll(t *testing.T, in Input) (Output, []string) {
	t.Helper()
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out, diagLines(out.Diagnostics)
}

// TestProjectPageUnknownStatus: a project page's status is one cairn
// gives meaning to, or a warning at its line says it means nothing; a
// wiki page's status is free text.
func TestProjectPageUnknownStatus(t *testing.T) {
	fsys := mapBase(map[string]string{
		"cairn.yaml":          runConfig,
		"projects/typo.md":    "---\ntitle: Typo\nstatus: actve\n---\nBody.\n",
		"projects/paused.md":  "---\ntitle: Paused\nstatus: Paused\n---\nBody.\n",
		"projects/nothing.md": "---\ntitle: No status\n---\nBody.\n",
		"wiki/pep.md":         "---\ntitle: A PEP\nstatus: Final\n---\nBody.\n",
	})
	_, lines := runAll(t, Input{FS: fsys})
	want := []string{`projects/typo.md:3:1: warning: status "actve" is not a project status, so ranking gives it no meaning (an active project is not boosted, a done one not lowered); use one of: active, planned, paused, blocked, done, deprecated, superseded [unknown-status]`}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestNotRegularFilesAreReported: a named pipe or a folder where a record
// document, a page or a governance file is expected is a warning, never a
// silent skip, and the pipe is never opened (opening it would wait for a
// writer forever).
func TestNotRegularFilesAreReported(t *testing.T) {
	dir := t.TempDir()
	write := func(p, data string) {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cairn.yaml", runConfig)
	write("events/2026-11-02/github.json", goodDocument)
	for _, p := range []string{"events/2026-11-02/folder.json", "wiki/folder.md", "bodies/meetings"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"events/2026-11-02/pipe.json", "wiki/pipe.md", "governance/terms.yaml"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(p))), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(dir, filepath.FromSlash(p)), 0o644); err != nil {
			t.Skipf("cannot make a named pipe here: %v", err)
		}
	}
	done := make(chan []string)
	go func() {
		_, lines := runAll(t, Input{FS: os.DirFS(dir)})
		done <- lines
	}()
	var lines []string
	select {
	case lines = <-done:
	case <-time.After(time.Minute): // not a timing assertion: a hang is the failure
		t.Fatal("loading hung on a named pipe")
	}
	want := []string{
		`events/2026-11-02/folder.json:1:1: warning: this is a folder where a record document is expected, so cairn reads nothing here; replace it with the file, or rename it [not-a-file]`,
		`events/2026-11-02/pipe.json:1:1: warning: this is a named pipe where a record document is expected, so cairn reads nothing here; replace it with a regular file [not-a-file]`,
		`governance/terms.yaml:1:1: warning: this is a named pipe where the terms store is expected, so cairn reads nothing here; replace it with a regular file [not-a-file]`,
		`wiki/folder.md:1:1: warning: this is a folder where a page is expected, so cairn reads nothing here; replace it with the file, or rename it [not-a-file]`,
		`wiki/pipe.md:1:1: warning: this is a named pipe where a page is expected, so cairn reads nothing here; replace it with a regular file [not-a-file]`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestPageTextIsMadeUTF8: invalid UTF-8 and NUL bytes in a page are
// replaced by U+FFFD with a warning at the first one's line, so every
// artifact stays UTF-8 text; the page is still read.
func TestPageTextIsMadeUTF8(t *testing.T) {
	fsys := mapBase(map[string]string{
		"cairn.yaml":  runConfig,
		"wiki/bad.md": "---\ntitle: Bad bytes\n---\nFine line.\nLatin-1 caf\xe9 and a NUL \x00 here.\n",
	})
	out, lines := runAll(t, Input{FS: fsys})
	want := []string{`wiki/bad.md:5:12: warning: the file holds bytes that are not UTF-8 text (invalid UTF-8 or NUL), first here; cairn reads them as U+FFFD; save the file as UTF-8 [not-utf8]`}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if len(out.Base.Pages) != 1 {
		t.Fatalf("pages: %d, want the page kept", len(out.Base.Pages))
	}
	body := out.Base.Pages[0].Body
	if !utf8.ValidString(body) || strings.ContainsRune(body, 0) {
		t.Errorf("body %q: not UTF-8 text", body)
	}
	if wantBody := "Fine line.\nLatin-1 caf\uFFFD and a NUL \uFFFD here.\n"; body != wantBody {
		t.Errorf("body %q, want %q", body, wantBody)
	}
}

// TestBOMInEveryFileKind: a UTF-8 byte order mark at the start of any
// input (configuration, voice, terms, log, page, content file, record
// document, bodies manifest, .gitignore) is read as nothing, the same way
// everywhere.
func TestBOMInEveryFileKind(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	files := map[string]string{
		"cairn.yaml":                    cleanConfig,
		"governance/voices/plain.yaml":  cleanVoice,
		"governance/terms.yaml":         cleanTerms,
		"governance/log.jsonl":          cleanLog,
		"wiki/page.md":                  "---\ntitle: A page\n---\nText.\n",
		"docs/guide.md":                 "# Guide\n\nUse the kb.\n",
		"events/2026-11-02/github.json": goodDocument,
		".gitignore":                    "docs/private.md\n",
		"docs/private.md":               "# Private\n",
	}
	plain, plainLines := runAll(t, Input{FS: mapBase(files)})
	if len(plainLines) != 0 {
		t.Fatalf("the base without BOMs has diagnostics:\n%s", strings.Join(plainLines, "\n"))
	}
	for p, data := range files {
		files[p] = bom + data
	}
	marked, lines := runAll(t, Input{FS: mapBase(files), Unhashed: true})
	if len(lines) != 0 {
		t.Errorf("with a BOM in every file, diagnostics:\n%s", strings.Join(lines, "\n"))
	}
	b, m := plain.Base, marked.Base
	// A record's span is where its bytes sit in the file, BOM included.
	for i := range m.Documents {
		for j := range m.Documents[i].Records {
			m.Documents[i].Records[j].Offset -= len64(bom)
			m.Documents[i].Records[j].Col -= 0
		}
	}
	if diff := cmp.Diff(b.Voices, m.Voices); diff != "" {
		t.Errorf("voices (-plain +bom):\n%s", diff)
	}
	if diff := cmp.Diff(b.Terms, m.Terms); diff != "" {
		t.Errorf("terms (-plain +bom):\n%s", diff)
	}
	if diff := cmp.Diff(b.Log, m.Log); diff != "" {
		t.Errorf("log (-plain +bom):\n%s", diff)
	}
	if diff := cmp.Diff(b.Pages, m.Pages); diff != "" {
		t.Errorf("pages (-plain +bom):\n%s", diff)
	}
	if diff := cmp.Diff(b.Content, m.Content); diff != "" {
		t.Errorf("content (-plain +bom):\n%s", diff)
	}
	if len(m.Documents) != 1 || len(m.Documents[0].Records) != 1 {
		t.Errorf("documents: %+v, want the one document and its record", m.Documents)
	}
}

func len64(s string) int64 { return int64(len(s)) }

// TestVoiceDuplicateKeyAlone: a voice with a key twice gets the
// duplicate-key error alone; the first value stands for the rest of the
// checks, so the voice is not also said to have no name.
func TestVoiceDuplicateKeyAlone(t *testing.T) {
	fsys, _ := govBase(map[string]string{
		"governance/voices/plain.yaml": "name: plain\ntone:\n  formality: casual\nname: plain\n",
	})
	_, lines := runAll(t, Input{FS: fsys})
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l, "governance/voices/plain.yaml") {
			got = append(got, l)
		}
	}
	want := []string{`governance/voices/plain.yaml:4:1: error: key "name" appears twice in the top level (first on line 1); keep one [duplicate-key]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

var _ = diag.Warning
