package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport reads its own lines instead of using the SDK's
// StdioTransport, whose stream decoder ends the session at the first
// byte that is not JSON and reads a truncated message on into the next
// line. Here a line is the unit: a bad one is answered with a JSON-RPC
// error and costs only itself.

// maxLineBytes is the longest line the stdio transport reads. A tool's
// arguments are at most maxArgsBytes (64 KiB), so any request a tool
// accepts fits many times over; a longer line is refused without being
// held in memory.
const maxLineBytes = 1 << 20

// lineBufBytes is the reader's buffer: a line longer than this is read in
// pieces.
const lineBufBytes = 64 << 10

// lineTransport is newline-delimited JSON-RPC over a reader and a writer
// (the process's stdin and stdout). Each line is one message, or a batch
// of them (MCP before its 2025-06-18 revision), answered with one array.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	// refused notes a line that was answered with an error, for the log.
	refused func(line int, why string)
}

// Connect starts reading lines; the connection delivers the messages and
// answers the rest itself.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, refused: t.refused, incoming: make(chan lineResult), closed: make(chan struct{})}
	go c.readLoop(newLineReader(t.in, lineBufBytes, maxLineBytes))
	return c, nil
}

// lineConn is one connection of lineTransport.
type lineConn struct {
	writeMu sync.Mutex // one line at a time on out: answers and refusals
	out     io.Writer
	refused func(line int, why string)
	// incoming carries messages from the read loop, which runs apart so
	// that Close can end a Read blocked on stdin.
	incoming  chan lineResult
	closed    chan struct{}
	closeOnce sync.Once
	// batches are the batch lines still owed answers, by request id;
	// guarded by writeMu, since Write completes them.
	batches map[jsonrpc.ID]*batch
}

// batch is the answer owed to one batch line: one array, written when
// the last request in it has been answered.
type batch struct {
	answers []json.RawMessage
	owed    int
}

// lineResult is what the read loop hands to Read: a message, or the error
// that ends the input.
type lineResult struct {
	msg jsonrpc.Message
	err error
}

// readLoop reads lines until the input ends, answering every line that
// is not a message and passing on every one that is.
func (c *lineConn) readLoop(lr *lineReader) {
	for n := 1; ; n++ {
		line, err := lr.next()
		var tooLong *lineTooLongError
		if errors.As(err, &tooLong) {
			c.refuse(n, nil, jsonrpc.CodeInvalidRequest, "over the length limit",
				fmt.Sprintf("Invalid Request: line %d is %d bytes, over the limit of %d; send smaller messages", n, tooLong.n, tooLong.max))
			continue
		}
		if err != nil {
			select {
			case c.incoming <- lineResult{err: err}:
			case <-c.closed:
			}
			return
		}
		for _, msg := range c.decode(n, line) {
			select {
			case c.incoming <- lineResult{msg: msg}:
			case <-c.closed:
				return
			}
		}
	}
}

// decode reads one line as a message, or a batch of them, answering
// what is not a message with its JSON-RPC error. A blank line is skipped.
func (c *lineConn) decode(n int, line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		c.refuse(n, nil, jsonrpc.CodeParseError, "not JSON",
			fmt.Sprintf("Parse error: line %d is not JSON (%v); send one JSON-RPC message per line", n, err))
		return nil
	}
	if line[0] == '[' {
		return c.decodeBatch(n, line)
	}
	msg, err := decodeMessage(line)
	if err != nil {
		c.refuse(n, idOf(line), jsonrpc.CodeInvalidRequest, "not a JSON-RPC message",
			fmt.Sprintf("Invalid Request: line %d is not a JSON-RPC 2.0 message (%v)", n, err))
		return nil
	}
	return []jsonrpc.Message{msg}
}

// decodeMessage decodes one message. It outlives the reader's buffer,
// which the next line reuses.
func decodeMessage(b []byte) (jsonrpc.Message, error) {
	return jsonrpc.DecodeMessage(bytes.Clone(b))
}

