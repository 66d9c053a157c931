package diag

import (
	"slices"
	"strings"
)

// Lines finds the 1-based line and byte column of offsets in one text.
// Asked in increasing order, as a loader asks while it walks a file, it
// reads each byte of the text once in all: a minified document holds all
// its records on one line, and finding each record's column by looking
// back for the line's start would read the whole prefix every time. An
// offset behind the last one asked is found in a table of line starts,
// built once, on the first such question.
//
// A Lines is not safe for concurrent use.
type Lines struct {
	text string
	// The text before pos has been read: it holds line-1 newlines, the
	// last of them just before lineStart.
	pos, line, lineStart int
	starts               []int // every line's start, once an offset went back
	scanned              int
}

// NewLines returns the positions of text, of which nothing is read yet.
func NewLines(text string) *Lines { return &Lines{text: text, line: 1} }

// Pos returns the line and column of the byte at off, clamped to the text.
func (l *Lines) Pos(off int) (line, col int) {
	off = min(max(off, 0), len(l.text))
	if off < l.pos {
		return l.behind(off)
	}
	gap := l.text[l.pos:off]
	l.scanned += len(gap)
	if n := strings.Count(gap, "\n"); n > 0 {
		l.line += n
		l.lineStart = l.pos + strings.LastIndexByte(gap, '\n') + 1
	}
	l.pos = off
	return l.line, off - l.lineStart + 1
}

// behind finds an offset before the last one asked in the table of line
// starts, which it builds the first time.
func (l *Lines) behind(off int) (line, col int) {
	if l.starts == nil {
		l.starts = []int{0}
		for i := 0; i < len(l.text); {
			j := strings.IndexByte(l.text[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			l.starts = append(l.starts, i)
		}
		l.scanned += len(l.text)
	}
	// The last line start at or before off.
	i, found := slices.BinarySearch(l.starts, off)
	if !found {
		i--
	}
	return i + 1, off - l.starts[i] + 1
}

// Scanned returns how many bytes of the text Pos has read so far: at most
// twice the text's length, whatever offsets it was asked.
func (l *Lines) Scanned() int { return l.scanned }
