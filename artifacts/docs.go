package artifacts

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// FieldLen is the number of word tokens an item has in one field.
// Both are 32-bit: a build holds a few of these per item, for every item.
type FieldLen struct {
	Field int32 // field ordinal in fields.tsv
	N     int32
}

// Doc is one row of docs.tsv.
type Doc struct {
	URI        string
	Kind       string
	Source     string
	Date       string
	Time       string
	ValidFrom  string
	ValidUntil string
	Flags      []string // sorted
	Lengths    []FieldLen
	Digest     string
	SpanOff    int64 // -1 when the item is not a record
	SpanLen    int64
	// URLKey is the xxhash of the item's external URL (its url field), so
	// representations of one URL from different sources can be grouped.
	URLKey string
	// Title is the item's title, with tabs and line breaks as spaces.
	Title string
}

var docsHeader = header(docsName, "uri", "kind", "source", "date", "time", "valid", "flags", "lengths", "digest", "span", "urlkey", "title")

// DocRowSize is about how many bytes d's row takes.
func DocRowSize(d *Doc) int { return docRowSize(d) }

// docRowSize is about how many bytes d's row takes.
func docRowSize(d *Doc) int {
	return len(d.URI) + len(d.Source) + len(d.Title) + 116 + 8*len(d.Lengths) + 12*len(d.Flags)
}

// textWriter is where a row is written: a buffer, or an Output.
type textWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// writeDocRow writes d's docs.tsv row, its LF included.
func writeDocRow(b textWriter, d *Doc) {
	writeDocHead(b, d)
	writeDocLengths(b, d.Lengths)
	writeDocTail(b, d)
}

// writeDocHead writes a row's columns before its lengths, each with the
// tab that ends it.
func writeDocHead(b textWriter, d *Doc) {
	b.WriteString(CleanCell(d.URI))
	b.WriteByte('\t')
	b.WriteString(dash(d.Kind))
	b.WriteByte('\t')
	b.WriteString(dash(CleanCell(d.Source)))
	b.WriteByte('\t')
	b.WriteString(dash(d.Date))
	b.WriteByte('\t')
	b.WriteString(dash(d.Time))
	b.WriteByte('\t')
	if d.ValidFrom == "" && d.ValidUntil == "" {
		b.WriteByte('-')
	} else {
		b.WriteString(d.ValidFrom + ".." + d.ValidUntil)
	}
	b.WriteByte('\t')
	b.WriteString(dash(strings.Join(d.Flags, ",")))
	b.WriteByte('\t')
}

// writeDocLengths writes a row's lengths column.
func writeDocLengths(b textWriter, lengths []FieldLen) {
	if len(lengths) == 0 {
		b.WriteByte('-')
	}
	var num [20]byte
	for i, l := range lengths {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(strconv.AppendInt(num[:0], int64(l.Field), 10))
		b.WriteByte(':')
		b.Write(strconv.AppendInt(num[:0], int64(l.N), 10))
	}
}

// writeDocTail writes a row's columns after its lengths, from the tab
// that starts them to the line's end.
func writeDocTail(b textWriter, d *Doc) {
	var num [20]byte
	b.WriteByte('\t')
	b.WriteString(dash(d.Digest))
	b.WriteByte('\t')
	if d.SpanOff < 0 {
		b.WriteByte('-')
	} else {
		b.Write(strconv.AppendInt(num[:0], d.SpanOff, 10))
		b.WriteByte('+')
		b.Write(strconv.AppendInt(num[:0], d.SpanLen, 10))
	}
	b.WriteByte('\t')
	b.WriteString(dash(d.URLKey))
	b.WriteByte('\t')
	b.WriteString(dash(CleanCell(d.Title)))
	b.WriteByte('\n')
}

// AppendDocParts appends d's docs.tsv row to b in two parts, the columns
// before its lengths and those after, so that a build can keep a row
// whose field ordinals are not known yet and write it later with them
// (DocsWriter.RowParts). It returns b and where the second part starts.
func AppendDocParts(b []byte, d *Doc) ([]byte, int) {
	w := bytes.NewBuffer(b)
	writeDocHead(w, d)
	mid := w.Len()
	writeDocTail(w, d)
	return w.Bytes(), mid
}

// DecodeDocs parses a whole docs.tsv.
func DecodeDocs(data []byte) ([]Doc, error) {
	return decodeRows(DocsPath, data, docsHeader, DecodeDocRow)
}

// DecodeDocRow parses one docs.tsv row (without its LF); n is its line
// number for error messages.
func DecodeDocRow(n int, line []byte) (Doc, error) {
	var d DocDecoder
	return d.Decode(n, string(line))
}

// DocDecoder parses docs.tsv rows for a reader that decodes many: the
// strings of a row share storage, equal flag lists share one slice, the
// kinds, sources and days that repeat from row to row are kept once, and
// field lengths are carved from one growing block, so that thousands of
// rows cost a few allocations. The zero value is ready to use; rows it
// returns must not be changed.
type DocDecoder struct {
	flags   map[string][]string
	common  map[string]string // kinds, sources and days
	lengths []FieldLen
	arena   strings.Builder // where DecodeCopy keeps rows
}

