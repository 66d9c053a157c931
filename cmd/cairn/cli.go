package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/alecthomas/kong"
)

// Version is cairn's release version, recorded in every manifest.
const Version = "0.1.0"

// CLI is the command tree. Each command is a struct with a Run method in a
// file of its own.
type CLI struct {
	Base string `help:"Base folder (default: $CAIRN_BASE, else the nearest folder above holding cairn.yaml)." placeholder:"DIR"`

	Init    InitCmd    `cmd:"" help:"Scaffold a new base: cairn.yaml, empty layer folders and a .gitignore for .cairn/."`
	Build   BuildCmd   `cmd:"" help:"Compile the base into .cairn/ (make-style: only what changed is rebuilt)."`
	Context ContextCmd `cmd:"" help:"The best few records and pages for a query, under a token budget, with a receipt."`
	Note    NoteCmd    `cmd:"" help:"Record a suggestion, or keep or drop one, in the notes log; list the log."`
	Demo    DemoCmd    `cmd:"" help:"Build the bundled demo base in a temporary folder and show what was built."`
	Version VersionCmd `cmd:"" help:"Print the version, commit, ranking and format versions."`
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
	exit := -1
	parser, err := kong.New(&cli,
		kong.Name("cairn"),
		kong.Description("cairn compiles a local knowledge base into static, byte-reproducible artifacts and answers from them."),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(code int) { exit = code }),
		kong.UsageOnError(),
	)
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %v\n", err)
		return 3
	}
	ctx, err := parser.Parse(args)
	if exit >= 0 {
		return exit // --help
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %v\n", err)
		return 2
	}
	env.Base = cli.Base
	if err := ctx.Run(env); err != nil {
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
