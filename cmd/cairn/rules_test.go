package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

// buildAt builds the base at dir as of day and fails on a non-zero exit.
func buildAt(t *testing.T, dir, day string) string {
	t.Helper()
	code, _, stderr := cairn(t, "--base", dir, "build", "--as-of", day)
	if code != 0 {
		t.Fatalf("cairn build --as-of %s exited %d:\n%s", day, code, stderr)
	}
	return stderr
}

// checkAt runs cairn build --check as of day.
func checkAt(t *testing.T, dir, day string) (int, string) {
	t.Helper()
	code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--as-of", day)
	return code, stdout
}

func readText(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeText(t *testing.T, dir, p, text string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(dir, p string) bool {
	_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
	return err == nil
}

// outsideSection is a rules file's text with cairn's section cut out.
func outsideSection(t *testing.T, text string) string {
	t.Helper()
	start, end, found, err := artifacts.FindRulesSection([]byte(text))
	if err != nil || !found {
		t.Fatalf("no section (%v) in %q", err, text)
	}
	return text[:start] + text[end:]
}

// TestRulesBuildTwiceWritesNothing: the second build of the rules base
// runs no stage and touches no file, and the text around the root's
// section is the user's, byte for byte.
func TestRulesBuildTwiceWritesNothing(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "rules")
	userText := outsideSection(t, readText(t, dir, "AGENTS.md"))
	buildAt(t, dir, goldenAsOf)
	if got := outsideSection(t, readText(t, dir, "AGENTS.md")); got != userText {
		t.Errorf("the text around the section changed:\n%q\nwant\n%q", got, userText)
	}
	if got := readText(t, dir, "CLAUDE.md"); got != "@AGENTS.md\n" {
		t.Errorf("a CLAUDE.md that imports AGENTS.md got %q", got)
	}
	ageTree(t, dir)
	before := takeSnapshot(t, dir)
	if stderr := buildAt(t, dir, goldenAsOf); !strings.Contains(stderr, "nothing to do") {
		t.Errorf("second build: %s", stderr)
	}
	sameSnapshot(t, "second build", before, takeSnapshot(t, dir))
	// Another day inside the span the rules hold for changes nothing
	// either; the rules golden's span is one day, so use the demo's.
	demo := copyBase(t, "demo")
	buildAt(t, demo, goldenAsOf)
	if code, stdout := checkAt(t, demo, "2026-12-24"); code != 0 {
		t.Errorf("a day inside the demo's span: check exit %d:\n%s", code, stdout)
	}
}

// TestRulesCheck: --check fails on a hand edit inside a section, naming
// that file alone, and ignores an edit outside it; a build restores the
// section and keeps the edit outside.
func TestRulesCheck(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "rules")
	buildAt(t, dir, goldenAsOf)
	const file = "guides/AGENTS.md"
	built := readText(t, dir, file)

	inside := strings.Replace(built, "Write \"iteration\", not \"sprint\".", "Write \"sprint\" freely.", 1)
	if inside == built {
		t.Fatal("the edit did not apply; the rules golden changed under this test")
	}
	writeText(t, dir, file, inside)
	if code, stdout := checkAt(t, dir, goldenAsOf); code != 1 || stdout != "update\t"+file+"\n" {
		t.Errorf("an edit inside the section: check exit %d, stdout %q; want 1 naming %s alone", code, stdout, file)
	}

	outside := "# Notes of our own\n\nKeep this.\n\n" + built + "\nAnd this.\n"
	writeText(t, dir, file, outside)
	if code, stdout := checkAt(t, dir, goldenAsOf); code != 0 || stdout != "" {
		t.Errorf("an edit outside the section: check exit %d, stdout %q; want 0 and nothing listed", code, stdout)
	}
	if stderr := buildAt(t, dir, goldenAsOf); !strings.Contains(stderr, "nothing to do") {
		t.Errorf("build after an edit outside the section: %s", stderr)
	}
	if got := readText(t, dir, file); got != outside {
		t.Errorf("the build rewrote the user's file:\n%s", got)
	}

	writeText(t, dir, file, strings.Replace(outside, "Write \"iteration\", not \"sprint\".", "", 1))
	buildAt(t, dir, goldenAsOf)
	if got := readText(t, dir, file); got != outside {
		t.Errorf("the build did not restore the section around the user's text:\n%s", got)
	}
}

