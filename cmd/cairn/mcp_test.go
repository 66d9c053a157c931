package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-kb/cairn/query"
)

// syncBuffer is a log both the server and the test touch.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is a server over a base, connected in memory to a client
// named "parity test", with its stderr log.
type testServer struct {
	s   *mcpServer
	cs  *mcp.ClientSession
	log *syncBuffer
}

// serve starts a server over dir at the golden as-of day.
func serve(t *testing.T, dir string) *testServer {
	t.Helper()
	return serveAt(t, dir, goldenAsOf)
}

// serveAt starts a server over dir at the as-of day asOf.
func serveAt(t *testing.T, dir, asOf string) *testServer {
	t.Helper()
	log := &syncBuffer{}
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: log, Getwd: os.Getwd,
		Getenv: func(k string) string {
			if k == "CAIRN_AS_OF" {
				return asOf
			}
			return ""
		},
		Now: func() time.Time { return time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC) },
	}
	s := newMCPServer(dir, env, "")
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "Parity Test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); s.session.Close() })
	return &testServer{s: s, cs: cs, log: log}
}

// call calls a tool and returns its whole text (every page, following
// the cursor) and whether it was an error.
func (ts *testServer) call(t *testing.T, tool string, args map[string]any) (string, bool) {
	t.Helper()
	var all strings.Builder
	for {
		res, err := ts.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if len(res.Content) == 0 {
			t.Fatalf("%s: no content", tool)
		}
		all.WriteString(res.Content[0].(*mcp.TextContent).Text)
		next, _ := res.Meta["cairn/next_cursor"].(string)
		if res.IsError || next == "" {
			return all.String(), res.IsError
		}
		args = withArg(args, "cursor", next)
	}
}

func withArg(args map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, val := range args {
		if key != k {
			out[key] = val
		}
	}
	return out
}

// read reads a resource and returns its text and mime type.
func (ts *testServer) read(t *testing.T, uri string) (string, string, error) {
	t.Helper()
	res, err := ts.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", "", err
	}
	return res.Contents[0].Text, res.Contents[0].MIMEType, nil
}

// builtDemo is a built copy of the demo base.
func builtDemo(t *testing.T) string {
	t.Helper()
	return builtBase(t, "demo")
}

// builtBase is a built copy of the golden base name.
func builtBase(t *testing.T, name string) string {
	t.Helper()
	isolate(t)
	dir := copyBase(t, name)
	mustBuild(t, dir)
	return dir
}

// contextArgsOf turns a golden query's command line into the context
// tool's arguments, through the CLI's own parser.
func contextArgsOf(t *testing.T, args []string) map[string]any {
	t.Helper()
	env, _, _ := quietEnv()
	cli, _, err := parse(append([]string{"context"}, args...), env)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	c := cli.Context
	if c.AsOf != goldenAsOf {
		t.Fatalf("%v: the parity test serves at %s", args, goldenAsOf)
	}
	out := map[string]any{"query": strings.Join(c.Query, " "), "budget": c.Budget}
	if c.Since != "" {
		out["since"] = c.Since
	}
	if c.Until != "" {
		out["until"] = c.Until
	}
	if len(c.Pin) > 0 {
		out["pins"] = c.Pin
	}
	if c.Expand {
		out["expand"] = true
	}
	if c.Explain {
		out["explain"] = true
	}
	if c.Format != "" {
		out["format"] = c.Format
	}
	return out
}

// cliAnswer is what the CLI prints for args: stdout, or the message of
// its error.
func cliAnswer(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	code, stdout, stderr := cairn(t, append([]string{"--base", dir}, args...)...)
	if code != 0 {
		return strings.TrimSuffix(strings.TrimPrefix(stderr, "cairn: "), "\n"), true
	}
	return stdout, false
}

// TestMCPContextParity: for every golden context query, in text and
// JSON, the context tool's text is the CLI's bytes (errors included).
func TestMCPContextParity(t *testing.T) {
	dir := builtDemo(t)
	ts := serve(t, dir)
	for _, q := range readQueries(t, "demo") {
		if isAt(q) {
			continue
		}
		for _, f := range formatsOf(q) {
			args := withFormat(q.args, f)
			want, wantErr := cliAnswer(t, dir, append([]string{"context"}, args...)...)
			got, gotErr := ts.call(t, "context", contextArgsOf(t, args))
			if got != want || gotErr != wantErr {
				t.Errorf("%s (%s): the tool answered (error %v)\n%s\nthe CLI (error %v)\n%s", q.name, f, gotErr, got, wantErr, want)
			}
		}
	}
}

