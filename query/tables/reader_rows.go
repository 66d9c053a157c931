package tables

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
)

// Row returns the docs.tsv row of ordinal ord: one read of docs.key (its
// line and the next, for where the row starts and ends), then exactly that
// row's bytes of docs.tsv.
func (r *Reader) Row(ord int) (artifacts.Doc, error) {
	line, err := r.rowBytes(ord)
	if err != nil {
		return artifacts.Doc{}, err
	}
	return artifacts.DecodeDocRow(ord+2, line, r.origins)
}

// Key reads the docs.key line of one ordinal.
func (r *Reader) Key(ord int) (artifacts.Key, error) {
	keys, err := r.Keys([]int{ord})
	if err != nil {
		return artifacts.Key{}, err
	}
	return keys[0], nil
}

// keyLine is where the docs.key line of ordinal ord starts.
func (r *Reader) keyLine(ord int) int64 { return int64(ord+1) * int64(r.keyWidth) }

// rowOffset reads the docs.tsv offset from the docs.key line of ordinal
// ord, naming that line when it is damaged (line 1 is the header, so
// ord's line is ord+2).
func rowOffset(line []byte, ord int) (int64, error) {
	v, err := artifacts.KeyOffset(line)
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) && ce.Line == 0 {
		ce.Line = ord + 2
	}
	return v, err
}

// rowBytes reads the docs.tsv row of ordinal ord, without its LF, checked
// to be one whole row.
func (r *Reader) rowBytes(ord int) ([]byte, error) {
	if ord < 0 || ord >= r.items {
		return nil, fmt.Errorf("row %d out of range: docs.tsv has %d rows", ord, r.items)
	}
	start, end, err := r.rowSpan(ord)
	if err != nil {
		return nil, err
	}
	if start < r.docs.start || end <= start || end > r.docs.size {
		return nil, r.docs.corrupt(0, "docs.key puts row %d at bytes %d..%d, outside the file's %d bytes", ord, start, end, r.docs.size)
	}
	// One byte more in front: the LF that ends the previous row (or the
	// header) proves that the offset is a row start.
	line, err := r.docs.readAt(start-1, int(end-start+1))
	if err != nil {
		return nil, err
	}
	if line[0] != '\n' || bytes.IndexByte(line[1:], '\n') != len(line)-2 {
		return nil, &artifacts.CorruptError{Path: artifacts.DocsPath, Line: ord + 2, Msg: "docs.key does not point at one whole row"}
	}
	line = line[1 : len(line)-1]
	if bytes.HasSuffix(line, []byte{'\r'}) {
		return nil, r.docs.corrupt(start, crlf)
	}
	return line, nil
}

// rowSpan is where the docs.tsv row of ordinal ord starts and ends, from
// its docs.key line and the next: held keys where they are, else one read.
func (r *Reader) rowSpan(ord int) (start, end int64, err error) {
	end = r.docs.size // the end of the last row is the file's end
	if r.held != nil {
		if ord+1 < r.items {
			end = r.held[ord+1].Offset
		}
		return r.held[ord].Offset, end, nil
	}
	width := r.keyWidth
	b, err := r.key.readAt(r.keyLine(ord), min(2*width, int(r.key.size-r.keyLine(ord)))) // one line at the last row
	if err != nil {
		return 0, 0, err
	}
	start, err = rowOffset(b[:width], ord)
	if err == nil && len(b) > width {
		end, err = rowOffset(b[width:], ord+1)
	}
	return start, end, err
}

// Search returns the first ordinal whose URI is >= uri (Items() when there
// is none) and whether that row's URI is uri. It reads O(log Items) rows
// and compares their first column only: a probe needs no other.
func (r *Reader) Search(uri string) (ord int, found bool, err error) {
	lo, hi := 0, r.items
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		at, err := r.probeURI(mid)
		if err != nil {
			return 0, false, err
		}
		switch c := strings.Compare(at, uri); {
		case c < 0:
			lo = mid + 1
		default:
			hi, found = mid, c == 0 // the last hi is the answer
		}
	}
	return lo, found, nil
}

// probeURI is the URI of row ord, read once per Reader: the searches for
// a window's bounds (each layer's start and end, its first and last day)
// take the same first steps, and on the 100k benchmark base share about
// half of their probes.
func (r *Reader) probeURI(ord int) (string, error) {
	r.probeMu.Lock()
	uri, ok := r.probes[ord]
	r.probeMu.Unlock()
	if ok {
		return uri, nil
	}
	line, err := r.rowBytes(ord)
	if err != nil {
		return "", err
	}
	tab := bytes.IndexByte(line, '\t')
	if tab <= 0 {
		return "", &artifacts.CorruptError{Path: artifacts.DocsPath, Line: ord + 2, Msg: "the row has no URI column"}
	}
	uri = string(line[:tab])
	if uri[0] == '#' { // a record's row: its URI from #, after its document's path
		if uri, err = r.origins.RecordURI(ord+2, uri); err != nil {
			return "", err
		}
	}
	r.probeMu.Lock()
	if r.probes == nil {
		r.probes = map[int]string{}
	}
	r.probes[ord] = uri
	r.probeMu.Unlock()
	return uri, nil
}