// TestRulesFileDeletedWhenItsRulesGo: site/fr's files hold nothing but the
// section; when the point's market moves out of emea its rules go, and the
// files are deleted. Moving it to another country inside emea keeps them:
// the axis test at the files level.
func TestRulesFileDeletedWhenItsRulesGo(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "rules")
	buildAt(t, dir, goldenAsOf)
	if got := readText(t, dir, "site/fr/AGENTS.md"); !strings.Contains(got, "- Write \"registre\", not \"référentiel\".") {
		t.Fatalf("site/fr (market fr, inside emea) lacks the emea rule:\n%s", got)
	}
	if got := readText(t, dir, "guides/AGENTS.md"); !strings.Contains(got, "\"référentiel\" is correct here; do not rename it to \"registre\". That rename holds only where market is emea.") {
		t.Errorf("guides lacks the Keep as it is line of the emea rule:\n%s", got)
	}
	cfg := readText(t, dir, "cairn.yaml")

	writeText(t, dir, "cairn.yaml", strings.Replace(cfg, "market: fr\n", "market: de\n", 1))
	buildAt(t, dir, goldenAsOf)
	if got := readText(t, dir, "site/fr/AGENTS.md"); !strings.Contains(got, "not \"référentiel\"") || strings.Contains(got, "vouvoient") {
		t.Errorf("market de: want the emea rule without the fr note:\n%s", got)
	}

	writeText(t, dir, "cairn.yaml", strings.Replace(cfg, "market: fr\n", "market: us\n", 1))
	code, stdout := checkAt(t, dir, goldenAsOf)
	for _, want := range []string{"delete\tsite/fr/AGENTS.md\n", "delete\tsite/fr/CLAUDE.md\n", "update\tAGENTS.md\n"} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("check: exit %d, stdout %q; want 1 and %q", code, stdout, want)
		}
	}
	buildAt(t, dir, goldenAsOf)
	for _, gone := range []string{"site/fr/AGENTS.md", "site/fr/CLAUDE.md"} {
		if exists(dir, gone) {
			t.Errorf("%s held only the section and is still there", gone)
		}
	}
	if strings.Contains(readText(t, dir, "AGENTS.md"), "site/fr/") {
		t.Error("the root still lists site/fr/ as a folder with rules of its own")
	}
	if code, stdout := checkAt(t, dir, goldenAsOf); code != 0 {
		t.Errorf("check after the build: exit %d, %q", code, stdout)
	}
}

// TestRulesWindowsAtTheFilesLevel: the press voice closed on 2026-11-09,
// and "legacy mode" is ruled out from 2026-11-11.
func TestRulesWindowsAtTheFilesLevel(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "rules")
	const future = "- Write \"compatibility mode\", not \"legacy mode\"."
	buildAt(t, dir, goldenAsOf)
	if exists(dir, "press/AGENTS.md") {
		t.Error("press has a file although its voice closed: the fallback voice is the root's")
	}
	if strings.Contains(readText(t, dir, "AGENTS.md"), "legacy mode") {
		t.Error("a rule whose window has not opened is written")
	}

	if code, stdout := checkAt(t, dir, "2026-11-11"); code != 1 || !strings.Contains(stdout, "update\tAGENTS.md\n") {
		t.Errorf("check a day later: exit %d, %q; want 1 naming AGENTS.md", code, stdout)
	}
	buildAt(t, dir, "2026-11-11")
	if !strings.Contains(readText(t, dir, "AGENTS.md"), future) {
		t.Errorf("once its window opens the rule is written:\n%s", readText(t, dir, "AGENTS.md"))
	}

	buildAt(t, dir, "2026-11-09")
	press := readText(t, dir, "press/AGENTS.md")
	if !strings.Contains(press, "### Voice: press") || !strings.Contains(readText(t, dir, "AGENTS.md"), "- press/ (press/AGENTS.md)") {
		t.Errorf("on the press voice's last day, press has its own section:\n%s", press)
	}
	if strings.Contains(readText(t, dir, "AGENTS.md"), "legacy mode") {
		t.Error("back before the window, the rule is gone again")
	}
}

