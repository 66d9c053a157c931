package main

import (
	"context"

	"github.com/cairn-kb/cairn/query"
)

// ReadCmd is `cairn read URI`.
type ReadCmd struct {
	URI    string `arg:"" name:"URI" help:"What to read: a record or page URI (path#anchor for a section), term:<id>, note:<slug>, voice:<name>, an op id of the notes log, or an entity such as repo:…, person:email/…, tag:…."`
	Format string `help:"Output format: text or json." default:"text" placeholder:"FORMAT" values:"text,json" enum:"text,json"`
	Limit  int    `help:"Neighbours of an entity or a page shown per page." default:"20" placeholder:"N"`
	Cursor string `help:"Continue the neighbours from the cursor the previous page printed." placeholder:"CURSOR"`
}

// Help is the detail under the summary of `cairn read --help`.
func (ReadCmd) Help() string {
	return `Examples:

    cairn read events/2026-11-02/tickets.json#HAR-142    # fields and the raw record
    cairn read wiki/retention-policy.md#deletion         # one section of a page
    cairn read term:push-token
    cairn read repo:github.com/acme/harbor --limit 5     # an entity's neighbours, paged`
}

// Run reads the URI and prints it.
func (c *ReadCmd) Run(env *Env) error {
	if c.Limit < 1 {
		return usageError("--limit %d: give a number of neighbours from 1 up", c.Limit)
	}
	root, err := env.findBase()
	if err != nil {
		return err
	}
	out, err := query.Read(context.Background(), root, query.ReadRequest{
		URI: c.URI, Format: c.Format, Limit: c.Limit, Cursor: c.Cursor,
	})
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}