// decodeBatch reads a batch line. Each entry that is not a message is
// answered in the batch's array, as JSON-RPC asks; the array is written
// once every request has its answer (now, if the batch holds none).
func (c *lineConn) decodeBatch(n int, line []byte) []jsonrpc.Message {
	var entries []json.RawMessage
	if err := json.Unmarshal(line, &entries); err != nil || len(entries) == 0 {
		c.refuse(n, nil, jsonrpc.CodeInvalidRequest, "an empty batch",
			fmt.Sprintf("Invalid Request: line %d is an empty batch", n))
		return nil
	}
	b := &batch{}
	var msgs []jsonrpc.Message
	ids := map[jsonrpc.ID]bool{}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	for i, e := range entries {
		msg, err := decodeMessage(e)
		req, isReq := msg.(*jsonrpc.Request)
		if err == nil && isReq && req.IsCall() && (ids[req.ID] || c.batches[req.ID] != nil) {
			err = fmt.Errorf("the id %v is already in use", req.ID.Raw())
		}
		if err != nil {
			a, _ := json.Marshal(refusal{JSONRPC: "2.0", ID: idOf(e), Error: jsonrpc.Error{
				Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("Invalid Request: entry %d of the batch on line %d is not a JSON-RPC 2.0 message (%v)", i+1, n, err),
			}})
			b.answers = append(b.answers, a)
			continue
		}
		if isReq && req.IsCall() {
			ids[req.ID] = true
			b.owed++
		}
		msgs = append(msgs, msg)
	}
	if b.owed == 0 {
		if len(b.answers) > 0 {
			_ = c.writeBatch(b)
		}
		return msgs
	}
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*batch{}
	}
	for id := range ids {
		c.batches[id] = b
	}
	return msgs
}

// idOf is the id of a message that is a JSON object, when it has one a
// JSON-RPC answer can carry (a string or a number), else nil (null).
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	if m.ID[0] == '"' || m.ID[0] == '-' || (m.ID[0] >= '0' && m.ID[0] <= '9') {
		return m.ID
	}
	return nil
}

// refusal is the answer to a line that is not a message. The SDK's
// encoder leaves out an id it does not have; JSON-RPC wants null there.
type refusal struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

// refuse answers line n with a JSON-RPC error and notes it in the log
// (what was wrong, never the line itself). A failed write is left to the
// next answer to report: the read loop keeps reading.
func (c *lineConn) refuse(n int, id json.RawMessage, code int64, why, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(refusal{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: msg}})
	_ = c.writeLine(b)
	if c.refused != nil {
		c.refused(n, why)
	}
}

// writeLine writes one message and its newline in one piece.
func (c *lineConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// writeBatch writes a batch's answers as one array; writeMu is held.
func (c *lineConn) writeBatch(b *batch) error {
	arr, err := json.Marshal(b.answers)
	if err != nil {
		return err
	}
	_, err = c.out.Write(append(arr, '\n'))
	return err
}

// Read returns the next message, io.EOF once the input has ended or the
// connection is closed.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes one message as one line, or keeps the answer to a request
// of a batch until the whole batch's array can be written.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if bt := c.batches[resp.ID]; bt != nil {
			delete(c.batches, resp.ID)
			bt.answers = append(bt.answers, b)
			if bt.owed--; bt.owed > 0 {
				return nil
			}
			return c.writeBatch(bt)
		}
	}
	_, err = c.out.Write(append(b, '\n'))
	return err
}

// Close ends the connection. The input is the process's stdin, which
// stays open: the read loop ends with the process.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: stdio has one session, the process's.
func (c *lineConn) SessionID() string { return "" }

// lineReader reads newline-terminated lines of at most max bytes (the
// line ending not counted), never holding more than that of any one.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// lineTooLongError is a line over the limit, which was read to its end
// and dropped.
type lineTooLongError struct{ n, max int }

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("a line of %d bytes, over the limit of %d", e.n, e.max)
}

func newLineReader(r io.Reader, bufSize, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, bufSize), max: max}
}

// next returns the next line without its line ending (\n or \r\n), valid
// until the next call; a last line without a newline counts. At the end
// of the input it returns io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	total, over := 0, false
	for {
		chunk, err := l.r.ReadSlice('\n')
		total += len(chunk)
		if !over && len(l.buf)+len(chunk) <= l.max+len("\r\n") {
			l.buf = append(l.buf, chunk...)
		} else {
			// Past the limit: keep counting to the line's end, keep nothing.
			over = true
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && total == 0:
			return nil, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		}
		if over {
			// A \r split from its \n by the buffer is counted in: the
			// length told is then one byte long.
			return nil, &lineTooLongError{n: total - endingLen(chunk), max: l.max}
		}
		line := l.buf[:len(l.buf)-endingLen(l.buf)]
		if len(line) > l.max {
			return nil, &lineTooLongError{n: len(line), max: l.max}
		}
		return line, nil
	}
}

// endingLen is the length of b's line ending: 2 for \r\n, 1 for \n, 0
// for none.
func endingLen(b []byte) int {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(b, []byte("\n")):
		return 1
	}
	return 0
}
