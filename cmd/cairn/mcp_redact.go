package main

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// An error is written for the person at the terminal, who knows where
// their base is, and may name it: "x is outside the base /home/you/notes",
// an error of the file system with the file's whole path. An MCP client
// may be a process elsewhere (over HTTP), and where the base sits on this
// machine is none of its business. Every error a client is sent passes
// through baseRedactor, at the two places that send them (the tool
// handler and the resource handler), so no query function has to know
// who will read its errors.

// baseRedactor takes the base's location out of a message.
type baseRedactor struct {
	// roots are the spellings of the base's root a message may hold (as
	// given, and with its symbolic links resolved), longest first, so that
	// one is never taken for the start of another.
	roots []string
}

// theBase is what stands for the root itself.
const theBase = "the base"

func newBaseRedactor(root string) baseRedactor {
	roots := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	slices.SortFunc(roots, func(a, b string) int { return len(b) - len(a) })
	return baseRedactor{roots: roots}
}

// redact rewrites msg for a client: a path under the root becomes
// relative to it, the root alone becomes "the base" ("outside the base
// /home/you/notes" reads "outside the base"), and what could drive a
// display is escaped (escape.Text). A path that merely starts with the
// same letters (/home/you/notes-old) is left as it is.
func (r baseRedactor) redact(msg string) string {
	return escape.Text(r.relative(msg))
}

// relative is redact without the escaping.
func (r baseRedactor) relative(msg string) string {
	for _, root := range r.roots {
		if root == string(filepath.Separator) || root == "." {
			continue // every path would match: nothing can be told
		}
		var b strings.Builder
		rest := msg
		for {
			i := strings.Index(rest, root)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			b.WriteString(rest[:i])
			after := rest[i+len(root):]
			switch {
			case strings.HasPrefix(after, "/") || strings.HasPrefix(after, string(filepath.Separator)):
				rest = after[1:] // the path, relative to the root
			case continuesName(after):
				b.WriteString(root)
				rest = after
			default:
				b.WriteString(theBase)
				rest = after
			}
		}
		msg = b.String()
	}
	// "outside the base /home/you/notes" said it twice.
	return strings.ReplaceAll(msg, theBase+" "+theBase, theBase)
}

// continuesName reports whether after, the text right after a match of
// the root, goes on with the same file name: a letter, a digit, '-' or
// '_', or a '.' that does not end a sentence.
func continuesName(after string) bool {
	if after == "" {
		return false
	}
	c := after[0]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c >= 0x80:
		return true
	case c == '.':
		return len(after) > 1 && after[1] != ' ' && after[1] != '\n'
	}
	return false
}

// redactedError is an error as a client is sent it: the text redacted,
// and the error itself behind it, so that its JSON-RPC code (which the
// SDK finds by unwrapping) is kept.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// clientError is err as a client may be sent it.
func (r baseRedactor) clientError(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: r.redact(err.Error()), err: err}
}
