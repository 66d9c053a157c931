package main

import (
	"github.com/alecthomas/kong"
)

// HelpCmd is `cairn help [COMMAND…]`: the same text as `cairn COMMAND
// --help`, for people who type the word first.
type HelpCmd struct {
	Command []string `arg:"" optional:"" name:"COMMAND" help:"The command (and subcommand) to show the help of."`
}

// Help is the detail under the summary of `cairn help --help`.
func (HelpCmd) Help() string {
	return `Examples:

    cairn help context
    cairn help note suggest`
}

// Run prints the help of the command named, to stdout.
func (c *HelpCmd) Run(kctx *kong.Context) error {
	target, err := kong.Trace(kctx.Kong, c.Command)
	if err != nil {
		return err
	}
	if target.Error != nil {
		return usageError("%s", withHelpHint("help: "+target.Error.Error(), "cairn help"))
	}
	return target.PrintUsage(false)
}
