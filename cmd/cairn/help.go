package main

import (
	"embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// topicFiles holds the reference, one Markdown file a topic, as GitHub
// shows them when the repository is browsed and as `cairn help TOPIC`
// prints them.
//
//go:embed help/*.md
var topicFiles embed.FS

// topic is one page of the reference.
type topic struct {
	name    string
	summary string
	// commands are the paths of the commands the topic explains, below
	// cairn; each of them, and each of their subcommands, names the topic
	// at the end of its --help.
	commands []string
}

// topics is the reference in the order `cairn help` lists it: the base
// and what it holds, then how answers are made, then how cairn is wired
// into a team's work, then the rest.
var topics = []topic{
	{"base", "what a base holds, how cairn finds it, and what it will not touch", []string{"init", "status"}},
	{"config", "cairn.yaml, key by key", []string{"init", "build"}},
	{"records", "record documents, field paths, record URIs, and cairn collect", []string{"collect", "read"}},
	{"pages", "wiki, project and task pages: frontmatter, anchors, windows", []string{"read", "list"}},
	{"voices", "voice profiles, points and axes, kapi's profiles and cairn import kapi", []string{"import", "context"}},
	{"terms", "the terms store, and cairn check, which enforces it", []string{"check"}},
	{"notes", "the notes log and cairn note: suggest, decide, amend, list", []string{"note"}},
	{"rules", "the rules files in AGENTS.md and CLAUDE.md, and what applies at a path", []string{"context", "build"}},
	{"queries", "how a question is read, and cairn search, list and read", []string{"context", "search", "list", "read"}},
	{"ranking", "how a score adds up, the order, what a pack selects, and cairn eval", []string{"context", "search", "eval"}},
	{"receipts", "a pack's receipt, its JSON, delta packs and the budget", []string{"context"}},
	{"artifacts", "the files under .cairn/ and how a build makes them", []string{"build"}},
	{"mcp", "cairn mcp: its tools and limits, and how to register it with an agent", []string{"mcp"}},
	{"hooks", "session-start hooks for Claude Code, Codex, Gemini CLI, Cursor and Copilot", []string{"hook"}},
	{"ci", "pre-commit and CI: build --check, the shipped hooks, a GitHub Actions workflow", []string{"build", "check"}},
	{"output", "stdout and stderr, --format, exit codes, version, completion, help and man", []string{"version", "completion", "help", "man", "demo"}},
	{"limits", "size caps, input cairn warns about, and how stored text is shown", []string{"build", "read"}},
	{"troubleshooting", "the errors people meet first, and what to do", []string{"build", "context"}},
	{"develop", "working on cairn: the code's layout, the tests, the justfile, the dependencies", []string{"demo"}},
}

// findTopic returns the topic named name.
func findTopic(name string) (topic, bool) {
	i := slices.IndexFunc(topics, func(t topic) bool { return t.name == name })
	if i < 0 {
		return topic{}, false
	}
	return topics[i], true
}

// topicText is a topic's Markdown, as the repository holds it.
func topicText(t topic) string {
	data, err := topicFiles.ReadFile("help/" + t.name + ".md")
	if err != nil {
		panic(err) // every topic has its file: TestTopics
	}
	return string(data)
}

// topicsOf returns the topics that explain the command at path: those
// that name it or a command above it ("note" explains "note keep").
func topicsOf(path string) []string {
	var names []string
	for _, t := range topics {
		if slices.ContainsFunc(t.commands, func(c string) bool { return path == c || strings.HasPrefix(path, c+" ") }) {
			names = append(names, t.name)
		}
	}
	return names
}

// HelpCmd is `cairn help [COMMAND…|TOPIC]`: a command's help, the same
// text as `cairn COMMAND --help`, or a topic of the reference, as
// `go help TOPIC` prints one.
type HelpCmd struct {
	Command []string `arg:"" optional:"" name:"COMMAND|TOPIC" help:"A command (and subcommand) to show the help of, or a topic of the reference to print."`
}

// Help is the detail under the summary of `cairn help --help`.
func (HelpCmd) Help() string {
	return `A word that names a topic prints the topic; otherwise the words name a command. With no word, the commands and the topics are listed.

Examples:

    cairn help context
    cairn help note suggest
    cairn help ranking    # how a score adds up`
}

// Run prints the topic or the command's help, to stdout.
func (c *HelpCmd) Run(kctx *kong.Context, env *Env) error {
	if len(c.Command) == 1 {
		if t, ok := findTopic(c.Command[0]); ok {
			_, err := io.WriteString(env.Stdout, topicText(t))
			return err
		}
	}
	target, err := kong.Trace(kctx.Kong, c.Command)
	if err != nil {
		return err
	}
	if target.Error != nil {
		msg := "help: " + target.Error.Error()
		if len(c.Command) == 1 {
			msg = fmt.Sprintf("help: %q names no command and no topic", c.Command[0])
			if _, hint, ok := strings.Cut(target.Error.Error(), ", did you mean"); ok {
				msg += ", did you mean" + hint
			}
		}
		return usageError("%s", withHelpHint(msg, "cairn help"))
	}
	return target.PrintUsage(false)
}

// printHelp is kong's help followed by where the reference is: at the top
// level, the list of topics; for a command, the topics that explain it,
// so that any flag's meaning is at most two steps from `cairn --help`.
func printHelp(options kong.HelpOptions, kctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, kctx); err != nil {
		return err
	}
	w := kctx.Stdout
	node := kctx.Selected()
	if node == nil {
		fmt.Fprintln(w, "\nTopics (cairn help TOPIC):")
		for _, t := range topics {
			fmt.Fprintf(w, "  %-17s %s\n", t.name, t.summary)
		}
		return nil
	}
	if names := topicsOf(commandPath(node)); len(names) > 0 {
		fmt.Fprintf(w, "\nSee also (cairn help TOPIC): %s\n", strings.Join(names, ", "))
	}
	return nil
}

// commandPath is a command's path below cairn: "note suggest".
func commandPath(n *kong.Node) string {
	return strings.TrimPrefix(n.FullPath(), "cairn ")
}
