package main

import (
	"context"

	"github.com/cairn-kb/cairn/query"
)

// ListCmd is `cairn list LAYER`.
type ListCmd struct {
	Layer  string   `arg:"" name:"LAYER" help:"The layer to list: events, index, wiki, projects or tasks."`
	Source []string `help:"Keep items of this source (repeatable)." placeholder:"SOURCE" sep:"none"`
	Tag    []string `help:"Keep items with this tag (repeatable: all of them)." placeholder:"TAG" sep:"none"`
	Status string   `help:"Keep items with this status." placeholder:"STATUS"`
	Type   string   `help:"Keep items of this type." placeholder:"TYPE"`
	Since  string   `help:"First day of the items listed (YYYY-MM-DD)." placeholder:"DAY"`
	Until  string   `help:"Last day of the items listed (YYYY-MM-DD)." placeholder:"DAY"`
	Limit  int      `help:"Items shown." default:"20" placeholder:"N"`
	Cursor string   `help:"Show the next page: the cursor a listing prints after \"and N more\"." placeholder:"CURSOR"`
	Format string   `help:"Output format: text or json." default:"text" placeholder:"FORMAT" enum:"text,json"`
}

// Help is the detail under the summary of `cairn list --help`.
func (ListCmd) Help() string {
	return `Examples:

    cairn list wiki --tag security
    cairn list events --source tickets --since 2026-11-01
    cairn list projects --status active --format json`
}

// Run lists the layer and prints it.
func (c *ListCmd) Run(env *Env) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	out, err := query.List(context.Background(), root, query.ListRequest{
		Layer: c.Layer, Sources: c.Source, Tags: c.Tag, Status: c.Status, Type: c.Type,
		Since: c.Since, Until: c.Until, Limit: c.Limit, Cursor: c.Cursor, Format: c.Format,
	})
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}
