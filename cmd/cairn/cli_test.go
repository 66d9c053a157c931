package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

// quietEnv is an environment with captured writers and nothing set.
func quietEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Getwd: os.Getwd}, &out, &errb
}

// TestParse drives kong over the real command tree and checks what each
// command line sets.
func TestParse(t *testing.T) {
	cases := []struct {
		args  []string
		check func(t *testing.T, cli *CLI, cmd string)
	}{
		{[]string{"--base", "b", "context", "--budget=300", "what", "changed", "--pin", "wiki/a.md", "--pin=wiki/b,c.md", "--explain"},
			func(t *testing.T, cli *CLI, cmd string) {
				c := cli.Context
				if cmd != "cairn context" || cli.Base != "b" || c.Budget != 300 || !c.Explain || c.Expand ||
					!slices.Equal(c.Query, []string{"what", "changed"}) || !slices.Equal(c.Pin, []string{"wiki/a.md", "wiki/b,c.md"}) {
					t.Errorf("%s: %+v base %q", cmd, c, cli.Base)
				}
			}},
		{[]string{"context", "q"}, func(t *testing.T, cli *CLI, cmd string) {
			if cli.Context.Budget != 4096 || cli.Context.Format != "" {
				t.Errorf("defaults: budget %d format %q", cli.Context.Budget, cli.Context.Format)
			}
		}},
		{[]string{"context", "--", "--not-a-flag", "-x"}, func(t *testing.T, cli *CLI, cmd string) {
			if !slices.Equal(cli.Context.Query, []string{"--not-a-flag", "-x"}) {
				t.Errorf("after --: %q", cli.Context.Query)
			}
		}},
		{[]string{"context", "a,b", "c;d"}, func(t *testing.T, cli *CLI, cmd string) {
			if !slices.Equal(cli.Context.Query, []string{"a,b", "c;d"}) {
				t.Errorf("query words are split: %q", cli.Context.Query)
			}
		}},
		{[]string{"build", "--check", "--quiet=false", "--as-of", "2026-11-10", "--base=x"}, func(t *testing.T, cli *CLI, cmd string) {
			b := cli.Build
			if cmd != "cairn build" || !b.Check || b.Quiet || b.AsOf != "2026-11-10" || cli.Base != "x" {
				t.Errorf("%s: %+v base %q", cmd, b, cli.Base)
			}
		}},
		{[]string{"note", "suggest", "note:x", "say", "it", "--axis", "market=emea", "--axis=lang=fr", "--path", "docs/{a,b}/**", "--actor", "agent:t"},
			func(t *testing.T, cli *CLI, cmd string) {
				s := cli.Note.Suggest
				if cmd != "cairn note suggest" || s.Target != "note:x" || !slices.Equal(s.Text, []string{"say", "it"}) ||
					!maps.Equal(s.Axis, map[string]string{"market": "emea", "lang": "fr"}) || !slices.Equal(s.Path, []string{"docs/{a,b}/**"}) || s.Actor != "agent:t" {
					t.Errorf("%s: %+v", cmd, s)
				}
			}},
		{[]string{"note", "keep", "20261130T101010.000Z-abcdef", "because", "--session", "s1"}, func(t *testing.T, cli *CLI, cmd string) {
			k := cli.Note.Keep
			if cmd != "cairn note keep" || k.Ref != "20261130T101010.000Z-abcdef" || !slices.Equal(k.Why, []string{"because"}) || k.Session != "s1" {
				t.Errorf("%s: %+v", cmd, k)
			}
		}},
		{[]string{"note", "drop", "note:x"}, func(t *testing.T, cli *CLI, cmd string) {
			if d := cli.Note.Drop; cmd != "cairn note drop" || d.Ref != "note:x" || len(d.Why) != 0 {
				t.Errorf("%s: %+v", cmd, d)
			}
		}},
		{[]string{"note", "list", "--format", "json"}, func(t *testing.T, cli *CLI, cmd string) {
			if cli.Note.List.Format != "json" {
				t.Errorf("format %q", cli.Note.List.Format)
			}
		}},
		{[]string{"note", "list"}, func(t *testing.T, cli *CLI, cmd string) {
			if cli.Note.List.Format != "text" {
				t.Errorf("default format %q", cli.Note.List.Format)
			}
		}},
		{[]string{"init"}, func(t *testing.T, cli *CLI, cmd string) {
			if cmd != "cairn init" || cli.Init.Dir != "" {
				t.Errorf("%s dir %q", cmd, cli.Init.Dir)
			}
		}},
		{[]string{"completion", "fish"}, func(t *testing.T, cli *CLI, cmd string) {
			if cmd != "cairn completion" || cli.Completion.Shell != "fish" {
				t.Errorf("%s shell %q", cmd, cli.Completion.Shell)
			}
		}},
		{[]string{"help", "note", "suggest"}, func(t *testing.T, cli *CLI, cmd string) {
			if cmd != "cairn help" || !slices.Equal(cli.Help.Command, []string{"note", "suggest"}) {
				t.Errorf("%s command %q", cmd, cli.Help.Command)
			}
		}},
	}
	for _, c := range cases {
		env, _, _ := quietEnv()
		cli, kctx, err := parse(c.args, env)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		c.check(t, cli, kctx.Selected().FullPath())
	}
}

