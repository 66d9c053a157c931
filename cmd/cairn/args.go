package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The command line is parsed here rather than by a library: a query is
// a short-lived process, and building a library's model of the command
// tree by reflection cost about 3.5 ms of every run, a quarter of starting
// cairn.

// command is one command or subcommand: its words, what it takes and what
// it runs.
type command struct {
	name    string
	summary string
	args    []arg
	flags   []flag
	subs    []*command // a command with subcommands runs none itself
	run     func(env *Env) error
}

// arg is a positional argument.
type arg struct {
	name     string // as usage shows it: QUERY, DIR
	help     string
	optional bool
	rest     bool // takes every remaining word (then it is the last)
	set      func(words []string)
}

// flag is a --name option: a switch when on is set, else it takes a value
// (set parses it). A repeatable flag may be given more than once.
type flag struct {
	name        string
	placeholder string // the value in usage: DAY, URI
	help        string
	def         string // the default usage shows
	repeatable  bool
	on          *bool
	set         func(v string) error
}

func switchFlag(name, help string, on *bool) flag {
	return flag{name: name, help: help, on: on}
}

func stringFlag(name, placeholder, help string, v *string) flag {
	return flag{name: name, placeholder: placeholder, help: help, set: func(s string) error { *v = s; return nil }}
}

func intFlag(name, placeholder, help string, v *int) flag {
	return flag{name: name, placeholder: placeholder, help: help, def: strconv.Itoa(*v), set: func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("expected a whole number, got %q", s)
		}
		*v = n
		return nil
	}}
}

func listFlag(name, placeholder, help string, v *[]string) flag {
	return flag{name: name, placeholder: placeholder, help: help, repeatable: true, set: func(s string) error { *v = append(*v, s); return nil }}
}

func mapFlag(name, placeholder, help string, v *map[string]string) flag {
	return flag{name: name, placeholder: placeholder, help: help, repeatable: true, set: func(s string) error {
		k, val, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("expected KEY=VALUE, got %q", s)
		}
		if *v == nil {
			*v = map[string]string{}
		}
		(*v)[k] = val
		return nil
	}}
}

func enumFlag(name, help string, v *string, values ...string) flag {
	return flag{name: name, placeholder: strings.ToUpper(name), help: help, def: *v, set: func(s string) error {
		if !slices.Contains(values, s) {
			return fmt.Errorf("expected one of %s, got %q", strings.Join(values, ", "), s)
		}
		*v = s
		return nil
	}}
}

func stringArg(name, help string, optional bool, v *string) arg {
	return arg{name: name, help: help, optional: optional, set: func(w []string) { *v = w[0] }}
}

func restArg(name, help string, optional bool, v *[]string) arg {
	return arg{name: name, help: help, optional: optional, rest: true, set: func(w []string) { *v = w }}
}

// parseError is a command line cairn cannot read; it exits 2 and says
// where to find help.
type parseError struct {
	cmd string // the command words so far, for the help hint
	msg string
}

func (e *parseError) Error() string {
	return fmt.Sprintf("%s; run `%s --help`", e.msg, e.cmd)
}

func (e *parseError) ExitCode() int { return 2 }