// TestMCPByLocationParity: context_read and both resource templates give
// the bytes of cairn context --at PATH (--profile NAME), in markdown and
// JSON, with the mime type of what was served. Each comparison is a new
// server's first answer: later answers carry the freshness note.
func TestMCPByLocationParity(t *testing.T) {
	dir := builtDemo(t)
	for _, q := range readQueries(t, "demo") {
		if !isAt(q) || strings.Contains(strings.Join(q.args, " "), "--explain") {
			continue
		}
		env, _, _ := quietEnv()
		cli, _, err := parse(append([]string{"context"}, q.args...), env)
		if err != nil {
			t.Fatal(err)
		}
		c := cli.Context
		for _, f := range []string{"markdown", "json"} {
			want, wantErr := cliAnswer(t, dir, append([]string{"context"}, withFormat(q.args, f)...)...)
			args := map[string]any{"format": f}
			uri := contextScheme + c.At
			if c.Profile != "" {
				args["profile"] = c.Profile
				uri = contextScheme + profilePrefix + c.Profile
			} else {
				args["path"] = c.At
			}
			if c.Comments {
				args["comments"] = true
			}
			got, gotErr := serve(t, dir).call(t, "context_read", args)
			if gotErr != wantErr || !wantErr && got != want {
				t.Errorf("%s (%s): context_read answered (error %v)\n%s\nthe CLI (error %v)\n%s", q.name, f, gotErr, got, wantErr, want)
			}
			if c.Comments {
				continue // the resources answer for content
			}
			body, mime, err := serve(t, dir).read(t, uri+"?format="+f)
			wantMime := map[string]string{"markdown": mimeMarkdown, "json": mimeJSON}[f]
			switch {
			case wantErr && err == nil:
				t.Errorf("%s: reading %s succeeded, the CLI refused: %s", q.name, uri, want)
			case !wantErr && (err != nil || body != want || mime != wantMime):
				t.Errorf("%s: %s gave (%v, %s)\n%s\nwant (%s)\n%s", q.name, uri, err, mime, body, wantMime, want)
			}
			if f == "markdown" && !wantErr {
				if body, _, err := serve(t, dir).read(t, uri); err != nil || body != want {
					t.Errorf("%s: %s without ?format is not the markdown (%v)", q.name, uri, err)
				}
			}
		}
	}
}

// TestMCPUnknownFormatIsAnError: a format nobody recognises is an error,
// never prose.
func TestMCPUnknownFormatIsAnError(t *testing.T) {
	ts := serve(t, builtDemo(t))
	for _, uri := range []string{"context://docs/api/tokens.md?format=html", "context://profile/blog?format=yaml", "context://.?color=red", "other://x"} {
		if _, _, err := ts.read(t, uri); err == nil {
			t.Errorf("%s: answered", uri)
		}
	}
	if got, isErr := ts.call(t, "context_read", map[string]any{"path": ".", "format": "html"}); !isErr || !strings.Contains(got, `"html"`) {
		t.Errorf("context_read format html: error %v, %q", isErr, got)
	}
	if got, isErr := ts.call(t, "context", map[string]any{"query": "HAR-142", "format": "xml"}); !isErr || !strings.Contains(got, `"xml"`) {
		t.Errorf("context format xml: error %v, %q", isErr, got)
	}
}