// TestParseErrors: every mistake exits 2 with a message naming it and the
// help to read, and prints nothing on stdout.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, `unknown command "frob"; run ` + "`cairn --help`"},
		{[]string{"contxt"}, `unknown command "contxt", did you mean "context"? (see ` + "`cairn --help`)"},
		{[]string{"note", "sugest"}, `did you mean "suggest"?`},
		{[]string{"context", "--bogus"}, "unknown flag --bogus; run `cairn context --help`"},
		{[]string{"context", "--explian", "q"}, `unknown flag --explian, did you mean "--explain"? (see ` + "`cairn context --help`)"},
		{[]string{"build", "--quite"}, `did you mean "--quiet"?`},
		{[]string{"context", "-b", "q"}, "unknown flag -b"},
		{[]string{"--budget", "3", "context", "q"}, "unknown flag --budget; run `cairn --help`"},
		{[]string{"context", "q", "--budget"}, "--budget: needs a value (TOKENS); run `cairn context --help`"},
		{[]string{"context", "q", "--budget", "many"}, `--budget: expected a whole number, got "many"; run ` + "`cairn context --help`"},
		{[]string{"context", "q", "--as-of", "2026-11-10", "--as-of", "2026-11-11"}, "--as-of is given twice"},
		{[]string{"--base", "a", "--base=b", "build"}, "--base is given twice"},
		{[]string{"context", "q", "--explain=maybe"}, `--explain: bool value must be true, 1, yes, false, 0 or no but got "maybe"`},
		{[]string{"context", "what", "--budget=300", "changed"}, "unexpected argument changed"},
		{[]string{"note", "suggest", "note:x"}, `expected "<TEXT> ..."; run ` + "`cairn note suggest --help`"},
		{[]string{"note", "keep"}, "<REF>"},
		{[]string{"note", "suggest", "note:x", "t", "--axis", "market"}, `--axis: expected KEY=VALUE, got "market"`},
		{[]string{"note", "suggest", "note:x", "t", "--axis"}, "--axis: needs a value (AXIS=VALUE)"},
		{[]string{"context", "q", "--since", "--until", "2026-11-01"}, "--since: needs a value (DAY)"},
		{[]string{"note", "list", "--format", "yaml"}, `--format must be one of "text","json" but got "yaml"`},
		{[]string{"completion", "tcsh"}, `must be one of "bash","zsh","fish" but got "tcsh"`},
		{[]string{"completion"}, "<SHELL>"},
		{[]string{"note", "frob"}, `unknown command "frob"`},
		{[]string{"version", "now"}, `unexpected argument now`},
		{[]string{"init", "a", "b"}, `unexpected argument b`},
		{[]string{"help", "contxt"}, `help: "contxt" names no command and no topic, did you mean "context"?`},
	}
	for _, c := range cases {
		env, out, errb := quietEnv()
		if code := runEnv(c.args, env); code != 2 || !strings.Contains(errb.String(), c.want) || out.Len() > 0 ||
			!strings.HasPrefix(errb.String(), "cairn: ") || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want 2 and one line with %q", c.args, code, errb.String(), out.String(), c.want)
		}
	}
}

