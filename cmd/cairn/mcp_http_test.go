package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTPBinary starts the built binary serving dir over streamable HTTP on
// a free loopback port, with extra flags, and returns the endpoint's URL.
// The server is interrupted when the test ends.
func serveHTTPBinary(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(builtCairn(t), append([]string{"--base", dir, "mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "CAIRN_AS_OF="+goldenAsOf)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	endpoint, ok := strings.CutPrefix(strings.TrimSpace(line), "cairn mcp: serving streamable HTTP at ")
	if err != nil || !ok {
		t.Fatalf("first stderr line %q (%v)", line, err)
	}
	go io.Copy(io.Discard, stderr)
	return endpoint
}

// initializeBody is an initialize request, as a client's first POST.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-http","version":"1"}}}`

// post sends one JSON-RPC message to the endpoint with the headers the
// streamable transport requires and any others given, and returns the
// status and the session id the answer names.
func post(t *testing.T, endpoint, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// TestMCPHTTPSessionExpires: a session that receives no request for
// --session-timeout is closed, and its id is then unknown (404).
func TestMCPHTTPSessionExpires(t *testing.T) {
	const timeout = 300 * time.Millisecond
	endpoint := serveHTTPBinary(t, builtDemo(t), "--session-timeout", timeout.String())
	status, session := post(t, endpoint, initializeBody, nil)
	if status != http.StatusOK || session == "" {
		t.Fatalf("initialize: status %d, session %q", status, session)
	}
	withSession := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
	if status, _ := post(t, endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession); status != http.StatusAccepted {
		t.Fatalf("initialized: status %d", status)
	}
	if status, _ := post(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, withSession); status != http.StatusOK {
		t.Fatalf("a ping in a live session: status %d", status)
	}
	// Each request starts the idle time again, so the probes wait longer
	// than the timeout between them.
	for deadline := time.Now().Add(20 * time.Second); ; {
		time.Sleep(3 * timeout)
		status, _ := post(t, endpoint, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, withSession)
		if status == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session is still there (status %d) long after %s idle", status, timeout)
		}
	}
}

// TestMCPHTTPSlowBody: a client that sends a request's headers and then
// stalls in its body is cut off after --read-timeout, by an error answer
// or a closed connection, instead of holding the connection forever.
func TestMCPHTTPSlowBody(t *testing.T) {
	endpoint := serveHTTPBinary(t, builtDemo(t), "--read-timeout", "300ms")
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST " + u.Path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: " + strconv.Itoa(len(initializeBody)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+initializeBody[:20]); err != nil {
		t.Fatal(err)
	}
	// The bound is generous: it only tells "cut off" from "waits forever".
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server still waits for the rest of the body after 20s (read %q)", got)
	}
	if len(got) > 0 && !strings.HasPrefix(string(got), "HTTP/1.1 4") {
		t.Errorf("the answer to a stalled body is not an error: %q", got)
	}
	t.Logf("the answer to a stalled body: %q", got)

	// The deadline is on the body alone: a session that lives, and a
	// stream that stays open, past it are served as before.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(time.Second)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context", Arguments: map[string]any{"query": "HAR-142"}}); err != nil || res.IsError {
		t.Errorf("a call a second into the session: %v %+v", err, res)
	}
}

// TestMCPHTTPOrigin: a request whose Origin is not the server's own is
// refused with 403 (a web page's script, DNS rebinding); the server's own
// origin under any loopback name passes, and so does a request with no
// Origin, as every client that is not a browser sends.
func TestMCPHTTPOrigin(t *testing.T) {
	endpoint := serveHTTPBinary(t, builtDemo(t))
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	for origin, want := range map[string]int{
		"":                               http.StatusOK,
		"http://127.0.0.1:" + port:       http.StatusOK,
		"http://localhost:" + port:       http.StatusOK,
		"http://[::1]:" + port:           http.StatusOK,
		"https://127.0.0.1:" + port:      http.StatusOK,
		"http://evil.example":            http.StatusForbidden,
		"http://evil.example:" + port:    http.StatusForbidden,
		"http://127.0.0.1:1":             http.StatusForbidden,
		"http://127.0.0.1":               http.StatusForbidden,
		"ftp://127.0.0.1:" + port:        http.StatusForbidden,
		"null":                           http.StatusForbidden,
		"http://127.0.0.1:" + port + "/": http.StatusForbidden,
	} {
		header := map[string]string{}
		if origin != "" {
			header["Origin"] = origin
		}
		if status, _ := post(t, endpoint, initializeBody, header); status != want {
			t.Errorf("Origin %q: status %d, want %d", origin, status, want)
		}
	}
}

// TestOriginGuard: what counts as the server's own origin at an address
// that is not loopback, and on every address, where the request's Host
// says which name it was reached by.
func TestOriginGuard(t *testing.T) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, c := range []struct {
		listen, host, origin string
		want                 int
	}{
		{"192.0.2.7", "192.0.2.7:8765", "http://192.0.2.7:8765", http.StatusOK},
		{"192.0.2.7", "192.0.2.7:8765", "http://127.0.0.1:8765", http.StatusForbidden},
		{"192.0.2.7", "evil.example:8765", "http://evil.example:8765", http.StatusForbidden},
		{"0.0.0.0", "kb.example:8765", "https://KB.example:8765", http.StatusOK},
		{"0.0.0.0", "kb.example:8765", "http://evil.example:8765", http.StatusForbidden},
		{"0.0.0.0", "kb.example:8765", "http://kb.example:9999", http.StatusForbidden},
		{"::", "[::1]:8765", "http://[::1]:8765", http.StatusOK},
		{"localhost", "localhost:8765", "http://127.0.0.1:8765", http.StatusOK},
	} {
		g := newOriginGuard(c.listen, "8765", ok)
		req := httptest.NewRequest(http.MethodPost, "http://"+c.host+"/mcp", nil)
		req.Header.Set("Origin", c.origin)
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("listening at %s, Host %s, Origin %s: status %d, want %d", c.listen, c.host, c.origin, rec.Code, c.want)
		}
	}
}