// DecodeCopy is Decode of a row held in a buffer the caller reuses. The
// row is decoded from a copy that is let go at once, and only the strings
// the Doc keeps are kept, in blocks the decoder allocates, a few for many
// rows: the lengths, flags and span columns, once decoded, need no copy.
// (Decoding the buffer in place through unsafe measured no faster: an
// indexed query of the 100k benchmark base, paired, 1.02x and 0.98x CPU.)
func (dd *DocDecoder) DecodeCopy(n int, line []byte) (Doc, error) {
	d, err := dd.Decode(n, string(line))
	if err != nil {
		return Doc{}, err // its message holds copies, never the line
	}
	d.Kind, d.Source, d.Date = dd.common1(d.Kind), dd.common1(d.Source), dd.common1(d.Date)
	for _, s := range []*string{&d.URI, &d.Time, &d.ValidFrom, &d.ValidUntil, &d.Digest, &d.URLKey, &d.Title} {
		*s = dd.keep(*s)
	}
	return d, nil
}

// keep copies s into the arena.
func (dd *DocDecoder) keep(s string) string {
	if s == "" {
		return ""
	}
	if dd.arena.Cap()-dd.arena.Len() < len(s) {
		// A new block: the strings of the old one stay valid, since a
		// Builder never writes over what String has returned.
		dd.arena = strings.Builder{}
		dd.arena.Grow(max(len(s), 64<<10))
	}
	start := dd.arena.Len()
	dd.arena.WriteString(s)
	return dd.arena.String()[start:]
}

// common1 returns the one copy of a value that repeats across rows.
func (dd *DocDecoder) common1(s string) string {
	if s == "" {
		return ""
	}
	if c, ok := dd.common[s]; ok {
		return c
	}
	if dd.common == nil {
		dd.common = map[string]string{}
	}
	c := strings.Clone(s)
	dd.common[c] = c
	return c
}

// Decode parses one docs.tsv row (without its LF); n is its line number
// for error messages.
func (dd *DocDecoder) Decode(n int, line string) (Doc, error) {
	// The columns are cut into a fixed array: a query decodes a row per
	// candidate, and a slice per row is measurable there.
	if got := strings.Count(line, "\t") + 1; got != 12 {
		return Doc{}, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("row has %d columns, want 12", got)}
	}
	var cols [12]string
	rest := line
	for i := range len(cols) - 1 {
		cols[i], rest, _ = strings.Cut(rest, "\t")
	}
	cols[11] = rest
	for i, c := range cols {
		if c == "" {
			return Doc{}, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("column %d is empty; empty values are written as -", i+1)}
		}
	}
	d := Doc{
		URI:     cols[0],
		Kind:    undash(cols[1]),
		Source:  undash(cols[2]),
		Date:    undash(cols[3]),
		Time:    undash(cols[4]),
		Digest:  undash(cols[8]),
		SpanOff: -1,
		URLKey:  undash(cols[10]),
		Title:   undash(cols[11]),
	}
	if v := cols[5]; v != "-" {
		from, until, ok := strings.Cut(v, "..")
		if !ok {
			return d, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("validity %q is not from..until", v)}
		}
		d.ValidFrom, d.ValidUntil = from, until
	}
	if v := cols[6]; v != "-" {
		flags, ok := dd.flags[v]
		if !ok {
			flags = strings.Split(strings.Clone(v), ",")
			if dd.flags == nil {
				dd.flags = map[string][]string{}
			}
			dd.flags[strings.Clone(v)] = flags
		}
		d.Flags = flags[:len(flags):len(flags)]
	}
	if v := cols[7]; v != "-" {
		start := len(dd.lengths)
		if need := strings.Count(v, ",") + 1; cap(dd.lengths)-start < need {
			// A new block, twice the last one: a decoder used for one row
			// allocates that row's lengths, one used for thousands a few
			// blocks.
			dd.lengths = make([]FieldLen, 0, max(need, min(2*cap(dd.lengths), 1<<14)))
			start = 0
		}
		for p := range strings.SplitSeq(v, ",") {
			f, c, ok := strings.Cut(p, ":")
			fi, err1 := strconv.Atoi(f)
			ci, err2 := strconv.Atoi(c)
			if !ok || err1 != nil || err2 != nil || fi < 0 || ci < 0 || fi > math.MaxInt32 || ci > math.MaxInt32 {
				return d, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("field length %q is not field:count", p)}
			}
			dd.lengths = append(dd.lengths, FieldLen{Field: int32(fi), N: int32(ci)})
		}
		end := len(dd.lengths)
		d.Lengths = dd.lengths[start:end:end]
	}
	if v := cols[9]; v != "-" {
		o, l, ok := strings.Cut(v, "+")
		off, err1 := strconv.ParseInt(o, 10, 64)
		ln, err2 := strconv.ParseInt(l, 10, 64)
		if !ok || err1 != nil || err2 != nil || off < 0 || ln < 0 {
			return d, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("span %q is not offset+length", v)}
		}
		d.SpanOff, d.SpanLen = off, ln
	}
	return d, nil
}
