package load

import (
	"bytes"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/markdown"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"go.yaml.in/yaml/v3"
)

// frontmatter is a page's YAML block: the keys cairn interprets, and every
// other key kept as it is for read.
type frontmatter struct {
	model.Frontmatter `yaml:",inline"`
	Extras            map[string]any `yaml:",inline"`
	// pointAt and statusAt are the file line and column of the point:
	// and status: keys, for the mistakes later checks find in their values.
	pointAt  [2]int `yaml:"-"`
	statusAt [2]int `yaml:"-"`
}

// ProjectStatuses are the statuses a project page may carry: active is
// boosted when a query names the project, done, deprecated and
// superseded mark it no longer current, and the others are known states
// that change nothing. Case does not matter.
var ProjectStatuses = []string{"active", "planned", "paused", "blocked", "done", "deprecated", "superseded"}

// splitFrontmatter separates a leading `---` YAML block from the Markdown
// after it. It returns the YAML bytes, the body, and the 1-based lines where
// each starts; found is false when the file has no frontmatter. A block
// that opens but never closes is an error on the opening line.
func splitFrontmatter(p string, data []byte, ds *diag.List) (yml []byte, body []byte, bodyLine int, found, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := bytes.Cut(data, []byte{'\n'})
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, data, 1, false, true
	}
	line := 1
	for off := 0; off < len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		next := len(rest)
		if end >= 0 {
			next = off + end + 1
		}
		line++
		l := string(bytes.TrimRight(rest[off:next], " \t\r\n"))
		if l == "---" || l == "..." {
			return rest[:off], rest[next:], line + 1, true, true
		}
		off = next
	}
	ds.Errorf(p, 1, 1, "frontmatter-unclosed", "the frontmatter opened with --- is never closed; add a --- line after the YAML, or remove the opening ---")
	return nil, nil, 0, true, false
}

// decodeFrontmatter decodes a page's or content file's frontmatter, leaving
// unknown keys in Extras. Errors point at file lines.
func decodeFrontmatter(p string, data []byte, ds *diag.List) (frontmatter, []byte, int, bool) {
	var fm frontmatter
	yml, body, bodyLine, found, ok := splitFrontmatter(p, data, ds)
	if !ok {
		return fm, nil, 0, false
	}
	if !found {
		return fm, body, bodyLine, true
	}
	// The frontmatter's YAML starts on the file's second line.
	root, decoded := decodeYAML(p, yml, 2, &fm, ds)
	if root != nil && root.Kind != yaml.MappingNode {
		ds.Errorf(p, 2, 1, "frontmatter-not-mapping", "the frontmatter must be YAML keys and values (title: ..., tags: [...]); fix it or remove the --- block")
		return fm, body, bodyLine, false
	}
	// Each value's mistake is reported at its key.
	at := func(keys ...string) (int, int) {
		line, col := keyLine(root, keys...)
		return line + 1, col
	}
	for _, d := range []struct {
		key string
		v   *string
	}{{"date", &fm.Date}, {"valid_from", &fm.ValidFrom}, {"valid_until", &fm.ValidUntil}, {"due", &fm.Due}, {"reviewed", &fm.Reviewed}} {
		line, col := at(d.key)
		checkDay(p, line, col, d.key, d.v, ds)
	}
	fm.pointAt[0], fm.pointAt[1] = at("point")
	fm.statusAt[0], fm.statusAt[1] = at("status")
	if fm.ValidFrom != "" && fm.ValidUntil != "" && fm.ValidFrom > fm.ValidUntil {
		line, col := at("valid_until")
		ds.Errorf(p, line, col, "bad-window", "valid_from %s is after valid_until %s; swap or fix them", fm.ValidFrom, fm.ValidUntil)
	}
	for _, name := range slices.Sorted(maps.Keys(fm.Relations)) {
		if !IsFieldName(name) {
			line, col := at("relations", name)
			ds.Errorf(p, line, col, "bad-field-name", "relation name %q must match ^[a-z][a-z0-9_-]*$; rename it", name)
		}
	}
	if fm.Category != "" && !slices.Contains(Categories, fm.Category) {
		line, col := at("category")
		ds.Errorf(p, line, col, "bad-category", "category %q; use one of: %s", fm.Category, strings.Join(Categories, ", "))
	}
	if fm.Visibility != "" && !slices.Contains(Visibilities, fm.Visibility) {
		line, col := at("visibility")
		ds.Errorf(p, line, col, "bad-visibility", "visibility %q; use one of: %s", fm.Visibility, strings.Join(Visibilities, ", "))
	}
	return fm, body, bodyLine, decoded
}

// checkDay accepts YYYY-MM-DD, and also a full timestamp by keeping its day.
func checkDay(p string, line, col int, key string, v *string, ds *diag.List) {
	if *v == "" {
		return
	}
	if _, err := time.Parse(time.DateOnly, *v); err == nil {
		return
	}
	if t, err := ParseStamp(*v); err == nil {
		*v = t.Format(time.DateOnly) // the day as written, in its own zone
		return
	}
	ds.Errorf(p, line, col, "bad-date", "%s %q is not a day; write YYYY-MM-DD", key, *v)
}