// rowGap is how many unwanted rows a batched read may span to join two
// wanted ones: reading a few more bytes beats another system call. A row
// is about 230 bytes, so 64 rows copy about as long as a read call takes;
// at 100k records 64 beat both 32 and 256 on a rare and a common query.
// batchRows bounds one read, so that its buffer (about 120 KB, reused)
// stays small whatever the query: fresh memory is paid for page by page.
// rowsBlock is that buffer's first size when many rows are read.
const (
	rowGap    = 64
	batchRows = 512
	rowsBlock = 128 << 10
)

// Rows reads the rows of many ordinals (sorted, distinct) in a few
// positioned reads: ordinals close together share one read of docs.key and
// one of docs.tsv. It checks each row as Row does. Many rows are read in
// parts, one per core (up to MaxParts): copying the bytes out of the
// page cache is most of the cost, and cores do it side by side.
func (r *Reader) Rows(ords []int) ([]artifacts.Doc, error) { return readInParts(ords, r.rowsInto) }

// readInParts reads what into reads for ords, in parts of ords, one per
// core when there are many.
func readInParts[T any](ords []int, into func(ords []int, out []T) error) ([]T, error) {
	out := make([]T, len(ords))
	parts := max(1, min(runtime.GOMAXPROCS(0), MaxParts, len(ords)/minPartRows))
	err := inParts(parts, func(p int) error {
		lo, hi := p*len(ords)/parts, (p+1)*len(ords)/parts
		return into(ords[lo:hi], out[lo:hi])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// minPartRows is the fewest rows worth a goroutine of their own (a
// variable so that tests can read a small base in parts).
var minPartRows = 512

// MaxParts bounds the goroutines one read is split across.
const MaxParts = 4

// PartSizes sets the fewest rows (minPartRows) and terms.tsv bytes
// (minSweepPart) worth a part of their own, and returns what restores
// them: a test sets them low to read the demo's small tables in many
// parts. Not for use while a Reader reads.
func PartSizes(rows int, sweep int64) (restore func()) {
	oldRows, oldSweep := minPartRows, minSweepPart
	minPartRows, minSweepPart = rows, sweep
	return func() { minPartRows, minSweepPart = oldRows, oldSweep }
}

// inParts runs part(0)..part(n-1), each on a goroutine of its own when
// there are several, and returns the error of the first part that failed:
// the error one pass over the parts in order would have met first.
func inParts(n int, part func(k int) error) error {
	if n == 1 {
		return part(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { errs[k] = part(k) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rowsInto reads the rows of ords into out, which has a place for each.
func (r *Reader) rowsInto(ords []int, out []artifacts.Doc) error {
	var offs, block []byte // reused from batch to batch
	if len(ords) >= batchRows {
		// Batches of many rows come near the bound: one block of about
		// their size from the start, rather than a series of doublings
		// that each cost fresh memory.
		block = make([]byte, 0, min(r.docs.size, rowsBlock))
	}
	dd := artifacts.DocDecoder{Origins: r.origins}
	return r.inBatches(ords, rowGap, batchRows, "rows", func(run []int, k0 int) error {
		first, last := run[0], run[len(run)-1]
		at, width := r.keyLine(first), r.keyWidth
		n := last - first + 1
		offset := func(k int) (int64, error) {
			switch {
			case first+k == r.items:
				return r.docs.size, nil // the end of the last row is the file's end
			case r.held != nil:
				return r.held[first+k].Offset, nil
			}
			return rowOffset(offs[k*width:(k+1)*width], first+k)
		}
		if r.held == nil {
			var err error
			if offs, err = r.key.readInto(offs, at, min((n+1)*width, int(r.key.size-at))); err != nil {
				return err
			}
		}
		start, err := offset(0)
		if err != nil {
			return err
		}
		end, err := offset(n)
		if err != nil {
			return err
		}
		if start < r.docs.start || end <= start || end > r.docs.size {
			return r.docs.corrupt(0, "docs.key puts rows %d..%d at bytes %d..%d, outside the file's %d bytes", first, last, start, end, r.docs.size)
		}
		block, err = r.docs.readInto(block, start-1, int(end-start+1))
		if err != nil {
			return err
		}
		for k, ord := range run {
			a, err := offset(ord - first)
			if err != nil {
				return err
			}
			b, err := offset(ord - first + 1)
			if err != nil {
				return err
			}
			if a < start || b > end || b <= a {
				return r.docs.corrupt(a, "docs.key is out of order at row %d", ord)
			}
			line := block[a-start : b-start+1] // with the LF before it
			if line[0] != '\n' || bytes.IndexByte(line[1:], '\n') != len(line)-2 {
				return &artifacts.CorruptError{Path: artifacts.DocsPath, Line: ord + 2, Msg: "docs.key does not point at one whole row"}
			}
			line = line[1 : len(line)-1]
			if bytes.HasSuffix(line, []byte{'\r'}) {
				return r.docs.corrupt(a, crlf)
			}
			d, err := dd.DecodeCopy(ord+2, line) // block is reused
			if err != nil {
				return err
			}
			out[k0+k] = d
		}
		return nil
	})
}

// keyGap is how many unwanted docs.key lines a batched read may span to
// join two wanted ones, and keyBatch the most lines one read takes. A
// line is about 160 bytes and a read call costs about what copying a
// hundred lines does here, so a batch's buffer (up to 80 KB, reused) is
// cheaper than the reads it saves; a wider gap gains nothing more and
// costs a query of scattered candidates (a ticket id) up to 4 ms.
const (
	keyGap   = 96
	keyBatch = 512
)

// Keys reads the docs.key lines of many ordinals (sorted, distinct) in a
// few positioned reads, ordinals close together sharing one. Many keys
// are read in parts, one per core, as Rows reads rows.
func (r *Reader) Keys(ords []int) ([]artifacts.Key, error) { return readInParts(ords, r.keysInto) }

// keysInto reads the keys of ords into out, which has a place for each.
func (r *Reader) keysInto(ords []int, out []artifacts.Key) error {
	if r.held != nil {
		for k, ord := range ords {
			if ord < 0 || ord >= len(r.held) {
				return fmt.Errorf("keys %d out of range: docs.tsv has %d rows", ord, r.items)
			}
			out[k] = r.held[ord]
		}
		return nil
	}
	var kd artifacts.KeyDecoder
	var block []byte // reused from batch to batch
	fields := len(r.fields)
	width := r.keyWidth
	return r.inBatches(ords, keyGap, keyBatch, "keys", func(run []int, k0 int) error {
		first, last := run[0], run[len(run)-1]
		var err error
		if block, err = r.key.readInto(block, r.keyLine(first), (last-first+1)*width); err != nil {
			return err
		}
		for k, ord := range run {
			at := (ord - first) * width
			if out[k0+k], err = kd.Decode(ord+2, block[at:at+width], fields); err != nil {
				return err
			}
		}
		return nil
	})
}

// inBatches calls batch with each run of ords (sorted, distinct) whose
// neighbours are at most gap apart and which spans fewer than span
// ordinals, with where the run starts in ords, in order, after checking
// that the run is in range; what names the ordinals in that error.
func (r *Reader) inBatches(ords []int, gap, span int, what string, batch func(run []int, at int) error) error {
	for i := 0; i < len(ords); {
		j := i + 1
		for j < len(ords) && ords[j]-ords[j-1] <= gap && ords[j]-ords[i] < span {
			j++
		}
		if first, last := ords[i], ords[j-1]; first < 0 || last >= r.items {
			return fmt.Errorf("%s %d..%d out of range: docs.tsv has %d rows", what, first, last, r.items)
		}
		if err := batch(ords[i:j], i); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// KeysWhere sweeps docs.key in large reads and returns, in order, the
// ordinals whose line keep accepts; keep sees each line as written and
// may not keep it. No key is decoded: a caller that looks for the few
// items of one source and title across a whole base tests two columns of
// each line (artifacts.KeyPlaceColumns) and decodes the few it keeps.
func (r *Reader) KeysWhere(keep func(line []byte) bool) ([]int, error) {
	if r.items == 0 {
		return nil, nil
	}
	width := r.keyWidth
	per := max(1, sweepChunk/width) // whole lines a read
	var out []int
	var block []byte
	for first := 0; first < r.items; first += per {
		n := min(per, r.items-first)
		var err error
		if block, err = r.key.readInto(block, r.keyLine(first), n*width); err != nil {
			return nil, err
		}
		if len(block) != n*width {
			return nil, r.key.corrupt(r.keyLine(first), truncated)
		}
		for k := range n {
			if keep(block[k*width : (k+1)*width]) {
				out = append(out, first+k)
			}
		}
	}
	return out, nil
}
