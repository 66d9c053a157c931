package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairn-kb/cairn/cmd/cairn/internal/check"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/load"
)

// CheckCmd is `cairn check [PATH…]`.
type CheckCmd struct {
	Paths   []string `arg:"" optional:"" name:"PATH" help:"Content files or folders to check (default: every content file of the base)." sep:"none"`
	Changed bool     `help:"Check the content files git shows as changed: staged, unstaged and untracked."`
	AsOf    string   `help:"The day every rule's window is evaluated at (default: $CAIRN_AS_OF, else today, UTC)." placeholder:"DAY"`
	Format  string   `help:"Output format: text, json or sarif." default:"text" placeholder:"FORMAT" enum:"text,json,sarif"`
}

// Help is the detail under the summary of `cairn check --help`.
func (CheckCmd) Help() string {
	return `Checks each content file against the rules in force at its point (what
cairn context --at PATH answers for it): the voice's prohibited and required
patterns, discouraged terms, names not written exactly, and renames used
where the old wording is kept. Prints file:line:col: severity: message [rule];
a file with no finding prints nothing. Exits 1 when an error finding exists.

Examples:

    cairn check
    cairn check docs/api/tokens.md docs/cli/
    cairn check --changed
    cairn check --format sarif > cairn.sarif`
}

// Run checks the files and prints the findings.
func (c *CheckCmd) Run(env *Env) error {
	root, asOf, err := baseAndDay(env, c.AsOf)
	if err != nil {
		return err
	}
	if c.Changed && len(c.Paths) > 0 {
		return usageError("--changed checks what git shows as changed; drop the paths or the flag")
	}
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer osRoot.Close()
	fsys := osRoot.FS()
	g := load.ReadGovernance(fsys)
	if !g.ConfigOK || hasErrors(g.Diagnostics) {
		printDiagnostics(env, g.Diagnostics)
		return usageError("the governance has errors (above); fix them, then check again (cairn build reports the same)")
	}
	var files []string
	var refused []diag.Diagnostic // what the selection could not take: a link leaving the base, say
	if c.Changed {
		changed, err := gitChanged(root)
		if err != nil {
			return err
		}
		files = check.Changed(fsys, g.Config, changed)
	} else {
		paths, err := c.basePaths(env, root)
		if err != nil {
			return err
		}
		sel, err := check.Select(fsys, g.Config, paths)
		if err != nil {
			return usageError("%v", err)
		}
		printDiagnostics(env, sel.Diagnostics)
		refused = sel.Diagnostics
		for _, p := range sel.Skipped {
			fmt.Fprintf(env.Stderr, "cairn: %s is not a content file of the base (cairn.yaml's content globs, less layer folders, rules files and .gitignore); not checked\n", escape.Line(p))
		}
		files = sel.Files
	}
	out, err := check.Run(context.Background(), check.Input{FS: fsys, Governance: g, Files: files, AsOf: asOf})
	if err != nil {
		return err
	}
	var data []byte
	switch c.Format {
	case check.FormatJSON:
		data = check.JSON(out, govern.Day(asOf))
	case check.FormatSARIF:
		data = check.SARIF(out, Version)
	default:
		data = check.Text(out)
	}
	if _, err := env.Stdout.Write(data); err != nil {
		return err
	}
	printDiagnostics(env, out.Diagnostics)
	if hasErrors(out.Diagnostics) || hasErrors(refused) {
		return usageError("%d file(s) could not be checked (above); fix them and check again", countFiles(out.Diagnostics)+countFiles(refused))
	}
	return verdict(env, out)
}

// verdict says what was found, on stderr, and fails on an error finding.
// A check that found nothing says nothing.
func verdict(env *Env, out check.Output) error {
	if len(out.Findings) == 0 {
		return nil
	}
	files := map[string]bool{}
	for _, f := range out.Findings {
		files[f.File] = true
	}
	errs := out.Errors()
	msg := fmt.Sprintf("%d finding(s), %d error(s), in %d of %d file(s) checked", len(out.Findings), errs, len(files), out.Checked)
	if out.Suppressed > 0 {
		msg += fmt.Sprintf("; %d left out by cairn-disable comments or check.ignore", out.Suppressed)
	}
	if errs > 0 {
		return &exitError{code: 1, msg: msg}
	}
	fmt.Fprintf(env.Stderr, "cairn: %s\n", msg)
	return nil
}

// basePaths turns the PATH arguments into clean base-relative paths. A
// relative path is taken from the working directory when that lies inside
// the base, as a shell user (and pre-commit, which passes paths from the
// repository root) means it, and from the base root otherwise, as
// cairn context --at takes it.
func (c *CheckCmd) basePaths(env *Env, root string) ([]string, error) {
	wd, err := env.Getwd()
	if err != nil {
		return nil, err
	}
	from := root
	if rel, err := filepath.Rel(resolved(root), resolved(wd)); err == nil && filepath.IsLocal(rel) {
		from = filepath.Join(root, rel)
	}
	var out []string
	for _, arg := range c.Paths {
		abs := arg
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(from, arg)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel != "." && !filepath.IsLocal(rel) {
			// The path may reach the base through a link to it.
			rel, err = filepath.Rel(resolved(root), filepath.Join(resolved(filepath.Dir(abs)), filepath.Base(abs)))
			if err != nil || rel != "." && !filepath.IsLocal(rel) {
				return nil, usageError("%s is outside the base %s; check a path inside it", arg, root)
			}
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// gitChanged lists, relative to the base, the files git shows as changed
// in the base's folder: staged and unstaged changes (deletions left out)
// and untracked files that .gitignore does not ignore.
func gitChanged(root string) ([]string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, usageError("--changed asks git what changed, and git is not on PATH: %v", err)
	}
	var out []string
	for _, args := range [][]string{
		{"diff", "--cached", "--name-only", "-z", "--relative", "--no-renames", "--diff-filter=d"},
		{"diff", "--name-only", "-z", "--relative", "--no-renames", "--diff-filter=d"},
		{"ls-files", "--others", "--exclude-standard", "-z"},
	} {
		cmd := exec.Command("git", append([]string{"-c", "core.quotePath=false"}, args...)...)
		cmd.Dir = root
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, usageError("--changed: git %s failed in %s: %v: %s; is the base inside a git repository?",
				strings.Join(args, " "), root, err, strings.TrimSpace(stderr.String()))
		}
		for _, p := range strings.Split(stdout.String(), "\x00") {
			if p != "" {
				out = append(out, filepath.ToSlash(p))
			}
		}
	}
	return out, nil
}

func hasErrors(ds []diag.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == diag.Error {
			return true
		}
	}
	return false
}

func countFiles(ds []diag.Diagnostic) int {
	files := map[string]bool{}
	for _, d := range ds {
		if d.Severity == diag.Error {
			files[d.File] = true
		}
	}
	return len(files)
}

// printDiagnostics writes diagnostics to stderr, one a line.
func printDiagnostics(env *Env, ds []diag.Diagnostic) {
	for _, d := range ds {
		fmt.Fprintln(env.Stderr, d.String())
	}
}
