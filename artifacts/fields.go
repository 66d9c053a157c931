package artifacts

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Field is one row of fields.tsv; its row number is its ordinal.
type Field struct {
	Name   string
	Weight int
}

var fieldsHeader = header(fieldsName, "name", "weight")

// EncodeFields renders fields.tsv; rows must be sorted by name.
func EncodeFields(rows []Field) []byte {
	var b bytes.Buffer
	b.WriteString(fieldsHeader)
	for _, f := range rows {
		fmt.Fprintf(&b, "%s\t%d\n", CleanCell(f.Name), f.Weight)
	}
	return b.Bytes()
}

// DecodeFields parses fields.tsv.
func DecodeFields(data []byte) ([]Field, error) {
	return decodeRows(FieldsPath, data, fieldsHeader, func(n int, line []byte) (Field, error) {
		name, w, ok := strings.Cut(string(line), "\t")
		weight, err := strconv.Atoi(w)
		if !ok || err != nil || name == "" {
			return Field{}, &CorruptError{Path: FieldsPath, Line: n, Msg: fmt.Sprintf("row %q is not name TAB weight", line)}
		}
		return Field{Name: name, Weight: weight}, nil
	})
}
