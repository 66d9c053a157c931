package load

import (
	"io/fs"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/model"
)

// loadContent reads the project's own content files: the text term usage is
// counted in, and the frontmatter point: that binds a file to a point.
func loadContent(fsys fs.FS, cfg model.Config, entries []entry, ds *diag.List) []model.ContentFile {
	points := map[string]bool{}
	for _, p := range cfg.Governance.Points {
		points[p.Name] = true
	}
	var out []model.ContentFile
	for _, e := range entries {
		if e.kind != kindContent {
			continue
		}
		data, ok := readFile(fsys, e.path, MaxContentBytes, ds)
		if !ok {
			continue
		}
		fm, _, _, ok := decodeFrontmatter(e.path, data, ds)
		if !ok {
			continue
		}
		if fm.Point != "" && !points[fm.Point] {
			ds.Errorf(e.path, 2, 1, "unknown-point", "point %q is not declared in cairn.yaml governance.points; declare it or fix the name", fm.Point)
		}
		out = append(out, model.ContentFile{Path: e.path, Point: fm.Point, Text: string(data)})
	}
	return out
}
