package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kapiProject is the kapi project the kapi golden case imports.
const kapiProject = goldenRoot + "/kapi/kapi"

// kapiImported are the files of golden/kapi/base that `cairn import kapi`
// writes from kapiProject; the rest of the base is written by hand.
var kapiImported = []string{
	"governance/terms.yaml",
	"governance/voices/ferry-desk.yaml",
	"governance/voices/tidewise-help.yaml",
}

// kapiBaseWithoutImport copies the kapi golden base without the files the
// import writes.
func kapiBaseWithoutImport(t *testing.T) string {
	t.Helper()
	dir := copyBase(t, "kapi")
	for _, p := range kapiImported {
		if err := os.Remove(filepath.Join(dir, p)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return dir
}

// TestImportKapiGolden imports golden/kapi/kapi into the kapi golden base
// and compares what it writes with the base's governance files, and what
// it prints with golden/kapi/import.out: TestGolden then builds that base
// and answers --at on it. CAIRN_UPDATE_GOLDEN=1 rewrites both.
func TestImportKapiGolden(t *testing.T) {
	isolate(t)
	dir := kapiBaseWithoutImport(t)
	code, stdout, stderr := cairn(t, "--base", dir, "import", "kapi", kapiProject)
	report := "exit " + strconv.Itoa(code) + "\n--- stdout\n" + stdout + "--- stderr\n" + strings.ReplaceAll(stderr, dir, "$BASE")
	if got := strings.Fields(stdout); !cmp.Equal(got, kapiImported) {
		t.Fatalf("import wrote %v, want %v\n%s", got, kapiImported, report)
	}
	got := map[string][]byte{"import.out": []byte(report)}
	for _, p := range kapiImported {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		got["base/"+p] = data
	}
	for p, data := range got {
		want := filepath.Join(goldenRoot, "kapi", p)
		if update() {
			if err := os.WriteFile(want, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := os.ReadFile(want)
		if err != nil {
			t.Fatalf("%v; run CAIRN_UPDATE_GOLDEN=1 go test ./cmd/cairn -run TestImportKapiGolden and review the result", err)
		}
		if string(w) != string(data) {
			t.Errorf("golden/kapi/%s differs (-want +got):\n%s", p, cmp.Diff(string(w), string(data)))
		}
	}
}

// TestImportKapiRerun: importing the same project again writes nothing;
// a file changed since is refused without --force, and replaced with it.
func TestImportKapiRerun(t *testing.T) {
	isolate(t)
	dir := kapiBaseWithoutImport(t)
	if code, _, stderr := cairn(t, "--base", dir, "import", "kapi", kapiProject); code != 0 {
		t.Fatalf("first import: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := cairn(t, "--base", dir, "import", "kapi", kapiProject)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "0 file(s) written, 3 unchanged") {
		t.Fatalf("second import: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	terms := filepath.Join(dir, "governance", "terms.yaml")
	edited := "- {id: mine, term: mine, status: preferred}\n"
	if err := os.WriteFile(terms, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = cairn(t, "--base", dir, "import", "kapi", kapiProject)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "governance/terms.yaml already exist(s) with other content; nothing was written. Run again with --force") {
		t.Fatalf("import over an edited file: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(terms); string(data) != edited {
		t.Fatalf("a refused import changed terms.yaml:\n%s", data)
	}
	code, stdout, stderr = cairn(t, "--base", dir, "import", "kapi", "--force", kapiProject)
	if code != 0 || stdout != "governance/terms.yaml\n" {
		t.Fatalf("import --force: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}

// TestImportKapiFlatFolder: a folder holding kapi's files without .kapi/
// (a copy of them, as ../shared/realdata/kapi is) imports the same way.
func TestImportKapiFlatFolder(t *testing.T) {
	isolate(t)
	flat := filepath.Join(t.TempDir(), "flat")
	if err := os.CopyFS(flat, os.DirFS(filepath.Join(kapiProject, ".kapi"))); err != nil {
		t.Fatal(err)
	}
	dir := kapiBaseWithoutImport(t)
	code, stdout, stderr := cairn(t, "--base", dir, "import", "kapi", flat)
	if code != 0 || !cmp.Equal(strings.Fields(stdout), kapiImported) {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "cairn: import kapi: terms.json: concepts[].domain: ") {
		t.Errorf("findings should name the file as the folder holds it:\n%s", stderr)
	}
	if code, _, stderr := cairn(t, "--base", dir, "build", "--quiet", "--as-of", goldenAsOf); code != 0 {
		t.Fatalf("build after import: exit %d\n%s", code, stderr)
	}
}

// TestImportKapiBadInput: what the import cannot read exits 2, naming the
// file and the place, and writes nothing.
func TestImportKapiBadInput(t *testing.T) {
	isolate(t)
	cases := []struct {
		name, file, data, want string
	}{
		{"no kapi files", "README.md", "hello\n", "the folder holds no kapi terms or voice profiles"},
		{"broken JSON", "terms.json", "{\"concepts\": [\n  {\"id\": \"x\",}\n]}\n", "terms.json: line 2, column 14: invalid character '}'"},
		{"not a terms store", "terms.json", `{"kind": "kapi-memory", "concepts": []}`, `terms.json: kind is "kapi-memory", not "kapi-terms"`},
		{"a newer schema", "terms.json", `{"schemaVersion": "2.0", "kind": "kapi-terms"}`, `schemaVersion "2.0" is not one this cairn reads (1.x)`},
		{"a pattern Go cannot compile", "voice.yaml", "name: x\nstyle:\n  prohibited_patterns:\n    - regex: '(?<!a)b'\n", "voice.yaml:4:14: error: style.prohibited_patterns[0].regex on line 4 does not compile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			if err := os.WriteFile(filepath.Join(src, tc.file), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := kapiBaseWithoutImport(t)
			code, stdout, stderr := cairn(t, "--base", dir, "import", "kapi", src)
			if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", code, stdout, stderr, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "governance", "terms.yaml")); !os.IsNotExist(err) {
				t.Errorf("a failed import wrote terms.yaml (%v)", err)
			}
		})
	}
}