// TestHelp prints usage to stdout and exits 0 for --help anywhere and for
// cairn help; bare `cairn` and `cairn note` print it to stderr and exit 2.
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--help"}, 0, []string{"Usage: cairn <command> [flags]", description[:40], "  context         The best few records", "  completion      Print a shell completion script", "--version"}},
		{[]string{"help"}, 0, []string{"Usage: cairn <command> [flags]", "  note suggest    Record an observation"}},
		{[]string{"context", "q", "-h"}, 0, []string{"Usage: cairn context [<QUERY> ...] [flags]", "Examples:", "--budget=TOKENS", "(default: 4096)", "--base=DIR"}},
		{[]string{"help", "context"}, 0, []string{"Usage: cairn context [<QUERY> ...] [flags]", "Examples:"}},
		{[]string{"note", "suggest", "--help"}, 0, []string{"Usage: cairn note suggest <TARGET> <TEXT> ... [flags]", "--axis=AXIS=VALUE", "--actor=WHO"}},
		{[]string{"help", "note", "suggest"}, 0, []string{"Usage: cairn note suggest <TARGET> <TEXT> ... [flags]"}},
		{[]string{"help", "note"}, 0, []string{"Usage: cairn note <command> [flags]", "  note keep       Keep a suggestion"}},
		{[]string{"build", "--help"}, 0, []string{"Usage: cairn build [flags]", "--check", "--as-of=DAY", "cairn build --check", "--fail-on-change", "--artifacts"}},
		{[]string{"note", "list", "--help"}, 0, []string{"--format=FORMAT", "(default: text)"}},
		{[]string{"help", "completion"}, 0, []string{"Usage: cairn completion <SHELL>", "source <(cairn completion bash)"}},
		{nil, 2, []string{"Usage: cairn <command> [flags]", "Commands:\n  init"}},
		{[]string{"--base", "x"}, 2, []string{"Commands:\n  init"}},
		{[]string{"note"}, 2, []string{"Usage: cairn note <command> [flags]", "  note suggest    Record"}},
	} {
		env, out, errb := quietEnv()
		code := runEnv(c.args, env)
		got, other := out.String(), errb.String()
		if c.code != 0 {
			got, other = other, got
		}
		if code != c.code || other != "" {
			t.Errorf("%q: exit %d, other stream %q; want %d and nothing there", c.args, code, other, c.code)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: output lacks %q:\n%s", c.args, w, got)
			}
		}
	}
}

// TestEveryCommandHasAnExample: each command's help shows how it is run.
func TestEveryCommandHasAnExample(t *testing.T) {
	env, _, _ := quietEnv()
	var cli CLI
	k, err := newParser(&cli, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range k.Model.Leaves(false) {
		if !strings.Contains(n.Detail, "Example") || !strings.Contains(n.Detail, "    "+n.FullPath()) && !strings.Contains(n.Detail, "    cairn") {
			t.Errorf("%s: its help has no example:\n%s", n.FullPath(), n.Detail)
		}
	}
}

// TestVersionFlag: cairn --version prints what cairn version prints, and
// stops there, whatever follows.
func TestVersionFlag(t *testing.T) {
	want := fmt.Sprintf("cairn %s\ncommit unknown\nranking %d\nformat %d\n", Version, artifacts.RankingVersion, artifacts.FormatVersion)
	for _, args := range [][]string{{"--version"}, {"version"}, {"--version", "build"}} {
		env, out, errb := quietEnv()
		if code := runEnv(args, env); code != 0 || out.String() != want || errb.Len() > 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, out.String(), errb.String(), want)
		}
	}
}

