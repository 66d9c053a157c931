package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/cairn-kb/cairn/query"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/load"
)

// Version is cairn's release version, recorded in every manifest.
const Version = "0.1.0"

// CLI is the command line: the global flags, then one field per command,
// each a struct with a Run method in a file of its own.
type CLI struct {
	Base        string      `help:"Base folder (default: $CAIRN_BASE, else the nearest folder above holding cairn.yaml)." placeholder:"DIR"`
	VersionFlag versionFlag `name:"version" help:"Print the version, commit, ranking and format versions."`

	Init       InitCmd       `cmd:"" help:"Scaffold a new base: cairn.yaml, empty layer folders and a .gitignore for .cairn/."`
	Build      BuildCmd      `cmd:"" help:"Compile the base into .cairn/ (make-style: only what changed is rebuilt)."`
	Context    ContextCmd    `cmd:"" help:"The best few records and pages for a query, under a token budget, with a receipt."`
	Search     SearchCmd     `cmd:"" help:"Every match of a query, grouped by kind and ranked within each group."`
	List       ListCmd       `cmd:"" help:"The items of one layer, newest first, filtered and paged."`
	Read       ReadCmd       `cmd:"" help:"One record (with its raw fields), page, section, term, note, entity or voice profile, in full."`
	Collect    CollectCmd    `cmd:"" help:"Run the base's sources and the built-in collectors (git, markdown) into record documents."`
	Note       NoteCmd       `cmd:"" help:"Record, decide on and amend suggestions in the notes log (suggest, keep, drop, widen, reset, correct, merge); list the log."`
	Check      CheckCmd      `cmd:"" help:"Check content files against the writing rules in force at their point."`
	Status     StatusCmd     `cmd:"" help:"What the base holds, by layer and source, and whether .cairn/ and the rules files are current."`
	Import     ImportCmd     `cmd:"" help:"Convert another tool's governance files into the base's governance/ (kapi)."`
	Eval       EvalCmd       `cmd:"" help:"Answer an evaluation suite's questions and check each pack against what it expects."`
	Mcp        McpCmd        `cmd:"" name:"mcp" help:"Serve the base to an agent over MCP: stdio, or streamable HTTP on loopback."`
	Hook       HookCmd       `cmd:"" help:"Print a compact pack and the rules for the working folder, for an agent's session-start hook."`
	Demo       DemoCmd       `cmd:"" help:"Build the bundled demo base in a temporary folder and show what was built."`
	Version    VersionCmd    `cmd:"" help:"Print the version, commit, ranking and format versions."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script for bash, zsh or fish."`
	Help       HelpCmd       `cmd:"" help:"Show the help of a command, or print a topic of the reference (cairn help lists both)."`
	Man        ManCmd        `cmd:"" help:"Print cairn's man pages, made from the command tree and the reference topics."`
}

// description heads `cairn --help`.
const description = "cairn compiles a local knowledge base into static, byte-reproducible artifacts and answers from them."

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

// writeJSON prints v as `--format json` prints every answer of the CLI:
// indented two spaces, HTML left unescaped, one newline at the end, and
// what could act on a reader's display escaped in its strings
// (escape.Bytes), which decode to the values as they are.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escape.Bytes(b.Bytes()))
	return err
}

// usageError is invalid input from the command line or the environment.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// exited is what kong's Exit panics with, so that --help, --version and
// kong's own failures end runEnv with a status instead of ending the
// process (a test's, or main's before it has flushed anything).
type exited struct{ code int }

// newParser builds kong's model of the command tree over cli, writing to
// env's writers.
func newParser(cli *CLI, env *Env) (*kong.Kong, error) {
	return kong.New(cli,
		kong.Name("cairn"),
		kong.Description(description),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(code int) { panic(exited{code}) }),
		kong.Vars{"budget": strconv.Itoa(query.DefaultBudget)},
		kong.TypeMapper(reflect.TypeFor[int](), wholeNumber),
		kong.KindMapper(reflect.String, text),
		kong.TypeMapper(reflect.TypeFor[map[string]string](), keyValue),
		kong.ValueFormatter(helpWithDefault),
		kong.ConfigureHelp(kong.HelpOptions{WrapUpperBound: 100, Compact: true}),
		kong.Help(printHelp),
	)
}

// runEnv parses args, runs the command in env and returns the exit
// status: main's whole work, and what tests drive the real tree with.
func runEnv(args []string, env *Env) (code int) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(exited)
			if !ok {
				panic(r)
			}
			code = e.code
		}
	}()
	cli, kctx, err := parse(args, env)
	if err != nil {
		return parseFailed(env, err)
	}
	env.Base = cli.Base
	if err := kctx.Run(env); err != nil {
		// An error may quote what was asked or stored: a URI, a path.
		fmt.Fprintf(env.Stderr, "cairn: %s\n", escape.Text(err.Error()))
		var ec exitCoder
		if errors.As(err, &ec) {
			return ec.ExitCode()
		}
		return 3
	}
	return 0
}

// parse reads args into a CLI. --help and --version print and end the
// parse through kong's Exit (see exited).
func parse(args []string, env *Env) (*CLI, *kong.Context, error) {
	var cli CLI
	parser, err := newParser(&cli, env)
	if err != nil {
		panic(err) // the command tree's tags are wrong: a bug, caught by every test
	}
	kctx, err := parser.Parse(args)
	if err == nil {
		err = refuseRepeats(kctx)
	}
	return &cli, kctx, err
}

