package collect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
)

// DefaultNotes is the folder the markdown collector reads when its source
// names none.
const DefaultNotes = "notes"

// MaxNoteBytes bounds one note: a larger file is not a note.
const MaxNoteBytes = 4 << 20

// markdownFieldsMap is the fields map of the markdown collector's snapshot.
var markdownFieldsMap = map[string]model.FieldPaths{
	"id":    {".path"},
	"title": {".title"},
	"body":  {".body"},
	"tag":   {".tags[]"},
}

// note is one record of a markdown snapshot.
type note struct {
	Path  string   `json:"path"`
	Title string   `json:"title"`
	Body  string   `json:"body,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// collectMarkdown reads a folder of notes into one snapshot document,
// index/<source>.json, a record a note. The notes stay where they are and
// stay the team's: cairn copies nothing into wiki/, so there is one copy
// to edit, and the snapshot is rebuilt from the folder on every run. It is
// written only when a note changed (or with Refresh), so a rerun over the
// same notes leaves its bytes alone.
func collectMarkdown(in Input, s source) (Result, error) {
	var res Result
	dir := s.policy.Path
	if dir == "" {
		dir = DefaultNotes
	}
	notes, err := readNotes(filepath.Join(in.Dir, filepath.FromSlash(dir)), dir)
	if err != nil {
		return res, err
	}
	p := docPath(in.Config, s, in.Today)
	d := document{Source: s.name, Layer: model.LayerIndex, Fields: markdownFieldsMap,
		Window: window{Start: in.Today, End: in.Today}, CollectedAt: in.Now}
	for _, n := range notes {
		d.Records = append(d.Records, marshalRecord(n))
	}
	data := d.encode()
	old, err := readBaseFile(in.Dir, p)
	if err != nil {
		return res, err
	}
	switch {
	case old != nil && fkfDocument(old):
		res.Present = 1
		return res, nil
	case old != nil && !in.Refresh && bytes.Equal(withoutClock(old), withoutClock(data)):
		res.Present = 1
		return res, nil
	}
	if err := artifacts.WriteBaseFile(in.Dir, p, data); err != nil {
		return res, err
	}
	res.Written = []Written{{Path: p, Count: len(d.Records)}}
	return res, nil
}

// clockLines are the envelope lines that say when, not what.
var clockLines = regexp.MustCompile(`(?m)^  "(collected_at|window_start|window_end)": "[^"]*",\n`)

// withoutClock is a snapshot's bytes without the lines that say when it
// was taken, to compare what two snapshots hold.
func withoutClock(data []byte) []byte { return clockLines.ReplaceAll(data, nil) }

// readBaseFile reads a file inside the base, nil when it is absent, the
// way WriteBaseFile would replace it: a link there is an error naming it.
func readBaseFile(dir, p string) ([]byte, error) {
	data, err := artifacts.ReadBaseFile(dir, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// readNotes reads every .md file under dir, sorted by path; shown is how
// the folder is named in ids and messages. Hidden files and folders, and
// the rules files cairn writes, are not notes.
func readNotes(dir, shown string) ([]note, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the notes folder %s is not a folder; create it or set sources.markdown.path in cairn.yaml", shown)
	}
	var notes []note
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(name, ".md") || artifacts.IsRulesFile(name) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		id := path.Join(shown, filepath.ToSlash(rel))
		n, err := readNote(p, id)
		if err != nil {
			return err
		}
		notes = append(notes, n)
		return nil
	})
	slices.SortFunc(notes, func(a, b note) int { return strings.Compare(a.Path, b.Path) })
	return notes, err
}

// headingLine finds a Markdown level-one heading.
var headingLine = regexp.MustCompile(`(?m)^#[ \t]+(.+?)[ \t#]*$`)

// readNote reads one note: its frontmatter's title and tags, else its
// first heading, else its file name, and its text after the frontmatter.
func readNote(file, id string) (note, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return note{}, err
	}
	if len(data) > MaxNoteBytes {
		return note{}, fmt.Errorf("%s is over the %d-byte cap of a note; split it or move it out of the notes folder", id, MaxNoteBytes)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := note{Path: id}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		front, body, found := strings.Cut(rest, "\n---\n")
		if !found {
			front, found = strings.CutSuffix(rest, "\n---")
		}
		if found {
			var meta struct {
				Title string   `yaml:"title"`
				Tags  []string `yaml:"tags"`
			}
			if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
				return note{}, fmt.Errorf("%s:2: the frontmatter is not valid YAML (%v); fix it", id, err)
			}
			n.Title, n.Tags, text = meta.Title, meta.Tags, body
		}
	}
	if n.Title == "" {
		if m := headingLine.FindStringSubmatch(text); m != nil {
			n.Title = m[1]
		} else {
			n.Title = strings.TrimSuffix(path.Base(id), ".md")
		}
	}
	n.Body = strings.TrimSpace(text)
	return n, nil
}
