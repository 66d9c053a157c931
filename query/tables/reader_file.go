package tables

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/cairn-kb/cairn/artifacts"
)

// pread reads from the artifact, or from its bytes when they are held,
// and counts what it read.
func (a *file) pread(p []byte, off int64) (int, error) {
	if a.mem != nil {
		n := 0
		if off < int64(len(a.mem)) {
			n = copy(p, a.mem[off:])
		}
		a.read.Add(int64(n))
		if n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
	n, err := a.f.ReadAt(p, off)
	a.read.Add(int64(n))
	return n, err
}

// hold reads the whole file into memory, where every later read of it is
// served from; false when it could not be read whole.
func (a *file) hold() bool {
	if a.mem != nil {
		return true
	}
	data := make([]byte, a.size)
	if n, err := a.f.ReadAt(data, 0); int64(n) != a.size || (err != nil && err != io.EOF) {
		return false
	}
	a.mem = data
	return true
}

// readAt reads n bytes at off, fewer only where the file ends.
func (a *file) readAt(off int64, n int) ([]byte, error) {
	return a.readInto(nil, off, n)
}

// readInto is readAt reading into buf's storage when it is large enough,
// for callers that read many blocks one after another.
func (a *file) readInto(buf []byte, off int64, n int) ([]byte, error) {
	if rest := a.size - off; int64(n) > rest {
		n = int(max(rest, 0))
	}
	if cap(buf) < n {
		// Twice the last buffer at least: reads of varying sizes into one
		// reused buffer then allocate a few times, not once per growth.
		buf = make([]byte, max(n, 2*cap(buf)))
	}
	buf = buf[:n]
	m, err := a.pread(buf, off)
	if m < n {
		if err != nil && err != io.EOF {
			return nil, unreadable(a.path, err)
		}
		return nil, a.corrupt(0, "the file is shorter than the %d bytes it had when opened; it was truncated", a.size)
	}
	return buf, nil
}

// readUntil reads from s up to the first of the stop bytes and returns the
// bytes before it, extending its read while it has not found one.
func (a *file) readUntil(s int64, stops string) ([]byte, error) {
	var out []byte
	for c := probeChunk; ; c = min(2*c, maxChunk) {
		at := s + int64(len(out))
		if at >= a.size {
			return nil, a.corrupt(s, truncated)
		}
		buf, err := a.readAt(at, c)
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexAny(buf, stops); i >= 0 {
			out = append(out, buf[:i]...)
			if buf[i] == '\n' && bytes.HasSuffix(out, []byte{'\r'}) {
				return nil, a.corrupt(s, crlf)
			}
			return out, nil
		}
		out = append(out, buf...)
	}
}

// Reasons shared by several reads.
const (
	truncated = "last line has no LF; the file is truncated"
	crlf      = "the line ends with CR; artifacts use LF line endings"
)

// corrupt is a CorruptError about a's line starting at byte s (0: the
// whole file).
func (a *file) corrupt(s int64, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s > 0 {
		msg = fmt.Sprintf("line at byte %d: %s", s, msg)
	}
	return &artifacts.CorruptError{Path: a.path, Msg: msg}
}

// at adds the byte offset of the line to a decoder's CorruptError, whose
// line number a positioned read does not know.
func (a *file) at(err error, s int64) error {
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) && ce.Line == 0 {
		ce.Msg = fmt.Sprintf("line at byte %d: %s", s, ce.Msg)
	}
	return err
}

// locate finds the line of a sorted line file whose first column is key,
// by a binary search over byte offsets, and returns where the line starts
// and the length of its first column. Invariant: floor lies in a line that
// sorts below key (the header sorts below everything) and hi is the start
// of a line that sorts above it, or the end of the file; the line sought,
// if any, starts in (floor, hi). A probe scans back from the middle to the
// start of the line it lands in, whose first column decides, so no byte is
// read twice and landing inside a long line costs the distance to its start.
func (a *file) locate(key string) (start int64, klen int, found bool, err error) {
	want := []byte(key)
	for floor, hi := int64(0), a.size; hi-floor > 1; {
		mid := floor + (hi-floor)/2
		s, k, err := a.probe(floor, mid)
		if err != nil {
			return 0, 0, false, err
		}
		c := -1 // no line starts in (floor, mid]: mid is in floor's line
		if s >= 0 {
			c = bytes.Compare(k, want)
		}
		switch {
		case c == 0:
			return s, len(k), true, nil
		case c < 0:
			floor = mid
		default:
			hi = s
		}
	}
	return 0, 0, false, nil
}

// probe is lineOf, answered from an earlier probe at mid when it tells:
// the line holding mid starts at the same byte whatever the floor, and
// lineOf finds it only when it starts above floor; a probe that found no
// start above its floor says the same of every higher floor.
func (a *file) probe(floor, mid int64) (int64, []byte, error) {
	a.probeMu.Lock()
	p, ok := a.probes[mid]
	a.probeMu.Unlock()
	switch {
	case ok && p.s >= 0 && p.s > floor:
		return p.s, []byte(p.key), nil
	case ok && p.s >= 0, ok && floor >= p.floor:
		return -1, nil, nil
	}
	s, k, err := a.lineOf(floor, mid)
	if err != nil {
		return s, k, err
	}
	a.probeMu.Lock()
	if a.probes == nil {
		a.probes = map[int64]probed{}
	}
	if len(a.probes) < maxProbes {
		a.probes[mid] = probed{s: s, key: string(k), floor: floor}
	}
	a.probeMu.Unlock()
	return s, k, nil
}

// lineOf finds the start s of the line holding byte mid by scanning back
// in growing chunks, and returns it with the line's first column; s is -1
// when no line starts in (floor, mid]. The first read goes keyPad bytes
// past mid, so that a line starting just before mid brings its key along.
func (a *file) lineOf(floor, mid int64) (int64, []byte, error) {
	for end, c := mid, int64(probeChunk); end > floor; c = min(2*c, maxChunk) {
		from, to := max(floor, end-c), end
		if end == mid {
			to = min(mid+keyPad, a.size)
		}
		buf, err := a.readAt(from, int(to-from))
		if err != nil {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(buf[:end-from], '\n'); i >= 0 {
			s := from + int64(i) + 1
			if j := bytes.IndexAny(buf[i+1:], "\t\n"); j >= 0 {
				return s, buf[i+1 : i+1+j], nil
			}
			k, err := a.readUntil(s, "\t\n")
			return s, k, err
		}
		end = from
	}
	return -1, nil, nil
}
