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
	"github.com/cairn-kb/cairn/stages/lib/markdown"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// DefaultNotes is the folder the markdown collector reads when its source
// names none.
const DefaultNotes = "notes"

// MaxNoteBytes bounds one note: a larger file is not a note.
const MaxNoteBytes = 4 << 20

// NoteExtensions are the file name endings of notes, compared without
// case: Markdown's two usual ones, and MDX, Markdown with JSX and ESM
// lines in it, read as the Markdown text it is (its import and export
// lines and its tags stay in the body as written).
var NoteExtensions = []string{".md", ".markdown", ".mdx"}

// Skipped is a note the markdown collector left out of the snapshot: its
// Size is over MaxNoteBytes.
type Skipped struct {
	Path string // as in the snapshot's ids: the folder's name, then the path in it
	Size int64
}

// unwrapPathError is err without the absolute path a *fs.PathError adds:
// messages name the note by its id already.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

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
	notes, skipped, err := readNotes(filepath.Join(in.Dir, filepath.FromSlash(dir)), dir)
	res.Skipped = skipped
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

// readNotes reads every note under dir (a file with one of
// NoteExtensions), sorted by path; shown is how the folder is named in ids
// and messages. Hidden files and folders, and the rules files cairn
// writes, are not notes, nor is a file of another extension. A note too
// large is left out and returned as skipped, so that the caller says so:
// its size is a fact of the folder, and one such file does not cost the
// snapshot of every other note. A note that cannot be read, or a folder
// that cannot be listed, is an error instead: the fault may pass (a
// permission, a disk), and a snapshot written without those notes would
// drop their records from the base until the next collection.
func readNotes(dir, shown string) ([]note, []Skipped, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("the notes folder %s is not a folder; create it or set sources.markdown.path in cairn.yaml", shown)
	}
	var notes []note
	var skipped []Skipped
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		id := path.Join(shown, filepath.ToSlash(rel))
		if err != nil {
			if p == dir {
				return err
			}
			return fmt.Errorf("%s cannot be read (%v); fix its permissions or move it out of the notes folder, then collect again", id, unwrapPathError(err))
		}
		name := d.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isNote(name) || artifacts.IsRulesFile(name) {
			return nil
		}
		n, skip, err := readNote(p, id)
		switch {
		case err != nil:
			return err
		case skip != nil:
			skipped = append(skipped, *skip)
		default:
			notes = append(notes, n)
		}
		return nil
	})
	slices.SortFunc(notes, func(a, b note) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return notes, skipped, err
}

// isNote reports whether a file name ends in one of NoteExtensions.
func isNote(name string) bool {
	return slices.ContainsFunc(NoteExtensions, func(ext string) bool {
		return len(name) > len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext)
	})
}

// readNote reads one note: its frontmatter's title and tags, else its
// first heading, else its file name without its extension, and its text
// after the frontmatter. A file over MaxNoteBytes is returned as skipped;
// the size is checked before reading, so a huge file costs a stat, not
// its bytes. One that cannot be read is an error (see readNotes).
func readNote(file, id string) (note, *Skipped, error) {
	unreadable := func(err error) error {
		return fmt.Errorf("%s cannot be read (%v); fix its permissions or move it out of the notes folder, then collect again", id, unwrapPathError(err))
	}
	if st, err := os.Stat(file); err != nil {
		return note{}, nil, unreadable(err)
	} else if st.Size() > MaxNoteBytes {
		return note{}, &Skipped{Path: id, Size: st.Size()}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return note{}, nil, unreadable(err)
	}
	if len(data) > MaxNoteBytes { // it grew since the stat
		return note{}, &Skipped{Path: id, Size: int64(len(data))}, nil
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
				return note{}, nil, fmt.Errorf("%s:2: the frontmatter is not valid YAML (%v); fix it", id, err)
			}
			n.Title, n.Tags, text = meta.Title, meta.Tags, body
		}
	}
	if n.Title == "" {
		n.Title = strings.TrimSuffix(path.Base(id), path.Ext(id))
		for _, h := range markdown.Read(text).Headings {
			if h.Level == 1 {
				n.Title = h.Text
				break
			}
		}
	}
	n.Body = strings.TrimSpace(text)
	return n, nil, nil
}
