package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-kb/cairn/query"
)

// McpCmd is `cairn mcp`: the base served to an agent over the Model
// Context Protocol, with the same answers as the CLI verbs.
type McpCmd struct {
	HTTP           string        `name:"http" help:"Serve the streamable HTTP transport at this address (127.0.0.1:PORT) instead of stdio." placeholder:"ADDR"`
	AllowRemote    bool          `help:"Let --http listen on an address that is not loopback (anyone who reaches it can read the base)."`
	AsOf           string        `help:"The day every date rule is evaluated at (default: $CAIRN_AS_OF, else today, UTC, at each request)." placeholder:"DAY"`
	SessionTimeout time.Duration `help:"With --http, close a session that has sent no request for this long; its client starts a new one." default:"1h" placeholder:"DURATION"`
	ReadTimeout    time.Duration `help:"With --http, the most a request's headers, and then its body, may take to arrive." default:"10s" placeholder:"DURATION"`
}

// Help is the detail under the summary of `cairn mcp --help`.
func (McpCmd) Help() string {
	return `Examples:

    claude mcp add cairn -- cairn --base ~/notes mcp
    cairn mcp --http 127.0.0.1:8765    # streamable HTTP at http://127.0.0.1:8765/mcp

Over HTTP, a session that sends no request for --session-timeout is closed
(its client starts a new one), a request's body must arrive within
--read-timeout, and a request whose Origin header names another site than
the server's own is refused with 403.`
}

// mcpName is the server's name in the MCP handshake.
const mcpName = "cairn"

// mcpInstructions are the server's instructions to the client: what the
// tools are for, and the trust notice every pack repeats.
const mcpInstructions = "cairn answers from a local knowledge base. Call `context` with a question for the best few records and pages under a token budget, with a receipt; call `context_read` (or read the resource context://PATH) for the voice, terms and notes that apply where you write, before you write there. Record what you notice about naming, spelling or style with `context_note`: it stays a suggestion until a person keeps it. " + query.Notice

// Run serves the base until the client disconnects or the process is
// interrupted.
func (c *McpCmd) Run(env *Env) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	if _, err := asOfDay(c.AsOf, env); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newMCPServer(root, env, c.AsOf)
	defer s.session.Close()
	if c.HTTP == "" {
		// The transport is the process's own stdin and stdout: nothing
		// else may write to stdout while it serves.
		err := s.server.Run(ctx, &lineTransport{in: os.Stdin, out: env.Stdout, refused: s.logRefused})
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return c.serveHTTP(ctx, env, s)
}

// mcpServer is one running server over one base: the SDK's server with
// cairn's tools and resources, and what every request shares.
type mcpServer struct {
	server *mcp.Server
	root   string
	env    *Env
	asOf   string // --as-of as given
	// session keeps the artifacts open between requests (context, search,
	// read, list), and checks per request that they are still the current
	// build's.
	session *query.Session
	// seen is this process's baseline of the governance, for the freshness
	// note of by-location answers (query.Seen).
	seen *query.Seen
	// replyCap is the most bytes of an answer one tool result carries;
	// the rest is behind a cursor.
	replyCap int
	// redactor takes the base's location out of every error a client is
	// sent.
	redactor baseRedactor
	logMu    sync.Mutex
}

// mcpReplyCap is the default replyCap: a pack at the largest budget a
// tool accepts (maxBudget tokens, about four bytes each) takes two pages.
const mcpReplyCap = 64 << 10

// newMCPServer builds the server with every tool and resource template.
func newMCPServer(root string, env *Env, asOf string) *mcpServer {
	s := &mcpServer{root: root, env: env, asOf: asOf, session: query.NewSession(root), seen: &query.Seen{}, replyCap: mcpReplyCap, redactor: newBaseRedactor(root)}
	s.server = mcp.NewServer(&mcp.Implementation{Name: mcpName, Title: "cairn", Version: Version}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		Capabilities: &mcp.ServerCapabilities{},
	})
	for _, t := range mcpTools {
		s.server.AddTool(t.spec(), s.handle(t))
	}
	for _, r := range mcpResources {
		s.server.AddResourceTemplate(r, s.readResource)
	}
	return s
}

// day is the as-of day of one request: evaluated per request, since a
// server may run past midnight.
func (s *mcpServer) day() (time.Time, error) { return asOfDay(s.asOf, s.env) }

// logCall writes the one line a call leaves on stderr: what was called,
// how many items it answered with, how long it took and a digest of its
// input (never the input itself: it may be private).
func (s *mcpServer) logCall(what string, items int, start time.Time, digest string, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.env.Stderr, "cairn mcp: %s items=%d ms=%d input=%s %s\n", what, items, time.Since(start).Milliseconds(), digest, outcome)
}

// logRefused writes the line a refused stdio line leaves on stderr: its
// number and what was wrong with it, never its text.
func (s *mcpServer) logRefused(line int, why string) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.env.Stderr, "cairn mcp: line %d refused: %s\n", line, why)
}

// inputDigest names a request in the log and in its cursors: 16 hex
// digits over what was asked.
func inputDigest(what string, input []byte) string {
	h := sha256.New()
	h.Write([]byte(what))
	h.Write([]byte{0})
	h.Write(input)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
