package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// stdioReply is one line the server wrote on stdout, as far as these
// tests look at it.
type stdioReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// TestMCPStdioSurvivesBadLines writes to the built binary's stdin a line
// that is not JSON, a truncated request followed on the next line by a
// whole one, JSON that is no JSON-RPC message and a line over the length
// limit, between good requests and a batch: each bad line is answered
// with its error and id null, every good request with its answer, and the
// server keeps serving until stdin ends.
func TestMCPStdioSurvivesBadLines(t *testing.T) {
	dir := builtDemo(t)
	var errb syncBuffer
	cmd := mcpCommand(t, dir, &errb)
	stdin, stdout := startPiped(t, cmd)
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
		}
	}()

	replies := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			replies <- sc.Text()
		}
		close(replies)
	}()
	// nextInto reads the next line into v; a server that exited has none.
	nextInto := func(after string, v any) {
		t.Helper()
		select {
		case line, ok := <-replies:
			if !ok {
				t.Fatalf("stdout ended after %s: the server exited\n%s", after, errb.String())
			}
			if err := json.Unmarshal([]byte(line), v); err != nil {
				t.Fatalf("after %s: %q is not the JSON wanted: %v", after, line, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no reply after %s\n%s", after, errb.String())
		}
	}
	next := func(after string) stdioReply {
		t.Helper()
		var r stdioReply
		nextInto(after, &r)
		return r
	}
	send := func(lines string) {
		t.Helper()
		if _, err := io.WriteString(stdin, lines); err != nil {
			t.Fatalf("write %.60q: %v\n%s", lines, err, errb.String())
		}
	}
	wantError := func(after string, code int, says string) {
		t.Helper()
		r := next(after)
		if string(r.ID) != "null" || r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, says) {
			t.Errorf("after %s: reply id=%s error=%+v, want id null, code %d, a message with %q", after, r.ID, r.Error, code, says)
		}
	}
	wantAnswer := func(after, id string) {
		t.Helper()
		r := next(after)
		if string(r.ID) != id || r.Error != nil || len(r.Result) == 0 {
			t.Errorf("after %s: reply id=%s error=%+v, want the answer to request %s", after, r.ID, r.Error, id)
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bad-lines","version":"1"}}}` + "\n")
	wantAnswer("initialize", "1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")

	send("this is not JSON\n")
	wantError("a line that is not JSON", -32700, "not JSON")
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	wantAnswer("a ping after the line that is not JSON", "2")

	// The truncated request and the whole one arrive in one write: the
	// first must not take the second with it.
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/li` + "\n" + `{"jsonrpc":"2.0","id":4,"method":"tools/list"}` + "\n")
	wantError("a truncated request", -32700, "not JSON")
	wantAnswer("the request after the truncated one", "4")

	send(`{"hello":"world"}` + "\n")
	wantError("JSON that is no JSON-RPC message", -32600, "JSON-RPC")

	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"context","arguments":{"query":"` + strings.Repeat("x", maxLineBytes) + `"}}}` + "\n")
	wantError("a line over the limit", -32600, "bytes")

	// A batch (MCP before 2025-06-18) is answered with one array: the
	// two pings and the entry that is no message, not the notification.
	send(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"},{"id":"c"}]` + "\n")
	var batch []stdioReply
	nextInto("a batch", &batch)
	ids := map[string]string{}
	for _, r := range batch {
		ids[string(r.ID)] = "answer"
		if r.Error != nil {
			ids[string(r.ID)] = fmt.Sprint(r.Error.Code)
		}
	}
	if len(batch) != 3 || ids[`"a"`] != "answer" || ids[`"b"`] != "answer" || ids[`"c"`] != "-32600" {
		t.Errorf("the batch's answer = %+v, want the answers to a and b and an invalid-request error for c", batch)
	}

	send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"context","arguments":{"query":"HAR-142"}}}` + "\n")
	wantAnswer("a tool call after every bad line", "6")

	stdin.Close()
	if line, ok := <-replies; ok {
		t.Errorf("a reply nobody asked for: %s", line)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("cairn mcp exited: %v\n%s", waitErr, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("cairn mcp did not exit when stdin ended\n%s", errb.String())
	}
	if n := strings.Count(errb.String(), "cairn mcp: line "); n != 4 {
		t.Errorf("stderr holds %d refused-line notes, want 4:\n%s", n, errb.String())
	}
}

// TestLineReader reads lines of every shape through a buffer smaller
// than some of them: a line longer than the buffer but within the limit
// comes whole, a line over the limit is reported with its length and
// skipped to its end, and a last line without a newline counts.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("a", 100)
	over := strings.Repeat("b", 300)
	lr := newLineReader(strings.NewReader("one\r\n"+long+"\n"+over+"\n\nlast"), 16, 200)
	var got []string
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		var tooLong *lineTooLongError
		if errors.As(err, &tooLong) {
			got = append(got, fmt.Sprintf("over:%d", tooLong.n))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"one", long, "over:300", "", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", got, want)
	}
}
