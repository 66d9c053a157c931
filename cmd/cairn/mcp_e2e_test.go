package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCommand is the built binary serving dir over stdio, at the golden
// as-of day, with its stderr in errb.
func mcpCommand(t *testing.T, dir string, errb io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(builtCairn(t), append([]string{"--base", dir, "mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "CAIRN_AS_OF="+goldenAsOf)
	cmd.Stderr = errb
	return cmd
}

// TestMCPEndToEnd starts the built binary with the SDK's client over
// stdio and calls every tool and both resource templates; the answers are
// the CLI's bytes.
func TestMCPEndToEnd(t *testing.T) {
	dir := builtDemo(t)
	var errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: mcpCommand(t, dir, &errb)}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, errb.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "context context_note context_read context_search list read" {
		t.Errorf("tools = %v", names)
	}
	text := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	want, _ := cliAnswer(t, dir, "context", "--as-of", goldenAsOf, "why did the arm64 nightly time out")
	if got := text("context", map[string]any{"query": "why did the arm64 nightly time out"}); got != want {
		t.Errorf("context over stdio:\n%s\nwant\n%s", got, want)
	}
	wantAt, _ := cliAnswer(t, dir, "context", "--as-of", goldenAsOf, "--profile", "blog", "--format", "json")
	if got := text("context_read", map[string]any{"profile": "blog", "format": "json"}); got != wantAt {
		t.Errorf("context_read over stdio:\n%s\nwant\n%s", got, wantAt)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"context_search", map[string]any{"query": "token cache"}, []string{"search", "--as-of", goldenAsOf, "token cache"}},
		{"read", map[string]any{"uri": "events/2026-11-02/tickets.json#HAR-142", "format": "json"}, []string{"read", "--format", "json", "events/2026-11-02/tickets.json#HAR-142"}},
		{"list", map[string]any{"layer": "wiki", "tags": []string{"security"}}, []string{"list", "wiki", "--tag", "security"}},
	} {
		want, _ := cliAnswer(t, dir, c.cli...)
		if got := text(c.tool, c.args); got != want {
			t.Errorf("%s over stdio:\n%s\nwant\n%s", c.tool, got, want)
		}
	}
	for uri, mime := range map[string]string{"context://docs/api/tokens.md": mimeMarkdown, "context://profile/blog?format=json": mimeJSON} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != mime || res.Contents[0].Text == "" {
			t.Errorf("%s: %v %+v", uri, err, res)
		}
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 2 {
		t.Errorf("resource templates: %v %+v", err, templates)
	}
	note := text("context_note", map[string]any{"target": "note:e2e", "text": "Seen over stdio."})
	if _, list, _ := cairn(t, "--base", dir, "note", "list", "--target", "note:e2e"); !strings.Contains(list, "\tagent:e2e-client\tnote:e2e\tSeen over stdio.") || !strings.HasPrefix(list, strings.Split(note, "\t")[0]) {
		t.Errorf("note list after context_note = %q (the tool said %q)", list, note)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if n := strings.Count(errb.String(), "cairn mcp: "); n != 8 {
		t.Errorf("stderr holds %d call lines, want 8:\n%s", n, errb.String())
	}
}

// TestMCPStdoutPurity speaks JSON-RPC to the binary by hand, bad requests
// and a line that is not JSON included, and requires every line it writes
// on stdout to be one JSON-RPC message.
func TestMCPStdoutPurity(t *testing.T) {
	dir := builtDemo(t)
	var errb bytes.Buffer
	cmd := mcpCommand(t, dir, &errb)
	stdin, stdout := startPiped(t, cmd)
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"purity","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"context","arguments":{"query":"HAR-142","explain":true}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"context","arguments":{"query":"HAR-142","budget":-5}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"context://docs/fr/guide.md"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"context://../outside.md"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"context_note","arguments":{"target":"note:purity","text":"Recorded while stdout is watched."}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"no/such/method"}`,
	}
	go func() {
		for _, r := range requests {
			io.WriteString(stdin, r+"\n")
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond) // let the last answers out before EOF
		stdin.Close()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	ids := map[float64]bool{}
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not one JSON-RPC message: %q", sc.Text())
			continue
		}
		if id, ok := msg["id"].(float64); ok {
			ids[id] = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("cairn mcp exited: %v\n%s", err, errb.String())
	}
	for id := 1; id <= 8; id++ {
		if id != 2 && !ids[float64(id)] { // every request has its answer
			t.Errorf("no answer to request %d", id)
		}
	}
	if !ids[2] {
		t.Error("no answer to tools/list")
	}
}

// TestMCPHTTP serves streamable HTTP on loopback, answers the SDK's
// client there, and refuses an address that is not loopback unless
// --allow-remote says so.
func TestMCPHTTP(t *testing.T) {
	dir := builtDemo(t)
	if code, _, stderr := cairn(t, "--base", dir, "mcp", "--http", "0.0.0.0:0"); code != 2 || !strings.Contains(stderr, "not a loopback address") {
		t.Errorf("--http 0.0.0.0:0: exit %d, %s", code, stderr)
	}
	if code, _, stderr := cairn(t, "--base", dir, "mcp", "--http", "8080"); code != 2 || !strings.Contains(stderr, "give HOST:PORT") {
		t.Errorf("--http 8080: exit %d, %s", code, stderr)
	}
	for _, flag := range []string{"--session-timeout", "--read-timeout"} {
		if code, _, stderr := cairn(t, "--base", dir, "mcp", "--http", "127.0.0.1:0", flag, "0s"); code != 2 || !strings.Contains(stderr, "above zero") {
			t.Errorf("%s 0s: exit %d, %s", flag, code, stderr)
		}
	}
	url := serveHTTPBinary(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context", Arguments: map[string]any{"query": "HAR-142"}})
	want, _ := cliAnswer(t, dir, "context", "--as-of", goldenAsOf, "HAR-142")
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != want {
		t.Errorf("context over HTTP: %v %+v", err, res)
	}
}

// startPiped starts cmd with its stdin and stdout as pipes, for a test
// that speaks JSON-RPC to the binary line by line.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}
