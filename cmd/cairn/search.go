package main

import (
	"context"

	"github.com/cairn-kb/cairn/query"
)

// SearchCmd is `cairn search QUERY…`.
type SearchCmd struct {
	Query  []string `arg:"" optional:"" name:"QUERY" help:"The words or identifiers to find every match of." sep:"none"`
	Source []string `help:"Keep records and pages of this source (repeatable)." placeholder:"SOURCE" sep:"none"`
	Layer  string   `help:"Keep one layer: events, index, wiki, projects, tasks or governance." placeholder:"LAYER"`
	Since  string   `help:"First day of dated records (YYYY-MM-DD)." placeholder:"DAY"`
	Until  string   `help:"Last day of dated records (YYYY-MM-DD)." placeholder:"DAY"`
	Where  []string `help:"Keep items whose projected field holds exactly this value (repeatable)." placeholder:"FIELD=VALUE" sep:"none"`
	Count  bool     `help:"Show each group's count only."`
	Limit  int      `help:"Items shown per group." default:"20" placeholder:"N"`
	Cursor string   `help:"Show the next page of one group: the cursor an answer prints after \"and N more\"." placeholder:"CURSOR"`
	AsOf   string   `help:"The day dates are evaluated at (default: $CAIRN_AS_OF, else today, UTC)." placeholder:"DAY"`
	Format string   `help:"Output format: text, json or jsonl." default:"text" placeholder:"FORMAT" enum:"text,json,jsonl"`
}

// Help is the detail under the summary of `cairn search --help`.
func (SearchCmd) Help() string {
	return `Every match, grouped by kind (records, pages, terms, notes, suggestions,
voice examples) and ranked within each group; never merged into one list.

Examples:

    cairn search retention
    cairn search --source tickets --where status=open HAR-142
    cairn search --count arm64
    cairn search --cursor records:20:0123456789abcdef retention`
}

// Run answers the search and prints it.
func (c *SearchCmd) Run(env *Env) error {
	if len(c.Query) == 0 {
		return usageError("give a query: cairn search retention")
	}
	root, asOf, err := baseAndDay(env, c.AsOf)
	if err != nil {
		return err
	}
	out, err := query.Search(context.Background(), root, query.SearchRequest{
		Words: c.Query, Since: c.Since, Until: c.Until, AsOf: asOf, Sources: c.Source, Layer: c.Layer,
		Where: c.Where, Count: c.Count, Limit: c.Limit, Cursor: c.Cursor, Format: c.Format,
	})
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}
