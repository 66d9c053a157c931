package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idleConnTimeout is how long a kept-alive connection may wait for its
// next request: a client that comes back later opens another.
const idleConnTimeout = 2 * time.Minute

// serveHTTP serves the streamable HTTP transport at --http, refusing an
// address that is not loopback unless --allow-remote says so.
func (c *McpCmd) serveHTTP(ctx context.Context, env *Env, s *mcpServer) error {
	host, _, err := net.SplitHostPort(c.HTTP)
	if err != nil {
		return usageError("--http %q: give HOST:PORT, e.g. --http 127.0.0.1:8765", c.HTTP)
	}
	if !isLoopback(host) && !c.AllowRemote {
		return usageError("--http %q is not a loopback address: anyone who reaches it could read the base; use 127.0.0.1:PORT, or add --allow-remote if that is what you mean", c.HTTP)
	}
	if c.SessionTimeout <= 0 {
		return usageError("--session-timeout %s: give a duration above zero, e.g. 1h", c.SessionTimeout)
	}
	if c.ReadTimeout <= 0 {
		return usageError("--read-timeout %s: give a duration above zero, e.g. 10s", c.ReadTimeout)
	}
	ln, err := net.Listen("tcp", c.HTTP)
	if err != nil {
		return &exitError{code: 3, msg: fmt.Sprintf("--http %s: %v", c.HTTP, err)}
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	hs := &http.Server{
		Handler:           c.httpHandler(s, host, port),
		ReadHeaderTimeout: c.ReadTimeout,
		IdleTimeout:       idleConnTimeout,
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(shut)
	}()
	fmt.Fprintf(env.Stderr, "cairn mcp: serving streamable HTTP at http://%s/mcp\n", ln.Addr())
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// httpHandler is the SDK's streamable handler behind cairn's two guards:
// the Origin check first, then the deadline on the request's body. The
// SDK's own check of the Host header (a loopback server answers only to
// loopback names) stays on.
func (c *McpCmd) httpHandler(s *mcpServer, host, port string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, &mcp.StreamableHTTPOptions{
		// A session holds about 12 KB; one the client forgot would
		// otherwise stay until the process ends.
		SessionTimeout: c.SessionTimeout,
	})
	return newOriginGuard(host, port, bodyDeadline(c.ReadTimeout, h))
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originGuard refuses, with 403, a request whose Origin is not the
// server's own: a browser names in Origin the site whose script made the
// request, so a page of another site (or one that had its name rebound to
// this machine) cannot call the tools. A request without Origin comes
// from a program that is not a browser, and passes.
type originGuard struct {
	port string
	// hosts are the names the server answers as, lowercase; nil when it
	// listens on every address and cannot know them, and then its own
	// origin is the host the request itself was sent to.
	hosts map[string]bool
	next  http.Handler
}

// newOriginGuard guards next for a server listening at host:port. On
// loopback, every loopback name is the server's own.
func newOriginGuard(host, port string, next http.Handler) *originGuard {
	g := &originGuard{port: port, next: next}
	ip := net.ParseIP(host)
	switch {
	case isLoopback(host):
		g.hosts = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true, strings.ToLower(host): true}
	case host == "" || ip != nil && ip.IsUnspecified():
	default:
		g.hosts = map[string]bool{strings.ToLower(host): true}
	}
	return g
}

func (g *originGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origins := r.Header.Values("Origin")
	if len(origins) == 0 || len(origins) == 1 && g.own(origins[0], r.Host) {
		g.next.ServeHTTP(w, r)
		return
	}
	http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not this server's; cairn mcp answers a browser only from its own origin (http://HOST:%s)", strings.Join(origins, ", "), g.port), http.StatusForbidden)
}

// own reports whether origin is the server's: http or https, one of its
// host names (or the request's Host, when it cannot know them), and its
// port. An origin is a scheme, a host and a port and nothing else.
func (g *originGuard) own(origin, requestHost string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Opaque != "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	port := u.Port()
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return false
	case port == "" && u.Scheme == "http":
		port = "80"
	case port == "":
		port = "443"
	}
	if port != g.port {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if g.hosts != nil {
		return g.hosts[host]
	}
	reqHost, _, err := net.SplitHostPort(requestHost)
	if err != nil {
		reqHost = requestHost
	}
	return host == strings.ToLower(strings.Trim(reqHost, "[]"))
}

// bodyDeadline gives a request's body d to arrive, counted from when its
// handler starts, so a client that sends the headers and then trickles
// the body, or stalls, is cut off: the read fails, the SDK answers 400 and
// the connection is closed. The deadline is lifted once the body has been
// read to its end, because the connection then waits, unbounded, for the
// client to go away while the answer streams (http.Server.ReadTimeout
// would bound that wait too, and cut off every long answer with it).
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline when the body ends. After any
// other error the deadline stays, so that the server's own reading of the
// rest (to reuse the connection) is bounded by it too.
type deadlineBody struct {
	io.ReadCloser
	lift func()
	once sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.once.Do(b.lift)
	}
	return n, err
}
