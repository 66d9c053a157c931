package main

import (
	"context"
	"os"

	"github.com/cairn-kb/cairn/query/eval"
)

// EvalCmd is `cairn eval SUITE.yaml`: every question of a suite answered
// in this one process and checked against what it expects.
type EvalCmd struct {
	Suite      string `arg:"" help:"The suite: as_of, k, budget and queries with question, expected_uris, forbidden_uris, expected_excerpts, expected_reads."`
	Format     string `enum:"text,json" default:"text" help:"Report format: text or json (the form --baseline reads)."`
	Baseline   string `placeholder:"PREV.json" help:"An earlier JSON report: list what moved up or down and what newly fails or passes."`
	Candidates string `placeholder:"FILE" help:"Also write each question's candidate window with its projected text, as JSON lines, for cmd/cairn-bench/peers.py."`
}

// Help is the detail under the summary of `cairn eval --help`.
func (EvalCmd) Help() string {
	return `A question passes when every expected URI is among the first k items, every expected excerpt fragment is in that item's excerpt, and no forbidden URI is in the pack. Exit 1 when a question fails, 2 when the suite is invalid.

Example:

    cairn eval golden/demo/eval.yaml --format json > before.json
    cairn eval golden/demo/eval.yaml --baseline before.json`
}

// Run answers the suite and prints its report.
func (c *EvalCmd) Run(env *Env) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(c.Suite)
	if err != nil {
		return usageError("cannot read the suite: %v", err)
	}
	suite, err := eval.ParseSuite(c.Suite, data)
	if err != nil {
		return err
	}
	opts := eval.Options{ToolVersion: Version}
	if c.Candidates != "" {
		f, err := os.Create(c.Candidates)
		if err != nil {
			return usageError("cannot write the candidates: %v", err)
		}
		defer f.Close()
		opts.DumpCandidates = f
	}
	report, err := eval.Run(context.Background(), root, suite, opts)
	if err != nil {
		return err
	}
	if c.Baseline != "" {
		data, err := os.ReadFile(c.Baseline)
		if err != nil {
			return usageError("cannot read the baseline: %v", err)
		}
		prev, err := eval.DecodeReport(c.Baseline, data)
		if err != nil {
			return err
		}
		diff := eval.Compare(c.Baseline, prev, report)
		report.Baseline = &diff
	}
	out := eval.RenderText(report)
	if c.Format == "json" {
		out = eval.RenderJSON(report)
	}
	if _, err := env.Stdout.Write(out); err != nil {
		return err
	}
	return report.Err()
}
