package main

import (
	"strings"
	"testing"
)

// toolArgsOf turns a golden search, listing or read into the arguments of
// its tool, through the CLI's own parser: what the flags mean is what the
// tool is asked.
func toolArgsOf(t *testing.T, command string, args []string) (string, map[string]any) {
	t.Helper()
	env, _, _ := quietEnv()
	cli, _, err := parse(append([]string{command}, args...), env)
	if err != nil {
		t.Fatalf("%s %v: %v", command, args, err)
	}
	out := map[string]any{}
	set := func(key string, v any, given bool) {
		if given {
			out[key] = v
		}
	}
	switch command {
	case "search":
		c := cli.Search
		out["query"], out["limit"], out["format"] = strings.Join(c.Query, " "), c.Limit, c.Format
		set("sources", c.Source, len(c.Source) > 0)
		set("layer", c.Layer, c.Layer != "")
		set("since", c.Since, c.Since != "")
		set("until", c.Until, c.Until != "")
		set("where", c.Where, len(c.Where) > 0)
		set("count", true, c.Count)
		set("page", c.Cursor, c.Cursor != "")
		return "context_search", out
	case "list":
		c := cli.List
		out["layer"], out["limit"], out["format"] = c.Layer, c.Limit, c.Format
		set("sources", c.Source, len(c.Source) > 0)
		set("tags", c.Tag, len(c.Tag) > 0)
		set("status", c.Status, c.Status != "")
		set("type", c.Type, c.Type != "")
		set("since", c.Since, c.Since != "")
		set("until", c.Until, c.Until != "")
		set("page", c.Cursor, c.Cursor != "")
		return "list", out
	case "read":
		c := cli.Read
		out["uri"], out["limit"], out["format"] = c.URI, c.Limit, c.Format
		set("page", c.Cursor, c.Cursor != "")
		return "read", out
	}
	t.Fatalf("no tool for %s", command)
	return "", nil
}

// TestMCPSearchReadListParity: for every golden search, listing and read
// of every golden base, in text and JSON, the tool's text is the CLI's
// bytes, errors included.
func TestMCPSearchReadListParity(t *testing.T) {
	for _, name := range []string{"demo", "edge"} {
		dir := builtBase(t, name)
		servers := map[string]*testServer{} // by as-of day
		type ask struct {
			name, command string
			args          []string
		}
		var asks []ask
		for _, q := range readSearches(t, name) {
			asks = append(asks, ask{q.name, q.command, q.args})
		}
		for _, q := range readReads(t, name) {
			asks = append(asks, ask{q.name, "read", q.args})
		}
		if len(asks) == 0 {
			t.Fatalf("%s: no golden searches or reads", name)
		}
		for _, a := range asks {
			for _, f := range []string{"text", "json"} {
				args := withFormat(a.args, f)
				want, wantErr := cliAnswer(t, dir, append([]string{a.command}, args...)...)
				tool, targs := toolArgsOf(t, a.command, args)
				asOf := asOfOf(args)
				if servers[asOf] == nil {
					servers[asOf] = serveAt(t, dir, asOf)
				}
				got, gotErr := servers[asOf].call(t, tool, targs)
				if got != want || gotErr != wantErr {
					t.Errorf("%s/%s (%s): %s answered (error %v)\n%s\nthe CLI (error %v)\n%s", name, a.name, f, tool, gotErr, got, wantErr, want)
				}
			}
		}
	}
}

// TestMCPSearchBounds: the exhaustive tools refuse what is out of bounds
// with an error that names the argument.
func TestMCPSearchBounds(t *testing.T) {
	ts := serve(t, builtDemo(t))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"context_search", map[string]any{"query": "token", "limit": 0}, `"limit" 0`},
		{"context_search", map[string]any{"query": "token", "format": "xml"}, `"format" "xml"`},
		{"context_search", map[string]any{"query": strings.Repeat("a", maxQueryBytes+1)}, "query"},
		{"read", map[string]any{"uri": ""}, `give a "uri"`},
		{"read", map[string]any{"uri": "wiki/a.md", "format": "jsonl"}, `"format" "jsonl"`},
		{"list", map[string]any{"layer": "wiki", "limit": maxLimit + 1}, `"limit" 501`},
		{"list", map[string]any{"layer": "wiki", "tags": make([]string, maxListItems+1)}, "tags"},
	} {
		got, isErr := ts.call(t, c.tool, c.args)
		if !isErr || !strings.Contains(got, c.want) {
			t.Errorf("%s %v: error %v %q, want an error naming %s", c.tool, c.args, isErr, got, c.want)
		}
	}
}

// asOfOf is the --as-of day of a command line, else the golden day: a
// server answers at its own day, which the tools do not take.
func asOfOf(args []string) string {
	for i, a := range args {
		if a == "--as-of" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--as-of="); ok {
			return v
		}
	}
	return goldenAsOf
}
