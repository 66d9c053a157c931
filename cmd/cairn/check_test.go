package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkTestdata holds the check goldens and the files added to the rules
// base so that it has something to find.
const checkTestdata = "testdata/check"

// checkedBase copies a golden base for a check: the demo as it is, the rules
// base with the content of testdata/check/rules-overlay added (the rules
// golden's own content breaks no rule, which its build checks already).
func checkedBase(t *testing.T, name string) string {
	t.Helper()
	dir := copyBase(t, name)
	if name == "rules" {
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(checkTestdata, "rules-overlay"))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCheckGolden checks the demo and rules bases in every format and
// compares the findings with testdata/check/<case>.<format>; CAIRN_UPDATE_GOLDEN=1
// rewrites them. Both bases hold an error finding, so both exit 1.
func TestCheckGolden(t *testing.T) {
	for _, name := range []string{"demo", "rules"} {
		base := checkedBase(t, name)
		for _, format := range []string{"text", "json", "sarif"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				code, stdout, stderr := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "--format", format)
				if code != 1 {
					t.Errorf("exit %d, want 1 (an error finding); stderr:\n%s", code, stderr)
				}
				if !strings.Contains(stderr, "error(s), in ") {
					t.Errorf("stderr does not sum the findings up:\n%s", stderr)
				}
				if format == "sarif" {
					validateSARIF(t, []byte(stdout))
				}
				compareGolden(t, filepath.Join(checkTestdata, name+"."+format), stdout)
			})
		}
	}
}

// compareGolden compares got with the file at p, or rewrites it under
// CAIRN_UPDATE_GOLDEN=1.
func compareGolden(t *testing.T, p, got string) {
	t.Helper()
	if update() {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run CAIRN_UPDATE_GOLDEN=1 go test ./cmd/cairn -run TestCheck to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", p, diff)
	}
}

// TestCheckDeterministic: the same base checked twice, once file by file
// on one core, prints the same bytes.
func TestCheckDeterministic(t *testing.T) {
	base := checkedBase(t, "rules")
	_, first, _ := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "--format", "json")
	t.Setenv("GOMAXPROCS", "1")
	_, second, _ := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "--format", "json", "guides", "site", "notes", "README.md", "press")
	if first != second {
		t.Errorf("two checks of one base differ:\n%s", cmp.Diff(first, second))
	}
}

// TestCheckSilent: a file with no finding prints nothing, on stdout or
// stderr, and exits 0; a code span is not prose, so its forbidden word
// is no finding.
func TestCheckSilent(t *testing.T) {
	base := checkedBase(t, "rules")
	code, stdout, stderr := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "notes/clean.md", "README.md")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("a clean file: exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
	}
	code, stdout, _ = cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "--format", "json", "notes/clean.md")
	var doc struct {
		Checked  int               `json:"checked"`
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || doc.Checked != 1 || doc.Findings == nil || len(doc.Findings) != 0 {
		t.Errorf("a clean file as JSON: exit %d, %v, %s; want an empty findings list", code, err, stdout)
	}
}