// parseFailed reports a command line cairn cannot read, naming the help to
// read, and returns 2. `cairn` or `cairn note` alone, with no command,
// prints that command's help instead, to stderr.
func parseFailed(env *Env, err error) int {
	var perr *kong.ParseError
	if !errors.As(err, &perr) || perr.Context == nil {
		fmt.Fprintf(env.Stderr, "cairn: %s\n", escape.Text(err.Error()))
		return 2
	}
	kctx := perr.Context
	node := kctx.Selected()
	if node == nil {
		node = kctx.Model.Node
	}
	if kctx.Error == nil && len(node.Children) > 0 {
		kctx.Kong.Stdout = env.Stderr
		kctx.PrintUsage(false)
		return 2
	}
	msg := err.Error()
	// kong calls a word that names no command an unexpected argument;
	// where a command is expected, say so.
	if rest, ok := strings.CutPrefix(msg, "unexpected argument "); ok && len(node.Children) > 0 {
		word, more, _ := strings.Cut(rest, ",")
		if more != "" {
			more = "," + more
		}
		msg = fmt.Sprintf("unknown command %q%s", word, more)
	}
	fmt.Fprintf(env.Stderr, "cairn: %s\n", escape.Text(withHelpHint(msg, node.FullPath()+" --help")))
	return 2
}

// withHelpHint ends a message about the command line with the help to
// read; after kong's "did you mean …?" in brackets.
func withHelpHint(msg, help string) string {
	if strings.HasSuffix(msg, "?") {
		return fmt.Sprintf("%s (see `%s`)", msg, help)
	}
	return fmt.Sprintf("%s; run `%s`", msg, help)
}

// refuseRepeats fails a flag given twice unless it is a list: kong would
// keep the last value, and `--as-of A --as-of B` is more likely a mistake
// in a script than a correction.
func refuseRepeats(kctx *kong.Context) error {
	seen := map[*kong.Flag]bool{}
	for _, p := range kctx.Path {
		if p.Flag == nil {
			continue
		}
		if seen[p.Flag] && !p.Flag.IsSlice() && !p.Flag.IsMap() {
			return usageError("--%s is given twice; run `%s --help`", p.Flag.Name, kctx.Selected().FullPath())
		}
		seen[p.Flag] = true
	}
	return nil
}

// popValue takes a flag's or argument's value off the command line,
// saying in plain words that one is missing (kong's own error names the
// scanner's token types).
func popValue(ctx *kong.DecodeContext) (string, error) {
	t, err := ctx.Scan.PopValue("")
	if err != nil {
		if f := ctx.Value.Flag; f != nil && f.PlaceHolder != "" {
			return "", fmt.Errorf("needs a value (%s)", f.PlaceHolder)
		}
		return "", errors.New("needs a value")
	}
	return fmt.Sprint(t.Value), nil
}

// text reads a string flag or argument.
var text = kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
	s, err := popValue(ctx)
	target.SetString(s)
	return err
})

// keyValue reads one KEY=VALUE of a repeatable map flag (--axis).
var keyValue = kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
	s, err := popValue(ctx)
	if err != nil {
		return err
	}
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("expected KEY=VALUE, got %q", s)
	}
	if target.IsNil() {
		target.Set(reflect.MakeMap(target.Type()))
	}
	target.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(v))
	return nil
})

// wholeNumber reads an int flag, saying in plain words what it wants.
var wholeNumber = kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
	s, err := popValue(ctx)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("expected a whole number, got %q", s)
	}
	target.SetInt(int64(n))
	return nil
})

// helpWithDefault is a flag's help with its default, as `(default: N)`,
// when it has one worth saying.
func helpWithDefault(v *kong.Value) string {
	help := kong.DefaultHelpValueFormatter(v)
	if v.Default != "" && !v.IsBool() {
		help += fmt.Sprintf(" (default: %s)", v.Default)
	}
	return help
}

// versionFlag is `cairn --version`: the same text as `cairn version`.
type versionFlag bool

// BeforeReset prints the versions and ends the command line there, as
// --help does.
func (versionFlag) BeforeReset(k *kong.Kong) error {
	printVersion(k.Stdout)
	k.Exit(0)
	return nil
}

// now is the current time, from Env.Now when a test fixes it.
func (env *Env) now() time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

// findBase resolves the base folder: --base, then $CAIRN_BASE, then the
// nearest ancestor of the working directory holding cairn.yaml, or
// fkf.yaml (an fkf base, read as it is).
// noBaseError is findBase's answer when no folder above the working one
// holds a base and none was named: what a command that can answer without
// a base (a built-in voice profile) tells apart.
type noBaseError struct{ error }

func (e *noBaseError) Unwrap() error { return e.error }

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
		if holdsConfig(dir) {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", &noBaseError{usageError("no cairn base here: no cairn.yaml in %s or any folder above it; run `cairn init`, pass --base DIR or set CAIRN_BASE", wd)}
		}
	}
}

func checkBase(dir, from string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if !holdsConfig(abs) {
		return "", usageError("%s names %s, which holds no cairn.yaml; run `cairn init %s` or fix the path", from, abs, dir)
	}
	return abs, nil
}

// holdsConfig reports whether dir is a base: it holds cairn.yaml, or
// fkf.yaml.
func holdsConfig(dir string) bool {
	for _, name := range []string{load.ConfigFile, load.FkfConfigFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}
