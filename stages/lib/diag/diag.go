// Package diag is how the build reports mistakes in a base. A diagnostic is
// not a Go error: stages collect diagnostics and keep going, so that one run
// reports every mistake at once, sorted, as file:line:col: severity: message [code].
package diag

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// Severity says whether a diagnostic stops the build.
type Severity int

const (
	// Error stops the build before anything is written.
	Error Severity = iota
	// Warning is printed and the build goes on.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one mistake found in the base.
type Diagnostic struct {
	File     string // base-relative path, "/" separated
	Line     int    // 1-based; 0 when the whole file is meant
	Col      int    // 1-based; 0 when unknown
	Severity Severity
	Code     string // stable kebab-case code, e.g. "json-syntax"
	Message  string // what is wrong and what to do
}

// String renders d as file:line:col: severity: message [code]; a missing
// line or column is written as 1 so that every line has the same shape.
// A file name that holds a control character (a line break, a tab) or
// bytes that are not UTF-8 is written as a Go-quoted string, so that the
// diagnostic stays one line and names the file exactly; what else could
// act on the reader's display, in the name or in a value the message
// quotes, is escaped (escape.Text).
func (d Diagnostic) String() string {
	line, col := max(d.Line, 1), max(d.Col, 1)
	return escape.Text(fmt.Sprintf("%s:%d:%d: %s: %s [%s]", QuotePath(d.File), line, col, d.Severity, d.Message, d.Code))
}

// QuotePath is p as a diagnostic writes it: as it is, or quoted when it
// holds a control character or is not UTF-8.
func QuotePath(p string) string {
	if !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// List collects diagnostics. The zero value is ready to use.
type List struct {
	items []Diagnostic
}

// Add appends one diagnostic.
func (l *List) Add(d Diagnostic) { l.items = append(l.items, d) }

// Errorf adds an error at file:line:col.
func (l *List) Errorf(file string, line, col int, code, format string, args ...any) {
	l.Add(Diagnostic{File: file, Line: line, Col: col, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Warnf adds a warning at file:line:col.
func (l *List) Warnf(file string, line, col int, code, format string, args ...any) {
	l.Add(Diagnostic{File: file, Line: line, Col: col, Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Len returns how many diagnostics the list holds, a mark for HasErrorsSince.
func (l *List) Len() int { return len(l.items) }

// HasErrorsSince reports whether any diagnostic added at or after mark is an error.
func (l *List) HasErrorsSince(mark int) bool {
	return slices.ContainsFunc(l.items[mark:], func(d Diagnostic) bool { return d.Severity == Error })
}

// Merge appends every diagnostic of other.
func (l *List) Merge(other []Diagnostic) { l.items = append(l.items, other...) }

// Sorted returns the diagnostics ordered by file, line, column, severity,
// code and message, without duplicates.
func (l *List) Sorted() []Diagnostic {
	out := slices.Clone(l.items)
	Sort(out)
	return slices.Compact(out)
}

// HasErrors reports whether any diagnostic is an error.
func (l *List) HasErrors() bool {
	return slices.ContainsFunc(l.items, func(d Diagnostic) bool { return d.Severity == Error })
}

// Sort orders diagnostics by file, line, column, severity, code, message.
func Sort(ds []Diagnostic) {
	slices.SortFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			strings.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Severity, b.Severity),
			strings.Compare(a.Code, b.Code),
			strings.Compare(a.Message, b.Message),
		)
	})
}

// Errors is the Go error a build returns when the base has error
// diagnostics. Callers print every diagnostic and exit 2.
type Errors struct {
	Diagnostics []Diagnostic
}

func (e *Errors) Error() string {
	n := 0
	for _, d := range e.Diagnostics {
		if d.Severity == Error {
			n++
		}
	}
	return fmt.Sprintf("the base has %d error(s); nothing was written", n)
}

// Join writes diagnostics as one message, each as String writes it.
func Join(ds []Diagnostic) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}

// ExitCode makes invalid base content exit 2.
func (e *Errors) ExitCode() int { return 2 }

// ErrorsOnly returns the errors among ds, in their order; warnings are
// dropped.
func ErrorsOnly(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// LineCol converts a byte offset in data to a 1-based line and column
// (columns count bytes, as editors that report byte columns do).
func LineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	head := data[:offset]
	return 1 + bytes.Count(head, []byte{'\n'}), int(offset) - bytes.LastIndexByte(head, '\n')
}

// LineColString is LineCol over a string.
func LineColString(s string, offset int) (line, col int) {
	offset = min(max(offset, 0), len(s))
	head := s[:offset]
	return 1 + strings.Count(head, "\n"), offset - strings.LastIndexByte(head, '\n')
}