// TestInitFolder: with no DIR, init scaffolds --base, then $CAIRN_BASE,
// then the working directory; both a DIR and another --base are refused.
func TestInitFolder(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	wd := filepath.Join(root, "wd")
	if err := os.Mkdir(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(vars map[string]string, args ...string) (int, string) {
		env, _, errb := quietEnv()
		env.Getenv = func(k string) string { return vars[k] }
		env.Getwd = func() (string, error) { return wd, nil }
		return runEnv(args, env), errb.String()
	}
	for _, c := range []struct {
		name string
		vars map[string]string
		args []string
		dir  string
	}{
		{"--base", map[string]string{"CAIRN_BASE": filepath.Join(root, "no")}, []string{"--base", filepath.Join(root, "flag"), "init"}, "flag"},
		{"$CAIRN_BASE", map[string]string{"CAIRN_BASE": filepath.Join(root, "env")}, []string{"init"}, "env"},
		{"DIR over $CAIRN_BASE", map[string]string{"CAIRN_BASE": filepath.Join(root, "no")}, []string{"init", filepath.Join(root, "arg")}, "arg"},
		{"DIR and the same --base", nil, []string{"--base", filepath.Join(root, "same"), "init", filepath.Join(root, "same")}, "same"},
		{"working directory", nil, []string{"init"}, "wd"},
	} {
		if code, stderr := run(c.vars, c.args...); code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(root, c.dir, "cairn.yaml")); err != nil {
			t.Errorf("%s: no cairn.yaml in %s: %v", c.name, c.dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "no")); !os.IsNotExist(err) {
		t.Errorf("a folder that was not asked for was scaffolded: %v", err)
	}
	if code, stderr := run(nil, "--base", filepath.Join(root, "x"), "init", filepath.Join(root, "y")); code != 2 || !strings.Contains(stderr, "give one") {
		t.Errorf("two folders: exit %d, %q; want 2", code, stderr)
	}
	// The base builds where it was scaffolded, found as every command
	// finds it.
	if code, stderr := run(map[string]string{"CAIRN_BASE": filepath.Join(root, "env")}, "build", "--quiet"); code != 0 {
		t.Errorf("build of the $CAIRN_BASE base: exit %d: %s", code, stderr)
	}
}

// TestInitHintsUncommented: every commented hint of the scaffolded
// cairn.yaml, its # taken away, leaves a configuration that builds
// without a diagnostic, alone and all together.
func TestInitHintsUncommented(t *testing.T) {
	isolate(t)
	lines := strings.Split(initConfig, "\n")
	var hints []int
	for i, l := range lines {
		// A hint is an indented comment: an entry of the section above it.
		if strings.HasPrefix(l, "  # ") {
			hints = append(hints, i)
		}
	}
	if len(hints) < 5 {
		t.Fatalf("found %d hints in the template, want at least 5", len(hints))
	}
	try := func(name string, uncomment []int) {
		dir := filepath.Join(t.TempDir(), "kb")
		if code, _, stderr := cairn(t, "init", dir); code != 0 {
			t.Fatalf("init: exit %d: %s", code, stderr)
		}
		edited := slices.Clone(lines)
		for _, i := range uncomment {
			edited[i] = "  " + strings.TrimPrefix(edited[i], "  # ")
		}
		if err := os.WriteFile(filepath.Join(dir, "cairn.yaml"), []byte(strings.Join(edited, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		// The default_voice hint names the profile its comment says to
		// write.
		voice := "name: docs\ndescription: The voice of the docs.\n"
		if err := os.WriteFile(filepath.Join(dir, "governance", "voices", "docs.yaml"), []byte(voice), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := cairn(t, "--base", dir, "build", "--quiet"); code != 0 || stderr != "" {
			t.Errorf("%s: build exit %d, stderr:\n%s\ncairn.yaml:\n%s", name, code, stderr, strings.Join(edited, "\n"))
		}
	}
	for _, i := range hints {
		try(strings.TrimSpace(lines[i]), []int{i})
	}
	try("every hint", hints)
}

// TestInitGitignore: a folder without .gitignore gets one, ignoring
// .cairn/ and cairn's temporary files; one that ignores both already is
// left quietly; one that does not is left as it is, with a warning that
// says what to add.
func TestInitGitignore(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		name, before string // before "" is no .gitignore
		after, warn  string
	}{
		{"none", "", ".cairn/\n.cairn-tmp-*\n", ""},
		{"ignores both", "node_modules/\n/.cairn\n.cairn-tmp-*\n", "node_modules/\n/.cairn\n.cairn-tmp-*\n", ""},
		{"lacks the temp files", "node_modules/\n/.cairn\n", "node_modules/\n/.cairn\n", "add a line .cairn-tmp-* to it"},
		{"lacks it", "node_modules/\n.cairn-old/\n", "node_modules/\n.cairn-old/\n", "add the lines .cairn/ and .cairn-tmp-* to it"},
	} {
		dir := t.TempDir()
		gi := filepath.Join(dir, ".gitignore")
		if c.before != "" {
			if err := os.WriteFile(gi, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := cairn(t, "init", dir)
		data, _ := os.ReadFile(gi)
		if code != 0 || string(data) != c.after || !strings.Contains(stdout, "initialised") {
			t.Errorf("%s: exit %d, .gitignore %q; want 0 and %q", c.name, code, data, c.after)
		}
		if c.warn == "" && stderr != "" || c.warn != "" && (!strings.Contains(stderr, c.warn) || !strings.HasPrefix(stderr, "cairn: warning: ")) {
			t.Errorf("%s: stderr %q; want a warning %q", c.name, stderr, c.warn)
		}
	}
}