// parse reads args against the command tree under root, whose flags are
// global (allowed before and after the command words). It sets what the
// flags and arguments name and returns the command to run, or help when
// --help was asked for (the command whose help to print).
func parse(root *command, args []string) (cmd *command, path []string, help bool, err error) {
	cmd = root
	path = []string{root.name}
	// fail stops at a mistake, naming the help of the command reached.
	fail := func(format string, a ...any) (*command, []string, bool, error) {
		return cmd, path, false, &parseError{strings.Join(path, " "), fmt.Sprintf(format, a...)}
	}
	var words []string
	seen := map[string]bool{}
	flagsDone := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case flagsDone || a == "-" || !strings.HasPrefix(a, "-"):
			if len(words) == 0 && len(cmd.subs) > 0 {
				sub := cmd.sub(a)
				if sub == nil {
					return fail("unknown command %q", a)
				}
				cmd = sub
				path = append(path, a)
				continue
			}
			words = append(words, a)
		case a == "--":
			flagsDone = true
		case a == "-h" || a == "--help":
			help = true
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			f := findFlag(name, cmd, root)
			if f == nil {
				return fail("unknown flag --%s", name)
			}
			if seen[f.name] && !f.repeatable {
				return fail("--%s is given twice", f.name)
			}
			seen[f.name] = true
			if f.on != nil {
				if hasValue {
					b, err := strconv.ParseBool(value)
					if err != nil {
						return fail("--%s takes no value (or true/false), got %q", f.name, value)
					}
					*f.on = b
				} else {
					*f.on = true
				}
				continue
			}
			if !hasValue {
				if i+1 == len(args) {
					return fail("--%s needs a value (%s)", f.name, f.placeholder)
				}
				i++
				value = args[i]
			}
			if err := f.set(value); err != nil {
				return fail("--%s: %v", f.name, err)
			}
		default:
			return fail("unknown flag %s (flags are spelled --name)", a)
		}
	}
	if help {
		return cmd, path, true, nil
	}
	if len(cmd.subs) > 0 {
		return fail("give a command")
	}
	for _, a := range cmd.args {
		switch {
		case len(words) == 0 && !a.optional:
			return fail("missing %s", a.name)
		case len(words) == 0:
		case a.rest:
			a.set(words)
			words = nil
		default:
			a.set(words[:1])
			words = words[1:]
		}
	}
	if len(words) > 0 {
		return fail("unexpected argument %q", words[0])
	}
	return cmd, path, false, nil
}

func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// findFlag looks a flag up in the command, then among the global flags.
func findFlag(name string, cmd, root *command) *flag {
	for _, c := range []*command{cmd, root} {
		for i := range c.flags {
			if c.flags[i].name == name {
				return &c.flags[i]
			}
		}
	}
	return nil
}

// usage prints the help of cmd, found at path under root.
func usage(w io.Writer, root, cmd *command, path []string) {
	line := "Usage: " + strings.Join(path, " ")
	if len(cmd.subs) > 0 {
		line += " <command>"
	}
	for _, a := range cmd.args {
		n := a.name
		if a.rest {
			n += " ..."
		}
		if a.optional {
			n = "[" + n + "]"
		}
		line += " " + n
	}
	fmt.Fprintf(w, "%s [flags]\n\n%s\n", line, cmd.summary)
	if len(cmd.args) > 0 {
		fmt.Fprintf(w, "\nArguments:\n")
		table(w, len(cmd.args), func(i int) (string, string) { return cmd.args[i].name, cmd.args[i].help })
	}
	if len(cmd.subs) > 0 {
		fmt.Fprintf(w, "\nCommands:\n")
		table(w, len(cmd.subs), func(i int) (string, string) { return cmd.subs[i].name, cmd.subs[i].summary })
	}
	flags := cmd.flags
	if cmd != root {
		flags = append(slices.Clone(flags), root.flags...)
	}
	fmt.Fprintf(w, "\nFlags:\n")
	table(w, len(flags)+1, func(i int) (string, string) {
		if i == len(flags) {
			return "-h, --help", "Show this help."
		}
		f := flags[i]
		name := "--" + f.name
		if f.on == nil {
			name += "=" + f.placeholder
		}
		help := f.help
		if f.def != "" {
			help += fmt.Sprintf(" (default: %s)", f.def)
		}
		return name, help
	})
	if len(cmd.subs) > 0 {
		fmt.Fprintf(w, "\nRun `%s <command> --help` for a command's arguments and flags.\n", strings.Join(path, " "))
	}
}

// table prints rows of a name and its help, the help aligned.
func table(w io.Writer, n int, row func(i int) (string, string)) {
	width := 0
	for i := range n {
		name, _ := row(i)
		width = max(width, len(name))
	}
	for i := range n {
		name, help := row(i)
		fmt.Fprintf(w, "  %-*s  %s\n", width, name, help)
	}
}
