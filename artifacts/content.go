package artifacts

import (
	"bytes"
	"fmt"
	"strings"
)

// ContentFile is one row of content.tsv: a content file of the project
// and the point its frontmatter binds it to.
type ContentFile struct {
	Path  string // base-relative
	Point string // "" when the file names none
}

var contentHeader = header(contentName, "path", "point")

// EncodeContent renders content.tsv, sorted by path. It refuses what its
// decoder would reject: a path or point a row cannot carry, a path twice.
func EncodeContent(files []ContentFile) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(contentHeader)
	for i, f := range files {
		if i > 0 && files[i-1].Path >= f.Path {
			return nil, fmt.Errorf("content.tsv: %q and %q are out of order or repeated", files[i-1].Path, f.Path)
		}
		if f.Path == "" || f.Path == "-" || strings.ContainsAny(f.Path+f.Point, "\t\n\r") || f.Point == "-" {
			return nil, fmt.Errorf("content.tsv: a row cannot hold path %q with point %q", f.Path, f.Point)
		}
		b.WriteString(f.Path + "\t" + dash(f.Point) + "\n")
	}
	return b.Bytes(), nil
}

// DecodeContent parses a whole content.tsv.
func DecodeContent(data []byte) ([]ContentFile, error) {
	var last string
	return decodeRows(ContentPath, data, contentHeader, func(n int, line []byte) (ContentFile, error) {
		p, point, ok := strings.Cut(string(line), "\t")
		if !ok || p == "" || strings.Contains(point, "\t") || point == "" {
			return ContentFile{}, &CorruptError{Path: ContentPath, Line: n, Msg: "row is not path TAB point"}
		}
		if p <= last {
			return ContentFile{}, &CorruptError{Path: ContentPath, Line: n, Msg: fmt.Sprintf("path %q is out of order or repeated", p)}
		}
		last = p
		return ContentFile{Path: p, Point: undash(point)}, nil
	})
}
