package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Document is one row of documents.tsv: what a reader needs to project a
// single record of a record document from its span, without reading the
// rest of the document.
type Document struct {
	Path    string
	Layer   string
	Source  string
	Date    string
	Records int // how many records it holds
	// First is the ordinal in docs.tsv of the first of its records, which
	// follow each other there (every URI between two of a document's
	// shares their prefix path#); -1 when it holds none. A record's row
	// names only its URI's part from #, and a reader finds its document
	// by this range.
	First int
	// Flags are the flags its source gives a record whose fields say
	// nothing of them (its category and visibility), comma-joined: a
	// record's row with just these leaves its flags cell empty.
	Flags     string
	Relations []string            // the fields that hold relations, sorted
	Fields    map[string][]string // the document's fields map
}

// Body is one row of bodies.tsv: a verified cached body of a record.
type Body struct {
	URI    string
	Path   string // base-relative
	Bytes  int64
	SHA256 string
}

var (
	documentsHeader = header(documentsName, "path", "layer", "source", "date", "records", "first", "flags", "relations", "fields")
	bodiesHeader    = header(bodiesName, "uri", "path", "bytes", "sha256")
)

// EncodeDocuments renders documents.tsv, sorted by path. The fields map is
// compact JSON with sorted keys.
func EncodeDocuments(rows []Document) []byte {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b Document) int { return strings.Compare(a.Path, b.Path) })
	var b bytes.Buffer
	b.WriteString(documentsHeader)
	for _, d := range rows {
		fields, err := json.Marshal(d.Fields)
		if err != nil {
			panic(err) // a map of string slices always encodes
		}
		first := "-"
		if d.Records > 0 {
			first = strconv.Itoa(d.First)
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", CleanCell(d.Path), dash(d.Layer), dash(CleanCell(d.Source)),
			dash(d.Date), d.Records, first, dash(d.Flags), dash(strings.Join(d.Relations, ",")), fields)
	}
	return b.Bytes()
}

// DecodeDocuments parses documents.tsv. Documents of one source share
// their fields map and relations, so each distinct fields or relations
// column is decoded once and shared by the rows that repeat it, as are
// layers and sources; the maps and slices must not be changed. A
// query decodes the whole table when it opens the index (thousands of
// rows for a base with a document per day), so a row costs its path and
// little else.
func DecodeDocuments(data []byte) ([]Document, error) {
	decoded := map[string]map[string][]string{}
	relations := map[string][]string{}
	common := map[string]string{}
	intern := func(b []byte) string {
		if s, ok := common[string(b)]; ok {
			return s
		}
		s := string(b)
		common[s] = s
		return s
	}
	var cols [9][]byte
	var lastText []byte // the fields column of the row before, and its map
	var lastFields map[string][]string
	return decodeRows(DocumentsPath, data, documentsHeader, func(n int, line []byte) (Document, error) {
		if got := bytes.Count(line, []byte{'\t'}) + 1; got != len(cols) {
			return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: fmt.Sprintf("row has %d columns, want %d", got, len(cols))}
		}
		rest := line
		for i := range len(cols) - 1 {
			cols[i], rest, _ = bytes.Cut(rest, []byte{'\t'})
		}
		cols[len(cols)-1] = rest
		// The path and the date (of a day's document, its own) are
		// allocated together.
		var sb strings.Builder
		sb.Grow(len(cols[0]) + len(cols[3]))
		sb.Write(cols[0])
		sb.Write(cols[3])
		pd := sb.String()
		d := Document{Path: pd[:len(cols[0])], Layer: undash(intern(cols[1])), Source: undash(intern(cols[2])), Date: undash(pd[len(cols[0]):])}
		var ok bool
		if d.Records, ok = count(cols[4]); !ok {
			return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: fmt.Sprintf("records %q is not a count", cols[4])}
		}
		switch d.First, ok = count(cols[5]); {
		case d.Records == 0 && string(cols[5]) != "-":
			return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: fmt.Sprintf("first %q of a document without records is not -", cols[5])}
		case d.Records == 0:
			d.First = -1
		case !ok:
			return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: fmt.Sprintf("first %q is not an ordinal", cols[5])}
		}
		d.Flags = undash(intern(cols[6]))
		if r := cols[7]; len(r) > 0 && string(r) != "-" {
			rel, ok := relations[string(r)]
			if !ok {
				rel = strings.Split(string(r), ",")
				relations[string(r)] = rel
			}
			d.Relations = rel[:len(rel):len(rel)]
		}
		// Rows of one source follow each other: the map of the row before
		// is most often this one's.
		fields, ok := lastFields, bytes.Equal(cols[8], lastText)
		if !ok {
			fields, ok = decoded[string(cols[8])]
		}
		if !ok {
			if err := json.Unmarshal(cols[8], &fields); err != nil {
				return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: "fields is not a JSON object of path lists: " + err.Error()}
			}
			decoded[string(cols[8])] = fields
		}
		d.Fields, lastFields, lastText = fields, fields, cols[8]
		return d, nil
	})
}

// count reads a decimal count or ordinal, without a sign, of at most
// math.MaxInt32.
func count(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, v <= math.MaxInt32
}

// EncodeBodies renders bodies.tsv, sorted by URI.
func EncodeBodies(rows []Body) []byte {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b Body) int { return strings.Compare(a.URI, b.URI) })
	var b bytes.Buffer
	b.WriteString(bodiesHeader)
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\n", CleanCell(r.URI), CleanCell(r.Path), r.Bytes, r.SHA256)
	}
	return b.Bytes()
}

// DecodeBodies parses bodies.tsv.
func DecodeBodies(data []byte) ([]Body, error) {
	return decodeRows(BodiesPath, data, bodiesHeader, func(n int, line []byte) (Body, error) {
		cols := strings.Split(string(line), "\t")
		if len(cols) != 4 {
			return Body{}, &CorruptError{Path: BodiesPath, Line: n, Msg: fmt.Sprintf("row has %d columns, want 4", len(cols))}
		}
		size, err := strconv.ParseInt(cols[2], 10, 64)
		if err != nil || size < 0 {
			return Body{}, &CorruptError{Path: BodiesPath, Line: n, Msg: fmt.Sprintf("bytes %q is not a size", cols[2])}
		}
		return Body{URI: cols[0], Path: cols[1], Bytes: size, SHA256: cols[3]}, nil
	})
}