// TestCheckExitCodes: warnings alone exit 0 and are summed up on stderr;
// an error finding exits 1; bad input exits 2 naming what to fix.
func TestCheckExitCodes(t *testing.T) {
	base := checkedBase(t, "demo")
	code, stdout, stderr := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "docs/getting-started.md")
	if code != 0 || !strings.Contains(stdout, "warning: write \"container image\", not \"docker image\" (deprecated)") || !strings.Contains(stderr, "0 error(s)") {
		t.Errorf("warnings only: exit %d, stdout %q, stderr %q; want 0 with the warning", code, stdout, stderr)
	}
	if code, _, _ := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "docs/"); code != 1 {
		t.Errorf("a folder with an error finding: exit %d, want 1", code)
	}
	// A window decides: the rules base's legacy-mode rule opens on 11-11.
	rules := checkedBase(t, "rules")
	_, before, _ := cairn(t, "--base", rules, "check", "--as-of", "2026-11-10", "notes/iteration.md")
	_, after, _ := cairn(t, "--base", rules, "check", "--as-of", "2026-11-11", "notes/iteration.md")
	if strings.Contains(before, "legacy") || !strings.Contains(after, `write "compatibility mode", not "Legacy mode" [terms.forbidden:future-rule]`) {
		t.Errorf("the rule's window is not honoured:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	if err := os.WriteFile(filepath.Join(base, "docs/broken.md"), []byte("---\ntitle: [unclosed\n---\n# Broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"docs/nothing.md"}, "docs/nothing.md does not exist in the base"},
		{[]string{"../outside.md"}, "is outside the base"},
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--changed", "docs/"}, "drop the paths or the flag"},
		{[]string{"docs/broken.md"}, "docs/broken.md:"},
	} {
		code, _, stderr := cairn(t, append([]string{"--base", base, "check", "--as-of", goldenAsOf}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("check %v: exit %d, stderr %q; want 2 naming %q", c.args, code, stderr, c.want)
		}
	}
	// A page is not content: named, it is said to be left unchecked.
	code, _, stderr = cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "wiki")
	if code != 0 {
		t.Errorf("a folder without content files: exit %d, want 0; stderr %q", code, stderr)
	}
	page := firstFile(t, filepath.Join(base, "wiki"))
	code, _, stderr = cairn(t, "--base", base, "check", "--as-of", goldenAsOf, page)
	if code != 0 || !strings.Contains(stderr, "is not a content file of the base") {
		t.Errorf("a page named: exit %d, stderr %q; want 0 and a line saying it was not checked", code, stderr)
	}
}

// firstFile is the base-relative path of the first file in dir.
func firstFile(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no file in %s: %v", dir, err)
	}
	return filepath.Base(dir) + "/" + entries[0].Name()
}

