package artifacts

import (
	"bytes"
	"fmt"
	"io"
)

// SortedRows reads rows of a TSV artifact sorted bytewise by its first
// column (edges.tsv, edges.dst.tsv) with positioned reads, so that a
// reader that wants a few runs of rows does not read the file whole.
type SortedRows struct {
	r      io.ReaderAt
	path   string
	size   int64
	start  int64  // where the first row starts, after the header
	header []byte // the header line, LF included
	buf    []byte // the block last read: bufLen bytes from bufAt
	bufAt  int64
	bufLen int
}

// NewSortedRows checks the header of the artifact at path (edges.tsv or
// edges.dst.tsv), of size bytes read through r.
func NewSortedRows(r io.ReaderAt, size int64, path string) (*SortedRows, error) {
	want, ok := map[string]string{EdgesPath: edgesHeader, EdgesDstPath: edgesDstHeader}[path]
	if !ok {
		return nil, fmt.Errorf("%s: not a file SortedRows knows", path)
	}
	s := &SortedRows{r: r, path: path, size: size}
	head := make([]byte, min(int64(len(want)), size))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if string(head) != want {
		return nil, &CorruptError{Path: path, Line: 1, Msg: "header is not " + fmt.Sprintf("%q", want)}
	}
	s.start, s.header = int64(len(want)), head
	return s, nil
}

// Header is the artifact's header line, LF included.
func (s *SortedRows) Header() []byte { return s.header }

// Between returns the rows whose first column is at least lo and below
// hi, LF included: a binary search for each end, then one read.
func (s *SortedRows) Between(lo, hi string) ([]byte, error) {
	from, err := s.first(lo)
	if err != nil {
		return nil, err
	}
	to, err := s.first(hi)
	if err != nil || to <= from {
		return nil, err
	}
	out := make([]byte, to-from)
	if _, err := s.r.ReadAt(out, from); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return out, nil
}

// first returns where the first row whose first column is at least key
// starts, or the file's size. Whether the row at or after a byte holds
// such a key only turns from false to true as the byte moves on, so the
// least byte where it holds is found by a binary search.
func (s *SortedRows) first(key string) (int64, error) {
	lo, hi := s.start, s.size
	for lo < hi {
		mid := lo + (hi-lo)/2
		at, k, err := s.rowAt(mid)
		if err != nil {
			return 0, err
		}
		if at == s.size || string(k) >= key {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	at, _, err := s.rowAt(lo)
	return at, err
}

// rowAt finds the first row that starts at or after byte off and returns
// where it starts (the size when none does) and its first column. One
// read of a few kilobytes mostly holds both; a longer stretch is searched
// a block at a time.
func (s *SortedRows) rowAt(off int64) (int64, []byte, error) {
	at := off
	if off > s.start {
		// The row starts after the first LF at or after off-1.
		lf, err := s.find(off-1, '\n')
		if err != nil {
			return 0, nil, err
		}
		at = lf + 1
	}
	if at >= s.size {
		return s.size, nil, nil
	}
	tab, err := s.find(at, '\t')
	if err != nil {
		return 0, nil, err
	}
	var key []byte
	if tab-at <= int64(len(s.buf)) && s.bufAt <= at && tab <= s.bufAt+int64(s.bufLen) {
		key = bytes.Clone(s.buf[at-s.bufAt : tab-s.bufAt])
	} else {
		key = make([]byte, tab-at)
		if _, err := s.r.ReadAt(key, at); err != nil && err != io.EOF {
			return 0, nil, fmt.Errorf("%s: %w", s.path, err)
		}
	}
	if bytes.IndexByte(key, '\n') >= 0 {
		return 0, nil, &CorruptError{Path: s.path, Msg: fmt.Sprintf("the row at byte %d has no TAB", at)}
	}
	return at, key, nil
}

// find returns where the first byte c at or after off is; a file that
// ends without one is truncated. The block last read stays in s.buf, so
// a search that starts inside it reads nothing.
func (s *SortedRows) find(off int64, c byte) (int64, error) {
	if s.buf == nil {
		s.buf = make([]byte, 4096)
	}
	for off < s.size {
		if off < s.bufAt || off >= s.bufAt+int64(s.bufLen) {
			n, err := s.r.ReadAt(s.buf[:min(int64(len(s.buf)), s.size-off)], off)
			if err != nil && err != io.EOF {
				return 0, fmt.Errorf("%s: %w", s.path, err)
			}
			if n == 0 {
				break
			}
			s.bufAt, s.bufLen = off, n
		}
		held := s.buf[off-s.bufAt : s.bufLen]
		if i := bytes.IndexByte(held, c); i >= 0 {
			return off + int64(i), nil
		}
		off += int64(len(held))
	}
	return 0, &CorruptError{Path: s.path, Msg: "the last row has no LF; the file is truncated"}
}

// FirstRow is SortedRows.Between's search over rows held in memory: where
// the first row of rows (whole lines of a TSV artifact, sorted bytewise by
// their first column) whose first column is at least key starts, or
// len(rows).
func FirstRow(rows, key []byte) int {
	lo, hi := 0, len(rows) // the line sought starts in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := bytes.LastIndexByte(rows[lo:mid], '\n') + 1 + lo // the start of mid's line, or lo
		e := len(rows)                                        // a last line without LF ends there
		if i := bytes.IndexByte(rows[s:], '\n'); i >= 0 {
			e = s + i + 1
		}
		n, _, _ := bytes.Cut(rows[s:e], []byte{'\t'})
		if bytes.Compare(n, key) < 0 {
			lo = e
		} else {
			hi = s
		}
	}
	return lo
}