// TestRulesFilesAndLinks: a CLAUDE.md linked to the AGENTS.md beside it,
// an AGENTS.md linked to the CLAUDE.md beside it, and a hard-linked pair
// each end with one section where a reader looks, the links intact, and a
// second build changes nothing.
func TestRulesFilesAndLinks(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "base")
	writeText(t, dir, "cairn.yaml", "governance:\n  points:\n    - name: a\n      paths: [\"a/**\"]\n    - name: b\n      paths: [\"b/**\"]\n    - name: c\n      paths: [\"c/**\"]\n")
	writeText(t, dir, "governance/terms.yaml", "- id: w\n  term: whitelist\n  status: forbidden\n  replacement: allowlist\n"+
		"- id: a\n  term: alpha\n  status: forbidden\n  paths: [\"a/**\"]\n- id: b\n  term: beta\n  status: forbidden\n  paths: [\"b/**\"]\n- id: c\n  term: gamma\n  status: forbidden\n  paths: [\"c/**\"]\n")
	for _, f := range []string{"a/x.md", "b/x.md", "c/x.md"} {
		writeText(t, dir, f, "# X\n")
	}
	writeText(t, dir, "a/AGENTS.md", "# A's own\n")
	writeText(t, dir, "b/CLAUDE.md", "# B's own\n")
	writeText(t, dir, "c/AGENTS.md", "# C's own\n")
	if err := os.Symlink("AGENTS.md", filepath.Join(dir, "a", "CLAUDE.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink("CLAUDE.md", filepath.Join(dir, "b", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "c", "AGENTS.md"), filepath.Join(dir, "c", "CLAUDE.md")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	buildAt(t, dir, goldenAsOf)

	for _, c := range []struct{ link, real, rule string }{{"a/CLAUDE.md", "a/AGENTS.md", "alpha"}, {"b/AGENTS.md", "b/CLAUDE.md", "beta"}} {
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(c.link)))
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link (%v)", c.link, err)
		}
		text := readText(t, dir, c.real)
		if strings.Count(text, artifacts.RulesOpen) != 1 || !strings.Contains(text, `"`+c.rule+`"`) || !strings.HasPrefix(text, "# ") {
			t.Errorf("%s = %q; want its own text and one section with the %s rule", c.real, text, c.rule)
		}
	}
	a, b := readText(t, dir, "c/AGENTS.md"), readText(t, dir, "c/CLAUDE.md")
	if a != b || strings.Count(a, artifacts.RulesOpen) != 1 || !strings.Contains(a, `"gamma"`) {
		t.Errorf("hard-linked pair: AGENTS.md %q, CLAUDE.md %q; want the same text with one section", a, b)
	}

	ageTree(t, dir)
	before := takeSnapshot(t, dir)
	if stderr := buildAt(t, dir, goldenAsOf); !strings.Contains(stderr, "nothing to do") {
		t.Errorf("second build: %s", stderr)
	}
	sameSnapshot(t, "second build", before, takeSnapshot(t, dir))
	if code, stdout := checkAt(t, dir, goldenAsOf); code != 0 {
		t.Errorf("check: exit %d, %q", code, stdout)
	}
	if !bytes.Contains([]byte(readText(t, dir, "AGENTS.md")), []byte("- a/ (a/AGENTS.md)")) {
		t.Errorf("root lacks the folder lines:\n%s", readText(t, dir, "AGENTS.md"))
	}
}

// TestRulesFilesAreNotIndexInputs: writing the rules files, or editing
// one by hand, never makes the index stale.
func TestRulesFilesAreNotIndexInputs(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	buildAt(t, dir, goldenAsOf)
	state := func() string {
		out := runContext(t, dir, "--as-of", goldenAsOf, "--format", "json", "HAR-142")
		var v struct {
			Receipt struct {
				Index struct{ State string } `json:"index"`
			} `json:"receipt"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return v.Receipt.Index.State
	}
	if got := state(); got != "used" {
		t.Fatalf("after a build that wrote the rules files: index %s, want used", got)
	}
	writeText(t, dir, "docs/AGENTS.md", "# Ours\n\n"+readText(t, dir, "docs/AGENTS.md"))
	writeText(t, dir, "wiki/AGENTS.md", "Agents: the wiki is generated.\n")
	if got := state(); got != "used" {
		t.Errorf("after editing rules files by hand: index %s, want used", got)
	}
}

// TestRulesReplaceKapiSections: a project moved from kapi keeps kapi's
// voice pointer and rules sections in its rules files. --check names the
// file, the build puts cairn's section in their place and keeps the
// user's text, and the next build finds nothing to do.
func TestRulesReplaceKapiSections(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "rules")
	buildAt(t, dir, goldenAsOf)
	const file = "guides/AGENTS.md"
	built := readText(t, dir, file)
	ours := built[:len(built)-len(outsideSection(t, built))] // the file holds only the section
	kapi := "# Guides\n\n<!-- kapi:voice -->\nVoice: guides (governance/voices/guides.yaml)\n<!-- /kapi:voice -->\n\n" +
		"<!-- kapi:rules -->\n## Writing rules\n- Say \"sprint\".\n<!-- /kapi:rules -->\n\nOur own closing words.\n"
	writeText(t, dir, file, kapi)
	if code, stdout := checkAt(t, dir, goldenAsOf); code != 1 || stdout != "update\t"+file+"\n" {
		t.Errorf("a file holding kapi's sections: check exit %d, stdout %q; want 1 naming %s", code, stdout, file)
	}
	buildAt(t, dir, goldenAsOf)
	want := "# Guides\n\n" + ours + "\nOur own closing words.\n"
	if got := readText(t, dir, file); got != want {
		t.Errorf("kapi's sections were not replaced:\n%q\nwant\n%q", got, want)
	}
	if stderr := buildAt(t, dir, goldenAsOf); !strings.Contains(stderr, "nothing to do") {
		t.Errorf("the build after: %s", stderr)
	}
	if code, stdout := checkAt(t, dir, goldenAsOf); code != 0 {
		t.Errorf("check after the build: exit %d, %q", code, stdout)
	}
}
