package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden"
	"github.com/cairn-kb/cairn/query"
)

// The demo's questions, the day they are asked and their budget.
var (
	demoQuestions = [][]string{{"why", "did", "the", "arm64", "nightly", "time", "out"}, {"marc@x.test"}}
	demoAsOf      = time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
)

const demoBudget = 1200

// The demo's exhaustive half: a search, three items a group, and a read
// of one record the packs cite, in full with its raw fields.
var demoSearch = []string{"token", "cache"}

const (
	demoSearchLimit = 3
	demoRead        = "events/2026-11-09/tickets.json#HAR-151"
)

// demoPlace is the file the demo asks "what applies here" about, and whose
// folder's rules file it prints.
const demoPlace = "docs/api/tokens.md"

// DemoCmd is `cairn demo`.
type DemoCmd struct {
	Keep bool `help:"Keep the temporary base and print its path, to explore it with --base."`
}

// Help is the detail under the summary of `cairn demo --help`.
func (DemoCmd) Help() string {
	return `It writes nothing outside a temporary folder, and removes that unless --keep is given.

Example:

    cairn demo --keep    # then: cairn --base <the printed folder> build --check`
}

// Run copies the bundled demo base into a temporary folder, builds it and
// shows what was built.
func (c *DemoCmd) Run(env *Env) error {
	dir, err := os.MkdirTemp("", "cairn-demo-")
	if err != nil {
		return err
	}
	if !c.Keep {
		defer os.RemoveAll(dir)
	}
	if err := os.CopyFS(dir, golden.Demo()); err != nil {
		return fmt.Errorf("cannot copy the demo base: %w", err)
	}
	d := demo{dir: dir, w: env.Stdout, log: env.Stderr}
	fmt.Fprintf(d.w, "cairn demo: the bundled demo base, copied to %s\n\n", dir)
	m, err := d.build()
	if err != nil {
		return err
	}
	if err := d.showItems(); err != nil {
		return err
	}
	if err := d.rebuild(); err != nil {
		return err
	}
	if err := d.askQuestions(); err != nil {
		return err
	}
	if err := d.searchAndRead(); err != nil {
		return err
	}
	if err := d.showRules(m); err != nil {
		return err
	}
	if c.Keep {
		fmt.Fprintf(d.w, "\nthe demo base stays in %s; try: cairn --base %s build --check\n", dir, dir)
	}
	return nil
}

// demo is one run of `cairn demo` on its copy of the demo base. Its steps
// print in the order Run calls them, each one a command a user could type
// next and what it shows; the first build's manifest is what the rules step
// lists.
type demo struct {
	dir    string    // the temporary copy of the demo base
	w, log io.Writer // the command's stdout, and where builds report
}

// build runs the first build and lists its outputs, with the manifest's
// byte counts and hashes, so the reader sees what a build leaves behind.
func (d demo) build() (*artifacts.Manifest, error) {
	res, err := buildBase(d.dir, demoAsOf, false, d.log, buildWatch{})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(d.w, "$ cairn build\n%s\n\n", res.summary())
	fmt.Fprintln(d.w, "outputs: the artifacts under .cairn/, then the rules files (stamped by their cairn section alone):")
	m, err := artifacts.ReadPrevious(d.dir)
	if err != nil || m == nil {
		return nil, fmt.Errorf("the demo build wrote no readable manifest: %v", err)
	}
	var base int64
	for _, in := range m.Inputs {
		base += in.Bytes
	}
	var total int64
	for _, o := range m.Outputs {
		fmt.Fprintf(d.w, "  %-26s %8d bytes  xxhash %s\n", o.Path, o.Bytes, o.XXHash)
		total += o.Bytes
	}
	fmt.Fprintf(d.w, "  %-26s %8d bytes  (base: %d inputs, %d bytes)\n\n", "total", total, len(m.Inputs), base)
	return m, nil
}

