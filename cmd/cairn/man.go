package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-kb/cairn/cmd/cairn/internal/roff"
)

// manSource and manManual are the footer and header a man page shows.
const (
	manSource = "cairn " + Version
	manManual = "cairn manual"
)

// ManCmd is `cairn man`: the man pages, written from kong's model of the
// command tree (every command, argument and flag, with the help the
// binary prints) and from the reference topics, so they cannot drift
// from either.
type ManCmd struct {
	Topic string `arg:"" optional:"" name:"TOPIC" help:"Print the page of this topic, cairn-TOPIC(7), instead of cairn(1)."`
	Dir   string `help:"Write cairn.1 and every topic's cairn-TOPIC.7 into this folder, and print their paths." placeholder:"DIR" type:"path"`
}

// Help is the detail under the summary of `cairn man --help`.
func (ManCmd) Help() string {
	return `cairn(1) holds every command with its arguments and flags; each topic of cairn help is a page of section 7, cairn-TOPIC(7).

Examples:

    cairn man | man -l -
    cairn man ranking | man -l -
    cairn man --dir ~/.local/share/man/man1    # then: man cairn`
}

// Run prints or writes the pages.
func (c *ManCmd) Run(kctx *kong.Context, env *Env) error {
	if c.Dir != "" {
		if c.Topic != "" {
			return usageError("man: give a TOPIC or --dir, not both; run `cairn man --help`")
		}
		return writeManPages(kctx.Model, c.Dir, env)
	}
	if c.Topic == "" {
		_, err := fmt.Fprint(env.Stdout, commandPage(kctx.Model))
		return err
	}
	t, ok := findTopic(c.Topic)
	if !ok {
		return usageError("man: no topic %q; `cairn help` lists them", c.Topic)
	}
	_, err := fmt.Fprint(env.Stdout, topicPage(t))
	return err
}

// writeManPages writes every page into dir, a folder man can be pointed
// at (man1 and man7 are both written flat into it; man -l reads them).
func writeManPages(app *kong.Application, dir string, env *Env) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pages := map[string]string{"cairn.1": commandPage(app)}
	names := []string{"cairn.1"}
	for _, t := range topics {
		name := "cairn-" + t.name + ".7"
		pages[name] = topicPage(t)
		names = append(names, name)
	}
	for _, name := range names {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(pages[name]), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, p)
	}
	return nil
}

// commandPage is cairn(1): the synopsis, the global flags, each command
// with its help, examples and flags and the topics that explain it, and
// the topics' pages.
func commandPage(app *kong.Application) string {
	p := roff.NewPage("cairn", 1, manSource, manManual)
	p.Section("NAME")
	p.Raw("cairn \\- " + roff.Escape(strings.TrimSuffix(strings.TrimPrefix(description, "cairn "), ".")) + "\n")
	p.Section("SYNOPSIS")
	p.Raw(`\fBcairn\fR [\fB\-\-base\fR \fIDIR\fR] \fICOMMAND\fR [\fIflags\fR]` + "\n")
	p.Section("DESCRIPTION")
	p.Paragraph(roff.Escape(description))
	p.Paragraph(roff.Escape("Data goes to stdout; summaries, warnings and errors go to stderr. The base is --base DIR, else $CAIRN_BASE, else the nearest folder at or above the working folder that holds a cairn.yaml. The reference is a set of topics: cairn help TOPIC prints one, and each is also the page cairn-TOPIC(7)."))
	p.Section("GLOBAL FLAGS")
	manFlags(p, app.Node.Flags)
	p.Section("COMMANDS")
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden {
				continue
			}
			if len(c.Children) > 0 {
				walk(c)
				continue
			}
			manCommand(p, c)
		}
	}
	walk(app.Node)
	p.Section("TOPICS")
	for _, t := range topics {
		p.Tagged(`\fBcairn\-`+roff.Escape(t.name)+`\fR(7)`, roff.Escape(t.summary+"; cairn help "+t.name+"."))
	}
	p.Section("EXIT STATUS")
	p.Paragraph(roff.Escape("0 success; 1 a check, a build --check or an eval found a difference or a failure; 2 invalid input; 3 the base is busy, or an I/O failure. cairn-output(7) says more."))
	p.Section("SEE ALSO")
	refs := make([]string, len(topics))
	for i, t := range topics {
		refs[i] = `\fBcairn\-` + roff.Escape(t.name) + `\fR(7)`
	}
	p.Paragraph(strings.Join(refs, ", "))
	return p.String()
}

// manCommand writes one command: its usage line as a subsection, its
// summary, its detail (the examples), its own flags and its topics.
func manCommand(p *roff.Page, n *kong.Node) {
	p.Subsection("cairn " + n.Summary())
	p.Paragraph(roff.Escape(n.Help))
	if n.Detail != "" {
		p.Text(n.Detail)
	}
	for _, a := range n.Positional {
		p.Tagged(`\fI`+roff.Escape(a.Summary())+`\fR`, roff.Escape(a.Help))
	}
	manFlags(p, n.Flags)
	if names := topicsOf(commandPath(n)); len(names) > 0 {
		refs := make([]string, len(names))
		for i, name := range names {
			refs[i] = `\fBcairn\-` + roff.Escape(name) + `\fR(7)`
		}
		p.Paragraph("See also " + strings.Join(refs, ", ") + ".")
	}
}

// manFlags writes flags as tagged paragraphs, with the default each has.
func manFlags(p *roff.Page, flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		tag := f.Summary()
		if f.Short != 0 {
			tag = fmt.Sprintf("-%c, %s", f.Short, tag)
		}
		p.Tagged(`\fB`+roff.Escape(tag)+`\fR`, roff.Escape(helpWithDefault(f.Value)))
	}
}

// topicPage is cairn-TOPIC(7): the topic's Markdown as a man page.
func topicPage(t topic) string {
	name := "cairn-" + t.name
	p := roff.NewPage(name, 7, manSource, manManual)
	p.Section("NAME")
	p.Raw(roff.Escape(name) + ` \- ` + roff.Escape(t.summary) + "\n")
	p.Markdown(topicText(t))
	p.Section("SEE ALSO")
	p.Paragraph(`\fBcairn\fR(1); \fBcairn help ` + roff.Escape(t.name) + `\fR prints this page's text.`)
	return p.String()
}
