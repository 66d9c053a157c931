package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-kb/cairn/query"
)

// Version is cairn's release version, recorded in every manifest.
const Version = "0.1.0"

// CLI holds what a command line sets: the global flags and each
// command's arguments and flags. Each command is a struct with a Run
// method in a file of its own; tree says which words reach it.
type CLI struct {
	Base string

	Init    InitCmd
	Build   BuildCmd
	Context ContextCmd
	Note    NoteCmd
	Demo    DemoCmd
	Version VersionCmd
}

// tree is the command tree over cli's fields, with every argument, flag
// and help text.
func (cli *CLI) tree() *command {
	c, b, n := &cli.Context, &cli.Build, &cli.Note
	c.Budget, n.List.Format = query.DefaultBudget, "text"
	day := func(v *string, help string) flag { return stringFlag("as-of", "DAY", help, v) }
	return &command{
		name:    "cairn",
		summary: "cairn compiles a local knowledge base into static, byte-reproducible artifacts and answers from them.",
		flags: []flag{
			stringFlag("base", "DIR", "Base folder (default: $CAIRN_BASE, else the nearest folder above holding cairn.yaml).", &cli.Base),
		},
		subs: []*command{{
			name:    "init",
			summary: "Scaffold a new base: cairn.yaml, empty layer folders and a .gitignore for .cairn/.",
			args:    []arg{stringArg("DIR", "Folder to scaffold (default: the working directory).", true, &cli.Init.Dir)},
			run:     cli.Init.Run,
		}, {
			name:    "build",
			summary: "Compile the base into .cairn/ (make-style: only what changed is rebuilt).",
			flags: []flag{
				switchFlag("check", "Build in memory and write nothing; list every file that would change and exit 1 if any would (for CI and pre-commit).", &b.Check),
				switchFlag("quiet", "Print nothing but warnings and errors.", &b.Quiet),
				switchFlag("timings", "Print how long each stage took, to stderr.", &b.Timings),
				day(&b.AsOf, "The day governance windows are evaluated at for the rules files (default: $CAIRN_AS_OF, else today, UTC)."),
			},
			run: b.Run,
		}, {
			name:    "context",
			summary: "The best few records and pages for a query, under a token budget, with a receipt.",
			args:    []arg{restArg("QUERY", "The question or identifiers to find context for.", true, &c.Query)},
			flags: []flag{
				intFlag("budget", "TOKENS", "Token budget of the whole delivered pack (⌈bytes/4⌉, receipt and notice included).", &c.Budget),
				stringFlag("since", "DAY", "First day of dated evidence (YYYY-MM-DD).", &c.Since),
				stringFlag("until", "DAY", "Last day of dated evidence (YYYY-MM-DD); alone it means the 30 days ending there.", &c.Until),
				day(&c.AsOf, "The day every date rule is evaluated at (default: $CAIRN_AS_OF, else today, UTC)."),
				listFlag("pin", "URI", "Include this wiki or project page first (repeatable; exact URI).", &c.Pin),
				switchFlag("expand", "Join items that share an entity with the strongest candidates.", &c.Expand),
				switchFlag("explain", "Show every item's reasons with their points.", &c.Explain),
				stringFlag("format", "FORMAT", "Output format: text, json or jsonl for a pack; markdown or json with --at or --profile.", &c.Format),
				stringFlag("at", "PATH", "Answer what applies at this path instead: its point, voice, terms, notes and suggestions.", &c.At),
				stringFlag("profile", "NAME", "Answer what this voice profile holds, with no project point behind it.", &c.Profile),
				switchFlag("comments", "With --at: answer for the code comments written at the path, the voice's limits for comments first.", &c.Comments),
				switchFlag("save-receipt", "Not available yet.", &c.SaveReceipt),
				stringFlag("since-receipt", "DIGEST", "Not available yet.", &c.SinceReceipt),
			},
			run: c.Run,
		}, {
			name:    "note",
			summary: "Record a suggestion, or keep or drop one, in the notes log; list the log.",
			subs: []*command{{
				name:    "suggest",
				summary: "Record an observation as a suggestion (anyone; it is not a rule until a person keeps it).",
				args: []arg{
					stringArg("TARGET", "What it is about: note:<slug> for a note in prose, term:<id> for a term of terms.yaml.", false, &n.Suggest.Target),
					restArg("TEXT", "The observation, in a sentence or two.", false, &n.Suggest.Text),
				},
				flags: append([]flag{
					listFlag("path", "GLOB", "Where it holds: a glob of content paths (repeatable; default everywhere).", &n.Suggest.Path),
					mapFlag("axis", "AXIS=VALUE", "Where it holds on a typed axis, as axis=value (repeatable).", &n.Suggest.Axis),
					listFlag("evidence", "URI", "A file or record URI that shows it (repeatable).", &n.Suggest.Evidence),
					stringFlag("valid-from", "DAY", "First day it holds (YYYY-MM-DD).", &n.Suggest.ValidFrom),
					stringFlag("valid-until", "DAY", "Last day it holds (YYYY-MM-DD).", &n.Suggest.ValidUntil),
				}, n.Suggest.noteWho.flags()...),
				run: n.Suggest.Run,
			}, {
				name:    "keep",
				summary: "Keep a suggestion: a person's keep makes it a rule or an established note.",
				args:    n.Keep.args(),
				flags:   n.Keep.noteWho.flags(),
				run:     n.Keep.Run,
			}, {
				name:    "drop",
				summary: "Drop a suggestion or a kept note (a person's decision).",
				args:    n.Drop.args(),
				flags:   n.Drop.noteWho.flags(),
				run:     n.Drop.Run,
			}, {
				name:    "list",
				summary: "List the operations of the notes log, oldest first.",
				flags: []flag{
					stringFlag("target", "TARGET", "Only the operations on this target.", &n.List.Target),
					enumFlag("format", "Output format: text or json.", &n.List.Format, "text", "json"),
				},
				run: n.List.Run,
			}},
		}, {
			name:    "demo",
			summary: "Build the bundled demo base in a temporary folder and show what was built.",
			flags:   []flag{switchFlag("keep", "Keep the temporary base and print its path, to explore it with --base.", &cli.Demo.Keep)},
			run:     cli.Demo.Run,
		}, {
			name:    "version",
			summary: "Print the version, commit, ranking and format versions.",
			run:     cli.Version.Run,
		}},
	}
}