// showItems counts the built items by layer and prints the first rows of
// docs.tsv, read back through artifacts as query reads it.
func (d demo) showItems() error {
	docs, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(artifacts.DocsPath)))
	if err != nil {
		return err
	}
	documents, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(artifacts.DocumentsPath)))
	if err != nil {
		return err
	}
	origins, err := artifacts.DecodeDocuments(documents)
	if err != nil {
		return err
	}
	rows, err := artifacts.DecodeDocs(docs, artifacts.OriginsOf(origins))
	if err != nil {
		return err
	}
	kinds := map[string]int{}
	for _, r := range rows {
		kinds[r.Kind]++
	}
	fmt.Fprintf(d.w, "items: %d (", len(rows))
	for i, k := range []string{"events", "index", "wiki", "projects", "tasks"} {
		if i > 0 {
			fmt.Fprint(d.w, ", ")
		}
		fmt.Fprintf(d.w, "%d %s", kinds[k], k)
	}
	fmt.Fprintln(d.w, ")")
	fmt.Fprintln(d.w, "first rows of .cairn/docs.tsv:")
	lines := strings.SplitN(string(docs), "\n", 5)
	for _, l := range lines[:min(4, len(lines))] {
		fmt.Fprintf(d.w, "  %s\n", l)
	}
	return nil
}

// rebuild builds again with nothing changed, to show that a build writes
// only what differs.
func (d demo) rebuild() error {
	again, err := buildBase(d.dir, demoAsOf, false, d.log, buildWatch{})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.w, "\n$ cairn build   # again, nothing changed\n%s\n", again.summary())
	return nil
}

// askQuestions answers the demo's questions. The demo base's records run
// to 2026-11-09, so its questions are asked as of the next day.
func (d demo) askQuestions() error {
	for _, q := range demoQuestions {
		fmt.Fprintf(d.w, "\n$ cairn context --as-of %s --budget %d %q\n", demoAsOf.Format(time.DateOnly), demoBudget, strings.Join(q, " "))
		out, err := query.Context(context.Background(), d.dir, query.Request{
			Words: q, Budget: demoBudget, AsOf: demoAsOf, Format: query.FormatText, ToolVersion: Version,
		})
		if err != nil {
			return err
		}
		d.w.Write(out)
	}
	return nil
}

// searchAndRead shows every match of a query, grouped, then one record
// whole: what a user runs after a pack cited it.
func (d demo) searchAndRead() error {
	fmt.Fprintf(d.w, "\n$ cairn search --as-of %s --limit %d %q\n", demoAsOf.Format(time.DateOnly), demoSearchLimit, strings.Join(demoSearch, " "))
	out, err := query.Search(context.Background(), d.dir, query.SearchRequest{
		Words: demoSearch, AsOf: demoAsOf, Limit: demoSearchLimit, Format: query.FormatText,
	})
	if err != nil {
		return err
	}
	d.w.Write(out)
	fmt.Fprintf(d.w, "\n$ cairn read %s\n", demoRead)
	if out, err = query.Read(context.Background(), d.dir, query.ReadRequest{URI: demoRead, Format: query.FormatText}); err != nil {
		return err
	}
	d.w.Write(out)
	return nil
}

// showRules lists the rules files the build wrote (the outputs of m outside
// .cairn/), prints the one of demoPlace's folder whole, and what applies
// at demoPlace.
func (d demo) showRules(m *artifacts.Manifest) error {
	fmt.Fprintln(d.w, "\nrules files written (only the <!-- cairn:rules --> section is cairn's):")
	for _, o := range m.Outputs {
		if committed(o.Path) {
			fmt.Fprintf(d.w, "  %s\n", o.Path)
		}
	}
	rulesFile := filepath.ToSlash(filepath.Join(filepath.Dir(demoPlace), artifacts.AgentsFile))
	text, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(rulesFile)))
	if err != nil {
		return fmt.Errorf("the demo build wrote no %s: %w", rulesFile, err)
	}
	fmt.Fprintf(d.w, "\n$ cat %s\n%s", rulesFile, text)
	fmt.Fprintf(d.w, "\n$ cairn context --as-of %s --at %s\n", demoAsOf.Format(time.DateOnly), demoPlace)
	out, err := query.At(context.Background(), d.dir, query.AtRequest{Path: filepath.Join(d.dir, filepath.FromSlash(demoPlace)), Format: query.FormatMarkdown, AsOf: demoAsOf})
	if err != nil {
		return err
	}
	d.w.Write(out)
	return nil
}