// TestMCPInputBounds: an argument over its bound, of the wrong type or
// unknown is refused with an error that names it; so is a cursor from
// another request.
func TestMCPInputBounds(t *testing.T) {
	ts := serve(t, builtDemo(t))
	many := make([]string, maxListItems+1)
	for i := range many {
		many[i] = "wiki/release-process.md"
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"context", map[string]any{"query": strings.Repeat("x", maxQueryBytes+1)}, `"query" is 1025 bytes, at most 1024`},
		{"context", map[string]any{"query": "  "}, `give a "query"`},
		{"context", map[string]any{"query": "HAR-142", "budget": maxBudget + 1}, `"budget" 32001: give between 1 and 32000 tokens`},
		{"context", map[string]any{"query": "HAR-142", "budget": 0}, `"budget" 0`},
		{"context", map[string]any{"query": "HAR-142", "pins": many}, `"pins" has 17 entries, at most 16`},
		{"context", map[string]any{"query": "HAR-142", "since": "2026-11-01T00:00"}, `"since" is 16 bytes, at most 10`},
		{"context", map[string]any{"query": "HAR-142", "colour": "red"}, `unknown argument "colour"`},
		{"context", map[string]any{"query": 42}, `do not fit the tool's input schema`},
		{"context", map[string]any{"query": "HAR-142", "cursor": "0123456789abcdef:10"}, `is not one this answer ended with`},
		{"context_read", map[string]any{"path": strings.Repeat("a/", 300)}, `"path" is 600 bytes, at most 512`},
		{"context_read", map[string]any{}, `give "path" or "profile"`},
		{"context_read", map[string]any{"path": ".", "profile": "blog"}, `give "path" or "profile"`},
		{"context_note", map[string]any{"target": "note:x", "text": strings.Repeat("y", maxNoteBytes+1)}, `"text" is 2001 bytes, at most 2000`},
		{"context_note", map[string]any{"target": "note:x", "text": "t", "cursor": "a:1"}, `unknown argument "cursor"`},
	} {
		got, isErr := ts.call(t, c.tool, c.args)
		if !isErr || !strings.Contains(got, c.want) {
			t.Errorf("%s %v: error %v, %q; want an error holding %q", c.tool, c.args, isErr, got, c.want)
		}
	}
}

// TestMCPPagedAnswer: an answer over the reply cap comes in pages whose
// cursors lead to the rest; joined, they are the CLI's bytes.
func TestMCPPagedAnswer(t *testing.T) {
	dir := builtDemo(t)
	ts := serve(t, dir)
	ts.s.replyCap = 700
	args := []string{"--as-of", goldenAsOf, "--format", "json", "nightly", "build", "failed", "on", "arm64"}
	want, _ := cliAnswer(t, dir, append([]string{"context"}, args...)...)
	res, err := ts.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "context", Arguments: contextArgsOf(t, args)})
	if err != nil || res.IsError || res.Meta["cairn/next_cursor"] == nil || len(res.Content) != 2 {
		t.Fatalf("the first page has no cursor: %v %+v", err, res)
	}
	if first := res.Content[0].(*mcp.TextContent).Text; len(first) > 700 || !strings.HasSuffix(first, "\n") {
		t.Errorf("the first page is %d bytes or ends inside a line", len(first))
	}
	if got, _ := ts.call(t, "context", contextArgsOf(t, args)); got != want {
		t.Errorf("the pages joined differ from the CLI:\n%s\nwant\n%s", got, want)
	}
}

// TestMCPNoteRecordsASuggestion: context_note appends a suggestion as
// agent:<client name>, which cairn note list shows; it cannot record a
// keep or a drop, so nothing it does becomes a rule.
func TestMCPNoteRecordsASuggestion(t *testing.T) {
	dir := builtDemo(t)
	ts := serve(t, dir)
	got, isErr := ts.call(t, "context_note", map[string]any{
		"target": "note:changelog-voice", "text": "Changelog entries start with a verb.", "paths": []string{"docs/**"}, "session": "s-1",
	})
	if isErr || !strings.HasSuffix(got, "\tsuggest\tnote:changelog-voice\n") {
		t.Fatalf("context_note: error %v, %q", isErr, got)
	}
	op, _, _ := strings.Cut(got, "\t")
	code, list, _ := cairn(t, "--base", dir, "note", "list", "--target", "note:changelog-voice")
	if want := op + "\tsuggest\tagent:parity-test\tnote:changelog-voice\tChangelog entries start with a verb.\n"; code != 0 || list != want {
		t.Errorf("note list = %q, want %q", list, want)
	}
	// The rules files hold only what a person kept: the suggestion is not there.
	agents, err := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if err != nil || bytes.Contains(agents, []byte("start with a verb")) {
		t.Errorf("the suggestion reached AGENTS.md as a rule (%v)", err)
	}
	// And the answers show it as a suggestion, from the refreshed build.
	md, _ := ts.call(t, "context_read", map[string]any{"path": "docs/getting-started.md"})
	if !strings.Contains(md, "Changelog entries start with a verb.") {
		t.Errorf("the by-location answer does not list the suggestion:\n%s", md)
	}
	for _, kind := range []string{"keep", "drop", "kind"} {
		if got, isErr := ts.call(t, "context_note", map[string]any{"target": "note:x", "text": "t", kind: "x"}); !isErr || !strings.Contains(got, "unknown argument") {
			t.Errorf("context_note took %q: %q", kind, got)
		}
	}
}

