package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Document is one row of documents.tsv: what a reader needs to project a
// single record of a record document from its span, without reading the
// rest of the document.
type Document struct {
	Path      string
	Layer     string
	Source    string
	Date      string
	Records   int                 // how many records it holds
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
	documentsHeader = header(documentsName, "path", "layer", "source", "date", "records", "relations", "fields")
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
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", CleanCell(d.Path), dash(d.Layer), dash(CleanCell(d.Source)),
			dash(d.Date), d.Records, dash(strings.Join(d.Relations, ",")), fields)
	}
	return b.Bytes()
}

// DecodeDocuments parses documents.tsv. Documents of one source share
// their field map, so each distinct fields column is decoded once and its
// map shared by the rows that repeat it; the maps must not be changed.
func DecodeDocuments(data []byte) ([]Document, error) {
	decoded := map[string]map[string][]string{}
	return decodeRows(DocumentsPath, data, documentsHeader, func(n int, line []byte) (Document, error) {
		cols := strings.Split(string(line), "\t")
		if len(cols) != 7 {
			return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: fmt.Sprintf("row has %d columns, want 7", len(cols))}
		}
		d := Document{Path: cols[0], Layer: undash(cols[1]), Source: undash(cols[2]), Date: undash(cols[3])}
		records, err := strconv.Atoi(cols[4])
		if err != nil || records < 0 {
			return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: fmt.Sprintf("records %q is not a count", cols[4])}
		}
		d.Records = records
		if r := undash(cols[5]); r != "" {
			d.Relations = strings.Split(r, ",")
		}
		fields, ok := decoded[cols[6]]
		if !ok {
			if err := json.Unmarshal([]byte(cols[6]), &fields); err != nil {
				return Document{}, &CorruptError{Path: DocumentsPath, Line: n, Msg: "fields is not a JSON object of path lists: " + err.Error()}
			}
			decoded[cols[6]] = fields
		}
		d.Fields = fields
		return d, nil
	})
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
