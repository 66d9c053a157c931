package main

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestParse drives the command line parser over the real command tree.
func TestParse(t *testing.T) {
	cases := []struct {
		args  []string
		check func(t *testing.T, cli *CLI, cmd string)
	}{
		{[]string{"--base", "b", "context", "what", "--budget=300", "changed", "--pin", "wiki/a.md", "--pin=wiki/b.md", "--explain"},
			func(t *testing.T, cli *CLI, cmd string) {
				c := cli.Context
				if cmd != "cairn context" || cli.Base != "b" || c.Budget != 300 || !c.Explain || c.Expand ||
					!slices.Equal(c.Query, []string{"what", "changed"}) || !slices.Equal(c.Pin, []string{"wiki/a.md", "wiki/b.md"}) {
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
		{[]string{"build", "--check", "--quiet=false", "--as-of", "2026-11-10", "--base=x"}, func(t *testing.T, cli *CLI, cmd string) {
			b := cli.Build
			if cmd != "cairn build" || !b.Check || b.Quiet || b.AsOf != "2026-11-10" || cli.Base != "x" {
				t.Errorf("%s: %+v base %q", cmd, b, cli.Base)
			}
		}},
		{[]string{"note", "suggest", "note:x", "say", "it", "--axis", "market=emea", "--axis=lang=fr", "--path", "docs/**", "--actor", "agent:t"},
			func(t *testing.T, cli *CLI, cmd string) {
				s := cli.Note.Suggest
				if cmd != "cairn note suggest" || s.Target != "note:x" || !slices.Equal(s.Text, []string{"say", "it"}) ||
					!maps.Equal(s.Axis, map[string]string{"market": "emea", "lang": "fr"}) || !slices.Equal(s.Path, []string{"docs/**"}) || s.Actor != "agent:t" {
					t.Errorf("%s: %+v", cmd, s)
				}
			}},
		{[]string{"note", "keep", "20261130T101010.000Z-abcdef", "because", "--session", "s1"}, func(t *testing.T, cli *CLI, cmd string) {
			k := cli.Note.Keep
			if cmd != "cairn note keep" || k.Ref != "20261130T101010.000Z-abcdef" || !slices.Equal(k.Why, []string{"because"}) || k.Session != "s1" {
				t.Errorf("%s: %+v", cmd, k)
			}
		}},
		{[]string{"note", "list", "--format", "json"}, func(t *testing.T, cli *CLI, cmd string) {
			if cli.Note.List.Format != "json" {
				t.Errorf("format %q", cli.Note.List.Format)
			}
		}},
		{[]string{"init"}, func(t *testing.T, cli *CLI, cmd string) {
			if cmd != "cairn init" || cli.Init.Dir != "" {
				t.Errorf("%s dir %q", cmd, cli.Init.Dir)
			}
		}},
	}
	for _, c := range cases {
		var cli CLI
		cmd, path, help, err := parse(cli.tree(), c.args)
		if err != nil || help || cmd.run == nil {
			t.Errorf("%q: %v (help %v)", c.args, err, help)
			continue
		}
		c.check(t, &cli, strings.Join(path, " "))
	}
}

// TestParseErrors: every mistake exits 2 with a message naming it and the
// help to read.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, `unknown command "frob"; run ` + "`cairn --help`"},
		{[]string{"context", "--bogus"}, "unknown flag --bogus; run `cairn context --help`"},
		{[]string{"context", "-b", "q"}, "unknown flag -b (flags are spelled --name)"},
		{[]string{"--budget", "3", "context", "q"}, "unknown flag --budget; run `cairn --help`"},
		{[]string{"context", "q", "--budget"}, "--budget needs a value (TOKENS)"},
		{[]string{"context", "q", "--budget", "many"}, `--budget: expected a whole number, got "many"`},
		{[]string{"context", "q", "--as-of", "2026-11-10", "--as-of", "2026-11-11"}, "--as-of is given twice"},
		{[]string{"context", "q", "--explain=maybe"}, `--explain takes no value (or true/false), got "maybe"`},
		{[]string{"note", "suggest", "note:x"}, "missing TEXT; run `cairn note suggest --help`"},
		{[]string{"note", "suggest", "note:x", "t", "--axis", "market"}, `--axis: expected KEY=VALUE, got "market"`},
		{[]string{"note", "list", "--format", "yaml"}, `--format: expected one of text, json, got "yaml"`},
		{[]string{"note", "frob"}, `unknown command "frob"; run ` + "`cairn note --help`"},
		{[]string{"version", "now"}, `unexpected argument "now"`},
		{[]string{"init", "a", "b"}, `unexpected argument "b"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
		if code := runEnv(c.args, env); code != 2 || !strings.Contains(errb.String(), c.want) || out.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want 2 and %q", c.args, code, errb.String(), out.String(), c.want)
		}
	}
}

// TestHelp prints usage to stdout and exits 0 for --help anywhere; bare
// `cairn` and `cairn note` print it to stderr and exit 2.
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "Usage: cairn <command> [flags]"},
		{[]string{"context", "q", "-h"}, 0, "Usage: cairn context [QUERY ...] [flags]"},
		{[]string{"note", "suggest", "--help"}, 0, "Usage: cairn note suggest TARGET TEXT ... [flags]"},
		{[]string{"note", "list", "--help"}, 0, "--format=FORMAT"},
		{nil, 2, "Commands:\n  init"},
		{[]string{"note"}, 2, "Commands:\n  suggest"},
	} {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
		code := runEnv(c.args, env)
		got := out.String()
		if c.code != 0 {
			got = errb.String()
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%q: exit %d, output %q; want %d and %q", c.args, code, got, c.code, c.want)
		}
	}
}