// TestAgentActor: the client's handshake name, folded to one word.
func TestAgentActor(t *testing.T) {
	for name, want := range map[string]string{
		"Claude Code": "agent:claude-code", "codex-cli": "agent:codex-cli", "": "agent:" + unknownClient,
		"a\nb:c": "agent:a-b-c", "   ": "agent:" + unknownClient,
	} {
		if got := agentActor(&mcp.Implementation{Name: name}); got != want {
			t.Errorf("agentActor(%q) = %q, want %q", name, got, want)
		}
	}
	if got := agentActor(nil); got != "agent:"+unknownClient {
		t.Errorf("agentActor(nil) = %q", got)
	}
}

// TestMCPFreshnessNote: the first answer of a process has no earlier read
// to compare with; later ones say first whether the governance, the terms
// or the notes log moved since the previous answer.
func TestMCPFreshnessNote(t *testing.T) {
	dir := builtDemo(t)
	ts := serve(t, dir)
	first := func() string {
		t.Helper()
		out, isErr := ts.call(t, "context_read", map[string]any{"path": "docs/api/tokens.md", "format": "json"})
		if isErr {
			t.Fatal(out)
		}
		var doc struct{ Attention []string }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Attention) == 0 {
			return ""
		}
		return doc.Attention[0]
	}
	if got := first(); strings.HasPrefix(got, "Since this process") {
		t.Errorf("the first answer compares with a read that never happened: %q", got)
	}
	// Nothing moved: no note, since none is needed.
	if got := first(); strings.HasPrefix(got, "Since this process") {
		t.Errorf("a second answer with nothing moved carries a note: %q", got)
	}
	replaceInFile(t, filepath.Join(dir, "governance", "terms.yaml"), "term:", "term: ")
	f, err := os.OpenFile(filepath.Join(dir, "governance", "terms.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("- id: mcp-test\n  term: registry\n  status: preferred\n")
	f.Close()
	if got := first(); !strings.Contains(got, "the terms moved") || strings.Contains(got, "notes log") {
		t.Errorf("after a terms edit, the first note = %q", got)
	}
	// context_search shares the process's baseline: it says what moved
	// since the previous answer of either kind, and nothing when nothing did.
	search := func() string {
		t.Helper()
		out, isErr := ts.call(t, "context_search", map[string]any{"query": "registry", "format": "json"})
		if isErr {
			t.Fatal(out)
		}
		var doc struct{ Moved string }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return doc.Moved
	}
	if got := search(); got != "" {
		t.Errorf("a search after an answer with nothing moved since: %q", got)
	}
	f, err = os.OpenFile(filepath.Join(dir, "governance", "terms.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("- id: mcp-test-2\n  term: mirror\n  status: preferred\n")
	f.Close()
	if got := search(); !strings.Contains(got, "the terms moved") {
		t.Errorf("a search after a terms edit: moved = %q", got)
	}
}

// TestMCPFollowsARebuild: a long-lived server answers from the scan while
// the artifacts are stale, and from the new artifacts once a build wrote
// them; while that build runs, every answer is the new base's answer
// (never one read from half-written artifacts), whichever path gave it.
func TestMCPFollowsARebuild(t *testing.T) {
	dir := builtDemo(t)
	ts := serve(t, dir)
	args := map[string]any{"query": "HAR-155 notify owners", "format": "json"}
	state := func(out string) string {
		var v struct {
			Receipt struct{ Index struct{ State string } } `json:"receipt"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return v.Receipt.Index.State
	}
	before, _ := ts.call(t, "context", args)
	if state(before) != string(query.StateUsed) {
		t.Fatalf("a built base answered from %s", state(before))
	}
	tickets := filepath.Join(dir, "events", "2026-11-09", "tickets.json")
	replaceInFile(t, tickets, "Notify owners before a push token expires", "Notify owners a week before a push token expires")
	stale, _ := ts.call(t, "context", args)
	if state(stale) != string(query.StateStale) || !strings.Contains(stale, "a week before") {
		t.Fatalf("after an edit: state %s, the edit is seen: %v", state(stale), strings.Contains(stale, "a week before"))
	}
	want := normalise(t, "json", stale)
	done := make(chan struct{})
	go func() {
		defer close(done)
		mustBuild(t, dir)
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		got, isErr := ts.call(t, "context", args)
		if isErr {
			t.Fatalf("during the build: %s", got)
		}
		if normalise(t, "json", got) != want {
			t.Fatalf("during the build (index %s) the answer differs from the new base's:\n%s", state(got), got)
		}
	}
	after, _ := ts.call(t, "context", args)
	if state(after) != string(query.StateUsed) || normalise(t, "json", after) != want {
		t.Errorf("after the build: state %s\n%s", state(after), after)
	}
}

// TestMCPLogsOneLinePerCall: each call leaves one line on stderr naming
// the tool, the items, the time and a digest of the input, never the
// input itself.
func TestMCPLogsOneLinePerCall(t *testing.T) {
	ts := serve(t, builtDemo(t))
	ts.call(t, "context", map[string]any{"query": "secret words HAR-142"})
	ts.call(t, "context", map[string]any{"query": "x", "budget": -1})
	ts.read(t, "context://docs/api/tokens.md")
	lines := strings.Split(strings.TrimSuffix(ts.log.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("log has %d lines:\n%s", len(lines), ts.log.String())
	}
	for i, want := range []string{`^cairn mcp: context items=[1-9]\d* ms=\d+ input=[0-9a-f]{16} ok$`, `^cairn mcp: context items=0 ms=\d+ input=[0-9a-f]{16} error$`, `^cairn mcp: resources/read items=1 ms=\d+ input=[0-9a-f]{16} ok$`} {
		if !regexpMatch(want, lines[i]) {
			t.Errorf("log line %d = %q, want %s", i, lines[i], want)
		}
	}
	if strings.Contains(ts.log.String(), "secret") {
		t.Error("the log holds the query")
	}
}

// TestPackItems reads the selected count of the receipt in each pack
// format, whatever the items say: a record whose text holds
// "selected=99" does not fool it.
func TestPackItems(t *testing.T) {
	dir := builtDemo(t)
	for _, format := range []string{"text", "json", "jsonl"} {
		out, failed := cliAnswer(t, dir, "context", "HAR-142", "--as-of", "2026-11-10", "--format", format)
		if failed {
			t.Fatalf("%s: %s", format, out)
		}
		var want int
		switch format {
		case "text":
			_, err := fmt.Sscanf(out[strings.LastIndex(out, " selected="):], " selected=%d", &want)
			if err != nil {
				t.Fatalf("text: no receipt: %v", err)
			}
		default:
			var doc struct {
				Receipt struct{ Selected int } `json:"receipt"`
			}
			last := out
			if format == "jsonl" {
				lines := strings.Split(strings.TrimSpace(out), "\n")
				last = lines[len(lines)-1]
			}
			if err := json.Unmarshal([]byte(last), &doc); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			want = doc.Receipt.Selected
		}
		if want == 0 {
			t.Fatalf("%s: the pack selected nothing; the test needs items", format)
		}
		if got := packItems([]byte(out)); got != want {
			t.Errorf("%s: packItems = %d, want %d", format, got, want)
		}
	}
	if got := packItems([]byte("item says selected=99\nreceipt: index=used · candidates=3 selected=2 dropped=1\n")); got != 2 {
		t.Errorf("a distractor before the receipt: packItems = %d, want 2", got)
	}
	if got := packItems([]byte("no receipt here")); got != 0 {
		t.Errorf("no receipt: packItems = %d, want 0", got)
	}
}