// loadPage reads one wiki, project or task page.
func loadPage(fsys fs.FS, cfg model.Config, p string, ds *diag.List) (model.Page, bool) {
	data, ok := readFile(fsys, p, MaxPageBytes, ds)
	if !ok {
		return model.Page{}, false
	}
	return parsePage(cfg, p, data, ds)
}

// parsePage parses the bytes of page p, a leading byte order mark dropped.
func parsePage(cfg model.Config, p string, data []byte, ds *diag.List) (model.Page, bool) {
	data = utf8Text(p, data, ds)
	mark := ds.Len()
	fm, body, bodyLine, ok := decodeFrontmatter(p, data, ds)
	if !ok {
		return model.Page{}, false
	}
	pg := model.Page{Path: p, Front: fm.Frontmatter, FrontExtras: fm.Extras, Body: string(body), BodyLine: bodyLine}
	l := cfg.Layers
	var task []string // tasks/<day>/<slug>/TASKS.md, cut at its slashes
	if hasPrefix(p, l.Tasks) {
		task = strings.Split(p[len(l.Tasks)+1:], "/")
	}
	switch {
	case hasPrefix(p, l.Wiki):
		pg.Layer = model.LayerWiki
		pg.Slug = strings.TrimSuffix(strings.TrimPrefix(p, l.Wiki+"/"), ".md")
		pg.Date = fm.Date
	case hasPrefix(p, l.Projects):
		pg.Layer = model.LayerProjects
		pg.Slug = strings.TrimSuffix(strings.TrimPrefix(p, l.Projects+"/"), ".md")
		pg.Date = fm.Date
		if st := fm.Status; st != "" && !slices.Contains(ProjectStatuses, strings.ToLower(st)) {
			ds.Warnf(p, fm.statusAt[0], fm.statusAt[1], "unknown-status", "status %q is not a project status, so ranking gives it no meaning (an active project is not boosted, a done one not lowered); use one of: %s",
				st, strings.Join(ProjectStatuses, ", "))
		}
	case len(task) == 3:
		pg.Layer = model.LayerTasks
		pg.Date, pg.Slug = task[0], task[1]
		if _, err := time.Parse(time.DateOnly, pg.Date); err != nil {
			ds.Errorf(p, 0, 0, "bad-date", "folder %q is not a real day; name it YYYY-MM-DD", pg.Date)
		}
	default:
		// The walk hands over only the shapes above; a path from elsewhere
		// (a damaged docs.tsv row, say) is refused, not guessed at.
		ds.Errorf(p, 0, 0, "not-a-page", "not a page path: pages are %s/**.md, %s/**.md or %s/YYYY-MM-DD/<slug>/TASKS.md",
			l.Wiki, l.Projects, l.Tasks)
		return model.Page{}, false
	}
	doc := markdown.Read(pg.Body)
	pg.Headings, pg.Links = headings(doc, bodyLine), doc.Links
	if pg.Front.Title == "" {
		if len(pg.Headings) > 0 {
			pg.Front.Title = pg.Headings[0].Text
		} else {
			pg.Front.Title = path.Base(pg.Slug)
		}
	}
	if fm.Point != "" {
		ds.Warnf(p, fm.pointAt[0], fm.pointAt[1], "point-on-page", "point: binds content files, not %s pages; it is ignored here", pg.Layer)
	}
	return pg, !ds.HasErrorsSince(mark)
}

func hasPrefix(p, dir string) bool { return strings.HasPrefix(p, dir+"/") }

// headings are the page's headings, their lines counted from firstLine,
// the body's first line in the file.
func headings(doc markdown.Doc, firstLine int) []model.Heading {
	var out []model.Heading
	for _, h := range doc.Headings {
		out = append(out, model.Heading{Level: h.Level, Text: h.Text, Anchor: h.Anchor, Line: firstLine + h.Line})
	}
	return out
}

// Page reads and decodes one page, for a reader that needs a single page
// without loading the base. Its diagnostics are returned, not collected.
func Page(fsys fs.FS, cfg model.Config, path string) (model.Page, []diag.Diagnostic, bool) {
	var ds diag.List
	p, ok := loadPage(fsys, cfg, path, &ds)
	return p, ds.Sorted(), ok
}

// utf8Text returns data with each invalid UTF-8 sequence and each NUL
// byte replaced by U+FFFD, warning at the first one, so that a page's
// text in every artifact is UTF-8 text. Lines do not move: neither a
// replaced byte nor its replacement is a line break.
func utf8Text(p string, data []byte, ds *diag.List) []byte {
	bad := bytes.IndexByte(data, 0)
	if utf8.Valid(data) && bad < 0 {
		return data
	}
	if first := firstInvalidUTF8(data); first < len(data) && (bad < 0 || first < bad) {
		bad = first
	}
	line, col := diag.LineCol(data, int64(bad))
	ds.Warnf(p, line, col, "not-utf8", "the file holds bytes that are not UTF-8 text (invalid UTF-8 or NUL), first here; cairn reads them as U+FFFD; save the file as UTF-8")
	out := bytes.ToValidUTF8(data, []byte("\uFFFD"))
	return bytes.ReplaceAll(out, []byte{0}, []byte("\uFFFD"))
}
