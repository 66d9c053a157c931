package main

import (
	"context"
	"fmt"
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
	w := env.Stdout
	fmt.Fprintf(w, "cairn demo: the bundled demo base, copied to %s\n\n", dir)
	res, err := buildBase(dir, demoAsOf, false, env.Stderr, buildWatch{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "$ cairn build\n%s\n\n", res.summary())
	fmt.Fprintln(w, "outputs: the artifacts under .cairn/, then the rules files (stamped by their cairn section alone):")
	m, err := artifacts.ReadPrevious(dir)
	if err != nil || m == nil {
		return fmt.Errorf("the demo build wrote no readable manifest: %v", err)
	}
	var base int64
	for _, in := range m.Inputs {
		base += in.Bytes
	}
	var total int64
	for _, o := range m.Outputs {
		fmt.Fprintf(w, "  %-26s %8d bytes  xxhash %s\n", o.Path, o.Bytes, o.XXHash)
		total += o.Bytes
	}
	fmt.Fprintf(w, "  %-26s %8d bytes  (base: %d inputs, %d bytes)\n\n", "total", total, len(m.Inputs), base)

	docs, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(artifacts.DocsPath)))
	if err != nil {
		return err
	}
	rows, err := artifacts.DecodeDocs(docs)
	if err != nil {
		return err
	}
	kinds := map[string]int{}
	for _, r := range rows {
		kinds[r.Kind]++
	}
	fmt.Fprintf(w, "items: %d (", len(rows))
	for i, k := range []string{"events", "index", "wiki", "projects", "tasks"} {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%d %s", kinds[k], k)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintln(w, "first rows of .cairn/docs.tsv:")
	lines := strings.SplitN(string(docs), "\n", 5)
	for _, l := range lines[:min(4, len(lines))] {
		fmt.Fprintf(w, "  %s\n", l)
	}

	again, err := buildBase(dir, demoAsOf, false, env.Stderr, buildWatch{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n$ cairn build   # again, nothing changed\n%s\n", again.summary())

	// The demo base's records run to 2026-11-09, so its questions are
	// asked as of the next day.
	for _, q := range demoQuestions {
		fmt.Fprintf(w, "\n$ cairn context --as-of %s --budget %d %q\n", demoAsOf.Format(time.DateOnly), demoBudget, strings.Join(q, " "))
		out, err := query.Context(context.Background(), dir, query.Request{
			Words: q, Budget: demoBudget, AsOf: demoAsOf, Format: query.FormatText, ToolVersion: Version,
		})
		if err != nil {
			return err
		}
		w.Write(out)
	}

	// The rules files the build wrote, one of them whole, and what applies
	// at a file of that folder.
	fmt.Fprintln(w, "\nrules files written (only the <!-- cairn:rules --> section is cairn's):")
	for _, o := range m.Outputs {
		if !strings.HasPrefix(o.Path, artifacts.Dir+"/") {
			fmt.Fprintf(w, "  %s\n", o.Path)
		}
	}
	rulesFile := filepath.ToSlash(filepath.Join(filepath.Dir(demoPlace), artifacts.AgentsFile))
	text, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rulesFile)))
	if err != nil {
		return fmt.Errorf("the demo build wrote no %s: %w", rulesFile, err)
	}
	fmt.Fprintf(w, "\n$ cat %s\n%s", rulesFile, text)
	fmt.Fprintf(w, "\n$ cairn context --as-of %s --at %s\n", demoAsOf.Format(time.DateOnly), demoPlace)
	out, err := query.At(context.Background(), dir, query.AtRequest{Path: filepath.Join(dir, filepath.FromSlash(demoPlace)), Format: query.FormatMarkdown, AsOf: demoAsOf})
	if err != nil {
		return err
	}
	w.Write(out)
	if c.Keep {
		fmt.Fprintf(w, "\nthe demo base stays in %s; try: cairn --base %s build --check\n", dir, dir)
	}
	return nil
}