// Env is what every command gets: where to write, and the process's
// environment, so that tests can drive the real command tree.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Getwd          func() (string, error)
	// Now reads the clock; nil means time.Now. Only commands that record
	// when something happened (cairn note) read it.
	Now func() time.Time
	// Base is the --base flag as given.
	Base string
}

// exitCoder is an error that carries its exit status.
type exitCoder interface{ ExitCode() int }

// exitError is an error with a status and a message already meant for the
// user.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) ExitCode() int { return e.code }

// usageError is invalid input from the command line or the environment.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// run parses args, runs the command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Getwd: os.Getwd}
	return runEnv(args, env)
}

func runEnv(args []string, env *Env) int {
	var cli CLI
	root := cli.tree()
	cmd, path, help, err := parse(root, args)
	switch {
	case help:
		usage(env.Stdout, root, cmd, path)
		return 0
	case len(args) == len(path)-1 && len(cmd.subs) > 0:
		// `cairn` or `cairn note` alone: say what there is to run.
		usage(env.Stderr, root, cmd, path)
		return 2
	}
	if err == nil {
		env.Base = cli.Base
		err = cmd.run(env)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %v\n", err)
		var ec exitCoder
		if errors.As(err, &ec) {
			return ec.ExitCode()
		}
		return 3
	}
	return 0
}

// now is the current time, from Env.Now when a test fixes it.
func (env *Env) now() time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

// findBase resolves the base folder: --base, then $CAIRN_BASE, then the
// nearest ancestor of the working directory holding cairn.yaml.
func (env *Env) findBase() (string, error) {
	if env.Base != "" {
		return checkBase(env.Base, "--base")
	}
	if b := env.Getenv("CAIRN_BASE"); b != "" {
		return checkBase(b, "$CAIRN_BASE")
	}
	wd, err := env.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if st, err := os.Stat(filepath.Join(dir, "cairn.yaml")); err == nil && st.Mode().IsRegular() {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", usageError("no cairn base here: no cairn.yaml in %s or any folder above it; run `cairn init`, pass --base DIR or set CAIRN_BASE", wd)
		}
	}
}

func checkBase(dir, from string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(filepath.Join(abs, "cairn.yaml"))
	if err != nil || !st.Mode().IsRegular() {
		return "", usageError("%s names %s, which holds no cairn.yaml; run `cairn init %s` or fix the path", from, abs, dir)
	}
	return abs, nil
}
