package artifacts

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// CorruptError says an artifact's bytes do not follow its format. The query
// stage treats it as "corrupt" and falls back to a scan of the base.
type CorruptError struct {
	Path string
	Line int // 1-based; 0 when the whole file is meant
	Msg  string
}

func (e *CorruptError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: corrupt artifact: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: corrupt artifact: %s", e.Path, e.Msg)
}

// header is the first line of a TSV artifact: its name, version and columns.
func header(name string, columns ...string) string {
	return fmt.Sprintf("#cairn %s v%d\t%s\n", name, FormatVersion, strings.Join(columns, "\t"))
}

// splitHeader checks the first line of data and returns the rest.
func splitHeader(path string, data []byte, want string) ([]byte, error) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 || string(data[:i+1]) != want {
		return nil, &CorruptError{Path: path, Line: 1, Msg: fmt.Sprintf("header is not %q", strings.TrimSuffix(want, "\n"))}
	}
	return data[i+1:], nil
}

// decodeRows parses a whole TSV artifact: the header, then every line
// decoded by row with its line number. The first bad row ends it.
func decodeRows[T any](path string, data []byte, header string, row func(n int, line []byte) (T, error)) ([]T, error) {
	body, err := splitHeader(path, data, header)
	if err != nil {
		return nil, err
	}
	var out []T // nil for a table without rows
	if n := bytes.Count(body, []byte{'\n'}); n > 0 {
		out = make([]T, 0, n)
	}
	err = lines(path, body, func(n int, line []byte) error {
		v, err := row(n, line)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// lines calls fn for every LF-terminated line of data with its 1-based line
// number (counting the header as line 1). A final line without LF is corrupt:
// every writer ends its files with LF, so a missing one means truncation.
func lines(path string, data []byte, fn func(n int, line []byte) error) error {
	n := 1
	for len(data) > 0 {
		n++
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return &CorruptError{Path: path, Line: n, Msg: "last line has no LF; the file is truncated"}
		}
		if i > 0 && data[i-1] == '\r' {
			return &CorruptError{Path: path, Line: n, Msg: "the line ends with CR; artifacts use LF line endings"}
		}
		if err := fn(n, data[:i]); err != nil {
			return err
		}
		data = data[i+1:]
	}
	return nil
}

// dash writes "-" for an empty value, so that no TSV cell is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// undash reverses dash.
func undash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// breaksRow reports whether s holds a byte that would break a TSV row: a
// tab, CR or LF. A loop: a build asks it of every term and cell it writes,
// and strings.ContainsAny makes its set of bytes anew on every call.
func breaksRow[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\t' || c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}

// CleanCell replaces the bytes that would break a TSV row (tab, CR, LF)
// with spaces. Projection applies it to values that become graph nodes, so
// that they sort as they are written.
func CleanCell(s string) string {
	if !breaksRow(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

func atoi(path string, n int, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, &CorruptError{Path: path, Line: n, Msg: fmt.Sprintf("%q is not a non-negative integer", s)}
	}
	return v, nil
}
