package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-kb/cairn/cmd/cairn/internal/notes"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// contextNoteInput is the context_note tool's arguments.
type contextNoteInput struct {
	Target     string            `json:"target"`
	Text       string            `json:"text"`
	Paths      []string          `json:"paths"`
	Axes       map[string]string `json:"axes"`
	Evidence   []string          `json:"evidence"`
	ValidFrom  string            `json:"valid_from"`
	ValidUntil string            `json:"valid_until"`
	Session    string            `json:"session"`
}

func (in contextNoteInput) check() error {
	var b bounds
	b.text("target", in.Target, maxNameBytes)
	b.text("text", in.Text, maxNoteBytes)
	b.list("paths", in.Paths, maxNameBytes)
	b.list("evidence", in.Evidence, maxNameBytes)
	b.list("axes", slices.Sorted(maps.Keys(in.Axes)), maxShortBytes)
	b.list("axes", slices.Sorted(maps.Values(in.Axes)), maxShortBytes)
	b.text("valid_from", in.ValidFrom, maxDayBytes)
	b.text("valid_until", in.ValidUntil, maxDayBytes)
	b.text("session", in.Session, maxShortBytes)
	return b.err
}

// answerContextNote records a suggestion as the calling client, through
// the function cairn note uses: the log appended under its own lock, then
// the rules files refreshed unless a build is running. Its answer is the
// line cairn note suggest prints.
func answerContextNote(_ context.Context, s *mcpServer, call *mcp.CallToolRequest, args []byte) (toolReply, error) {
	var in contextNoteInput
	if err := decodeArgs(args, &in); err != nil {
		return toolReply{}, err
	}
	if err := in.check(); err != nil {
		return toolReply{}, err
	}
	asOf, err := s.day()
	if err != nil {
		return toolReply{}, err
	}
	req := notes.Request{
		Kind: model.OpSuggest, Actor: agentActor(call.ClientInfo()), Session: in.Session, Target: in.Target,
		Text: in.Text, Paths: in.Paths, Axes: in.Axes, Evidence: in.Evidence,
		ValidFrom: in.ValidFrom, ValidUntil: in.ValidUntil, Now: s.env.now(),
	}
	// The build's own messages would interleave with the call log; what
	// matters of them is in the error.
	rec, err := recordOp(s.root, req, asOf, io.Discard)
	var derr *diag.Errors
	if errors.As(err, &derr) {
		lines := make([]string, len(derr.Diagnostics))
		for i, d := range derr.Diagnostics {
			lines[i] = d.String()
		}
		return toolReply{}, fmt.Errorf("the suggestion was not recorded:\n%s", strings.Join(lines, "\n"))
	}
	if err != nil {
		return toolReply{}, err
	}
	return toolReply{body: []byte(noteLine(rec.op)), items: 1}, nil
}

// unknownClient stands for a client that gave no name in the handshake.
const unknownClient = "unnamed-client"

// agentActor is who a suggestion is recorded as: agent:<the client's name
// from the MCP handshake>, folded to a one-word lowercase name (a client
// may call itself "Claude Code").
func agentActor(info *mcp.Implementation) string {
	name := ""
	if info != nil {
		name = info.Name
	}
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.' || r == '_':
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '/' || r == ':':
			b.WriteRune('-')
		}
		if b.Len() >= maxShortBytes/2 {
			break
		}
	}
	folded := strings.Trim(b.String(), "-")
	if folded == "" {
		folded = unknownClient
	}
	return "agent:" + folded
}
