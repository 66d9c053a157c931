package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/cmd/cairn/internal/status"
	"github.com/cairn-kb/cairn/stages/builder"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/load"
)

// StatusCmd is `cairn status`.
type StatusCmd struct {
	AsOf       string `help:"The day governance windows are evaluated at, for the rules files' state (default: today, or $CAIRN_AS_OF)." placeholder:"DAY"`
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn status --help`.
func (StatusCmd) Help() string {
	return `What the base holds: each layer folder and its documents, records or
pages; each source with its newest day and how cairn collect gathers it;
the governance files; and whether .cairn/ and the rules files are what a
build would write (found by a build that writes nothing, as
cairn build --check). It takes no lock and changes nothing.

Example:

    cairn status
    cairn status --format json`
}

// Run prints the report.
func (c *StatusCmd) Run(env *Env) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	asOf, err := asOfDay(c.AsOf, env)
	if err != nil {
		return err
	}
	dir, err := load.OpenDir(root)
	if err != nil {
		return err
	}
	defer dir.Close()
	out, err := load.Run(context.Background(), load.Input{FS: dir})
	if err != nil {
		return err
	}
	var check status.Check
	prev, _ := artifacts.ReadPrevious(root)
	switch {
	case len(diag.ErrorsOnly(out.Diagnostics)) > 0:
		check.Blocked = true
	case prev == nil:
		check.Missing = true // what a first build writes is everything
	default:
		res, err := builder.Run(context.Background(), builder.Options{Root: root, AsOf: asOf, Check: true, ToolVersion: Version})
		var derr *diag.Errors
		switch {
		case errors.As(err, &derr):
			check.Blocked = true
		case err != nil:
			return err
		default:
			check.Ran, check.Changes = res.Out.Ran, res.Sync.Changes
		}
	}
	r := status.Build(root, out, check)
	if c.json() {
		return writeJSON(env.Stdout, r)
	}
	_, err = fmt.Fprint(env.Stdout, escape.Text(status.Text(r)))
	return err
}