// TestCheckChanged: --changed checks the staged, unstaged and untracked
// content files git reports, and nothing else.
func TestCheckChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git is not on PATH: %v", err)
	}
	base := checkedBase(t, "demo")
	git := gitIn(t, base)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "demo")
	if code, stdout, stderr := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "--changed"); code != 0 || stdout != "" || stderr != "" {
		t.Errorf("nothing changed: exit %d, %q, %q; want silence", code, stdout, stderr)
	}
	write := func(p, text string) {
		if err := os.WriteFile(filepath.Join(base, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/staged.md", "# Staged\n\nA blacklist of tags.\n")
	git("add", "docs/staged.md")
	write("docs/untracked.md", "# Untracked\n\nSimply run it.\n")
	replaceInFile(t, filepath.Join(base, "docs/getting-started.md"), "It takes about", "It simply takes about")
	write("wiki/ignored-page.md", "# A page\n\nA blacklist.\n") // a page, not content
	git("rm", "-q", "docs/fr/guide.md")                         // deleted: nothing to check
	code, stdout, _ := cairn(t, "--base", base, "check", "--as-of", goldenAsOf, "--changed")
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		f, _, _ := strings.Cut(line, ":")
		if len(files) == 0 || files[len(files)-1] != f {
			files = append(files, f)
		}
	}
	want := []string{"docs/getting-started.md", "docs/staged.md", "docs/untracked.md"}
	if code != 1 || !cmp.Equal(files, want) {
		t.Errorf("--changed: exit %d, files %v, want 1 and %v:\n%s", code, files, want, stdout)
	}
}

// gitIn returns a function running git in dir with a fixed identity.
func gitIn(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
}

// TestCheckRefusesALinkLeavingTheBase: a content file that is a link out
// of the base is named with its path-escape error and makes the whole
// check exit 2, as the build does; the other files are still checked.
func TestCheckRefusesALinkLeavingTheBase(t *testing.T) {
	base := checkedBase(t, "demo")
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte("Harbor docs kept elsewhere.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "docs", "elsewhere.md")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cairn(t, "--base", base, "check", "--as-of", goldenAsOf)
	if code != 2 || !strings.Contains(stderr, "docs/elsewhere.md:1:1: error:") || !strings.Contains(stderr, "[path-escape]") {
		t.Errorf("exit %d, stderr %q; want 2 naming docs/elsewhere.md's path-escape", code, stderr)
	}
	if !strings.Contains(stdout, "docs/") {
		t.Errorf("the other files' findings are missing:\n%s", stdout)
	}
}

// TestCheckSuppressions: a wording meant where it is (a quotation of the
// old name) is left out by a cairn-disable comment for one line or a
// block, or by cairn.yaml's check.ignore for a path; what is left out is
// counted, a directive in code is an example, and a bad ignore entry is
// refused with its line.
func TestCheckSuppressions(t *testing.T) {
	base := checkedBase(t, "demo")
	readme := readText(t, base, "README.md")
	quote := "Older releases called the CVE allowlist a whitelist;"
	if !strings.Contains(readme, quote) {
		t.Fatal("the demo README changed under this test")
	}
	check := func(args ...string) (int, string, string) {
		return cairn(t, append([]string{"--base", base, "check", "--as-of", goldenAsOf}, args...)...)
	}

	writeText(t, base, "README.md", strings.Replace(readme, quote, "<!-- cairn-disable-next-line terms.forbidden:whitelist -->\n"+quote, 1))
	code, stdout, stderr := check("README.md")
	if code != 1 || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, `"whitelisted"`) ||
		!strings.Contains(stderr, "1 left out by cairn-disable comments or check.ignore") {
		t.Errorf("disable-next-line: exit %d\n%s%s", code, stdout, stderr)
	}

	block := strings.Replace(readme, quote, "<!-- cairn-disable terms -->\n"+quote, 1) + "\n<!-- cairn-enable terms -->\nA whitelist again.\n"
	writeText(t, base, "README.md", block)
	after := fmt.Sprintf("README.md:%d:3:", strings.Count(block, "\n"))
	code, stdout, _ = check("README.md")
	if code != 1 || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, after) {
		t.Errorf("a block then its end: exit %d, want the one finding after the block:\n%s", code, stdout)
	}

	writeText(t, base, "README.md", strings.Replace(readme, quote, "Write `<!-- cairn-disable-next-line -->` to allow a line.\n"+quote, 1))
	if code, stdout, _ = check("README.md"); strings.Count(stdout, "\n") != 2 {
		t.Errorf("a directive in inline code is an example, yet it left a finding out:\n%s", stdout)
	}
	writeText(t, base, "README.md", readme)

	cfg := readText(t, base, "cairn.yaml")
	writeText(t, base, "cairn.yaml", cfg+"check:\n  ignore:\n    - paths: [docs/api/**]\n      rules: [terms.forbidden]\n")
	code, stdout, _ = check("--format", "json", "docs/api/tokens.md")
	var doc struct {
		Suppressed int `json:"suppressed"`
		Findings   []struct {
			Rule string `json:"rule"`
		} `json:"findings"`
		Rules []struct {
			ID string `json:"id"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || doc.Suppressed != 2 ||
		len(doc.Findings) != 1 || doc.Findings[0].Rule != "terms.deprecated:robot-account" || len(doc.Rules) != 1 {
		t.Errorf("check.ignore of terms.forbidden under docs/api: exit %d, %v\n%s", code, err, stdout)
	}

	writeText(t, base, "cairn.yaml", cfg+"check:\n  ignore:\n    - rules: [terms]\n")
	code, _, stderr = check("README.md")
	if code != 2 || !strings.Contains(stderr, "check.ignore entry 1 has no paths") {
		t.Errorf("an ignore entry without paths: exit %d\n%s", code, stderr)
	}
}
