package artifacts

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
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
	// SourceFlags are the flags a record's source gives it when its own
	// fields say nothing of them, comma-joined, as its document's row in
	// documents.tsv holds them: a record's row whose flags are these
	// leaves its flags cell empty. "" for a page.
	SourceFlags string
	// Lengths are the item's words per field, as the build counts them.
	// docs.tsv does not hold them: docs.key's norms hold their length
	// classes, all a reader needs (a row decoded from docs.tsv has none).
	Lengths []FieldLen
	// Digest is the item's semantic digest. docs.tsv does not hold it
	// either: docs.key's digest column does (a decoded row has none).
	Digest  string
	SpanOff int64 // -1 when the item is not a record
	SpanLen int64
	// URLKey is the xxhash of the item's external URL (its url field), so
	// representations of one URL from different sources can be grouped.
	URLKey string
	// Title is the item's title, with tabs and line breaks as spaces.
	Title string
}

var docsHeader = header(docsName, "uri", "kind", "source", "date", "time", "valid", "flags", "span", "urlkey", "title")

// docsColumns is how many columns a docs.tsv row has.
const docsColumns = 10

// DocRowSize is about how many bytes d's row takes.
func DocRowSize(d *Doc) int {
	return len(d.URI) + len(d.Source) + len(d.Title) + 116 + 12*len(d.Flags)
}

