package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-kb/cairn/query"
	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// The resource templates: the by-location answer at an address. The
// profile template is matched first (the SDK tries templates in the order
// of their text), but readResource parses the address itself either way.
const (
	atTemplate      = "context://{+path}{?format}"
	profileTemplate = "context://profile/{name}{?format}"
	contextScheme   = "context://"
	profilePrefix   = "profile/"
)

// Mime types of a by-location answer, stating which rendering was served.
const (
	mimeMarkdown = "text/markdown"
	mimeJSON     = "application/json"
)

// mcpResources are the resource templates, locked by the snapshot test
// like the tools.
var mcpResources = []*mcp.ResourceTemplate{
	{
		Name: "context-at-location", Title: "What applies at a path", URITemplate: atTemplate, MIMEType: mimeMarkdown,
		Description: "The voice, terms, notes and suggestions in force at a path of the base: `cairn context --at PATH`. ?format=json for the JSON document; the mime type says which was served.",
	},
	{
		Name: "context-for-profile", Title: "What a voice profile holds", URITemplate: profileTemplate, MIMEType: mimeMarkdown,
		Description: "One voice profile's writing brief, with no project point behind it: `cairn context --profile NAME`. ?format=json for the JSON document.",
	},
}

// location is what a by-location answer is asked about.
type location struct {
	path, profile string
	comments      bool
}

// at answers for a location through query.At, as cairn context --at does,
// in markdown or json; any other format is an error, never prose.
func (s *mcpServer) at(ctx context.Context, loc location, format string) ([]byte, error) {
	switch format {
	case "":
		format = query.FormatMarkdown
	case query.FormatMarkdown, query.FormatJSON:
	default:
		return nil, &query.UsageError{Msg: fmt.Sprintf("format %q: a by-location answer is markdown or json", format)}
	}
	asOf, err := s.day()
	if err != nil {
		return nil, err
	}
	return s.session.At(ctx, query.AtRequest{
		Path: loc.path, Profile: loc.profile, Comments: loc.comments, Format: format, AsOf: asOf, Seen: s.seen,
	})
}

// readResource answers resources/read for both templates.
func (s *mcpServer) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	start := time.Now()
	uri := req.Params.URI
	digest := inputDigest("resource", []byte(uri))
	loc, format, err := parseContextURI(uri)
	var out []byte
	if err == nil {
		out, err = s.at(ctx, loc, format)
	}
	items := 0
	if err == nil {
		items = 1
	}
	s.logCall("resources/read", items, start, digest, err)
	// What a person may read is escaped (escape.Text), as in the tools'
	// answers (see handle).
	if err != nil {
		var ue *query.UsageError
		if errors.As(err, &ue) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.redactor.redact(ue.Msg)}
		}
		return nil, s.redactor.clientError(err)
	}
	mime := mimeMarkdown
	if format == query.FormatJSON {
		mime = mimeJSON
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: string(escape.Bytes(out))}}}, nil
}

// parseContextURI reads context://PATH?format=F or
// context://profile/NAME?format=F. An empty path is the base's root.
func parseContextURI(uri string) (location, string, error) {
	rest, ok := strings.CutPrefix(uri, contextScheme)
	if !ok {
		return location{}, "", &query.UsageError{Msg: fmt.Sprintf("%q is not a context:// address; read context://PATH or context://profile/NAME", uri)}
	}
	if len(uri) > maxNameBytes+64 {
		return location{}, "", &query.UsageError{Msg: fmt.Sprintf("the address is %d bytes, at most %d", len(uri), maxNameBytes+64)}
	}
	rest, rawQuery, _ := strings.Cut(rest, "?")
	params, err := url.ParseQuery(rawQuery)
	if err != nil {
		return location{}, "", &query.UsageError{Msg: fmt.Sprintf("%q: the part after ? is not a query string: %v", uri, err)}
	}
	format := ""
	for k, vs := range params {
		if k != "format" || len(vs) != 1 {
			return location{}, "", &query.UsageError{Msg: fmt.Sprintf("%q: the only parameter is one format=markdown|json", uri)}
		}
		format = vs[0]
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return location{}, "", &query.UsageError{Msg: fmt.Sprintf("%q: the path is not percent-encoded correctly: %v", uri, err)}
	}
	if name, ok := strings.CutPrefix(p, profilePrefix); ok {
		return location{profile: name}, format, nil
	}
	if p == "" {
		p = "."
	}
	return location{path: p}, format, nil
}