// textWriter is where a row is written: a buffer, or an Output.
type textWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// writeDocRow writes d's docs.tsv row, its LF included.
func writeDocRow(b textWriter, d *Doc) {
	var num [20]byte
	record := d.SpanOff >= 0
	if record {
		// A record's URI is its document's path, #, and its id: the row
		// names the part from #, and documents.tsv the path once for all
		// of the document's records, with where they start (First).
		b.WriteString(CleanCell(RecordID(d.URI)))
		// A record's kind, source and date are its document's too: the
		// cells are left empty.
		b.WriteString("\t\t\t\t")
	} else {
		b.WriteString(CleanCell(d.URI))
		b.WriteByte('\t')
		b.WriteString(dash(d.Kind))
		b.WriteByte('\t')
		b.WriteString(dash(CleanCell(d.Source)))
		b.WriteByte('\t')
		b.WriteString(dash(d.Date))
		b.WriteByte('\t')
	}
	// So is the date of most of their times: a time on the document's
	// date is written from its T.
	if record && d.Date != "" && len(d.Time) > len(d.Date) && d.Time[len(d.Date)] == 'T' && strings.HasPrefix(d.Time, d.Date) {
		b.WriteString(d.Time[len(d.Date):])
	} else {
		b.WriteString(dash(d.Time))
	}
	b.WriteByte('\t')
	if d.ValidFrom == "" && d.ValidUntil == "" {
		b.WriteByte('-')
	} else {
		b.WriteString(d.ValidFrom + ".." + d.ValidUntil)
	}
	b.WriteByte('\t')
	if !record || d.SourceFlags == "" || !flagsAre(d.Flags, d.SourceFlags) {
		b.WriteString(dash(strings.Join(d.Flags, ",")))
	}
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

// flagsAre reports whether flags, comma-joined, are joined.
func flagsAre(flags []string, joined string) bool {
	for i, f := range flags {
		if i > 0 {
			if joined == "" || joined[0] != ',' {
				return false
			}
			joined = joined[1:]
		}
		rest, ok := strings.CutPrefix(joined, f)
		if !ok {
			return false
		}
		joined = rest
	}
	return joined == ""
}

// AppendDocRow appends d's docs.tsv row, its LF included, to b: a build
// keeps a run's rows so until it writes them (DocsWriter.RowBytes).
func AppendDocRow(b []byte, d *Doc) []byte {
	w := bytes.NewBuffer(b)
	writeDocRow(w, d)
	return w.Bytes()
}

// RecordID is the part of a record's URI from its #, which its docs.tsv
// row holds: the whole URI when it has no #, which a row of a record
// cannot hold (the decoder refuses it).
func RecordID(uri string) string {
	if i := strings.IndexByte(uri, '#'); i >= 0 {
		return uri[i:]
	}
	return uri
}

// Origins are a base's record documents, as documents.tsv holds them: a
// record's row takes the path of its URI, its kind (the document's
// layer), its source and its date from the document whose records' range
// (First, Records) holds the row's ordinal.
type Origins struct {
	docs    []Document
	byFirst []int32 // the indexes in docs of those with records, by First
}

// OriginsOf returns the origins of documents, which it keeps (a query
// opens them once per process: thousands of documents for a base with
// one a day, so they are indexed, not copied).
func OriginsOf(documents []Document) Origins {
	o := Origins{docs: documents, byFirst: make([]int32, 0, len(documents))}
	for i, d := range documents {
		if d.Records > 0 {
			o.byFirst = append(o.byFirst, int32(i))
		}
	}
	byFirst := func(a, b int32) int { return cmp.Compare(documents[a].First, documents[b].First) }
	if !slices.IsSortedFunc(o.byFirst, byFirst) { // sorted by path, they most often are
		slices.SortFunc(o.byFirst, byFirst)
	}
	return o
}

// Of returns the document whose records' range holds ordinal ord of
// docs.tsv, if one does.
func (o Origins) Of(ord int) (*Document, bool) {
	i, _ := slices.BinarySearchFunc(o.byFirst, ord+1, func(j int32, t int) int { return cmp.Compare(o.docs[j].First, t) })
	if i == 0 {
		return nil, false
	}
	if d := &o.docs[o.byFirst[i-1]]; ord < d.First+d.Records {
		return d, true
	}
	return nil, false
}

// RecordURI is the URI of the record in docs.tsv's line n (its ordinal is
// n-2) whose row's first cell is id, its URI from #: its document's path
// and id.
func (o Origins) RecordURI(n int, id string) (string, error) {
	_, uri, _, err := o.record(n, id, "")
	return uri, err
}

// record returns the document of the record in docs.tsv's line n (its
// ordinal is n-2) with the URI and the time the row's cells (id, the URI
// from #, and time) stand for: its document's path before the id, its
// document's date before a time written from its T.
func (o Origins) record(n int, id, time string) (doc *Document, uri, fullTime string, err error) {
	bad := func(msg string) (*Document, string, string, error) {
		return nil, "", "", &CorruptError{Path: DocsPath, Line: n, Msg: msg}
	}
	doc, ok := o.Of(n - 2)
	switch {
	case !ok:
		return bad(fmt.Sprintf("record %d: documents.tsv has no document whose records hold it", n-2))
	case id == "" || id[0] != '#':
		return bad(fmt.Sprintf("record %q does not name its URI from #; its document's path is in documents.tsv", id))
	case time != "" && time[0] == 'T' && doc.Date == "":
		return bad(fmt.Sprintf("time %q leaves its date to a document that has none", time))
	case time != "" && time[0] == 'T':
		time = doc.Date + time
	}
	return doc, doc.Path + id, time, nil
}

// DecodeDocs parses a whole docs.tsv; origins are its record documents'
// (OriginsOf the documents.tsv beside it).
func DecodeDocs(data []byte, origins Origins) ([]Doc, error) {
	dd := DocDecoder{Origins: origins}
	return decodeRows(DocsPath, data, docsHeader, func(n int, line []byte) (Doc, error) { return dd.Decode(n, string(line)) })
}

// DecodeDocRow parses one docs.tsv row (without its LF); n is its line
// number for error messages.
func DecodeDocRow(n int, line []byte, origins Origins) (Doc, error) {
	d := DocDecoder{Origins: origins}
	return d.Decode(n, string(line))
}

// DocDecoder parses docs.tsv rows for a reader that decodes many: the
// strings of a row share storage, equal flag lists share one slice, the
// kinds, sources and days that repeat from row to row are kept once, so
// that thousands of rows cost a few allocations. The zero value is ready
// to use for rows of pages alone; rows it returns must not be changed.
type DocDecoder struct {
	// Origins are the record documents', for a record's kind, source and
	// date.
	Origins Origins
	flags   map[string][]string
	common  map[string]string // kinds, sources and days
	arena   strings.Builder   // where DecodeCopy keeps rows
}

// DecodeCopy is Decode of a row held in a buffer the caller reuses. The
// row is decoded from a copy that is let go at once, and only the strings
// the Doc keeps are kept, in blocks the decoder allocates, a few for many
// rows: the flags and span columns, once decoded, need no copy.
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

// flagList is a flags cell's list, one slice for each distinct cell.
func (dd *DocDecoder) flagList(v string) []string {
	flags, ok := dd.flags[v]
	if !ok {
		flags = strings.Split(strings.Clone(v), ",")
		if dd.flags == nil {
			dd.flags = map[string][]string{}
		}
		dd.flags[strings.Clone(v)] = flags
	}
	return flags[:len(flags):len(flags)]
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
	if got := strings.Count(line, "\t") + 1; got != docsColumns {
		return Doc{}, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("row has %d columns, want %d", got, docsColumns)}
	}
	var cols [docsColumns]string
	rest := line
	for i := range len(cols) - 1 {
		cols[i], rest, _ = strings.Cut(rest, "\t")
	}
	cols[len(cols)-1] = rest
	record := cols[7] != "-"
	for i, c := range cols {
		switch origin := record && i >= 1 && i <= 3; {
		case c == "" && record && i == 6: // the flags its document gives
		case c == "" && !origin:
			return Doc{}, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("column %d is empty; empty values are written as -", i+1)}
		case c != "" && origin:
			return Doc{}, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("column %d of a record's row is not empty; its kind, source and date are its document's, in documents.tsv", i+1)}
		}
	}
	d := Doc{
		URI:     cols[0],
		Kind:    undash(cols[1]),
		Source:  undash(cols[2]),
		Date:    undash(cols[3]),
		Time:    undash(cols[4]),
		SpanOff: -1,
		URLKey:  undash(cols[8]),
		Title:   undash(cols[9]),
	}
	if v := cols[5]; v != "-" {
		from, until, ok := strings.Cut(v, "..")
		if !ok {
			return d, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("validity %q is not from..until", v)}
		}
		d.ValidFrom, d.ValidUntil = from, until
	}
	if v := cols[6]; v != "-" && v != "" {
		d.Flags = dd.flagList(v)
	}
	if v := cols[7]; v != "-" {
		o, l, ok := strings.Cut(v, "+")
		off, err1 := strconv.ParseInt(o, 10, 64)
		ln, err2 := strconv.ParseInt(l, 10, 64)
		if !ok || err1 != nil || err2 != nil || off < 0 || ln < 0 {
			return d, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("span %q is not offset+length", v)}
		}
		d.SpanOff, d.SpanLen = off, ln
		doc, uri, time, err := dd.Origins.record(n, d.URI, d.Time)
		if err != nil {
			return d, err
		}
		switch v := cols[6]; {
		case v == "" && doc.Flags == "":
			return d, &CorruptError{Path: DocsPath, Line: n, Msg: "the flags of a record whose document gives none are empty; no flags are written as -"}
		case v == "":
			d.Flags = dd.flagList(doc.Flags)
		case v == doc.Flags:
			return d, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("flags %q are the ones its document gives; the cell is left empty", v)}
		}
		d.Kind, d.Source, d.Date, d.SourceFlags = doc.Layer, doc.Source, doc.Date, doc.Flags
		d.URI, d.Time = uri, time
	}
	return d, nil
}
