package read

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/govern"
)

// Caps of a read. Stored text is untrusted and may be huge. A short value
// shown on its line (a title, a heading, a note's text) is cut at
// readValueRunes. A stored text (a page, a raw record, a cached body, and
// a field value that spans lines or is longer than a short value) is
// shown whole, line by line, up to TextRunes: a bound against a huge
// file, not against a page a person wrote, so a page of a few tens of KB
// reads whole. JSON and text cut alike, and say what was cut, with how
// much.
const (
	readValueRunes = 4000
	TextRunes      = 256 << 10
)

// Answer is one read: what --format json prints, and what the text
// is rendered from. Which parts are set depends on Kind.
type Answer struct {
	URI        string   `json:"uri"`
	Kind       string   `json:"kind"`
	Title      string   `json:"title,omitempty"`
	Source     string   `json:"source,omitempty"`
	Date       string   `json:"date,omitempty"`
	Time       string   `json:"time,omitempty"`
	ValidFrom  string   `json:"valid_from,omitempty"`
	ValidUntil string   `json:"valid_until,omitempty"`
	Flags      []string `json:"flags,omitempty"`
	// Fields are a record's or page's projected values, a term's entry,
	// a voice's description.
	Fields []render.KV `json:"fields,omitempty"`
	// Document and Raw are a record's document and its JSON object as
	// stored there, unmapped fields included.
	Document string `json:"document,omitempty"`
	Raw      string `json:"raw,omitempty"`
	Body     *Body  `json:"body,omitempty"`
	// Text is a page's or a section's Markdown as stored.
	Text     string      `json:"text,omitempty"`
	Sections []Section   `json:"sections,omitempty"`
	Section  *SectionRef `json:"section,omitempty"`
	Brief    []string    `json:"brief,omitempty"`
	Note     *Note       `json:"note,omitempty"`
	History  []Op        `json:"history,omitempty"`
	Usage    *Usage      `json:"usage,omitempty"`
	// Graph is an entity's identity and neighbours, or the items that
	// link to a page.
	Graph *Graph `json:"graph,omitempty"`
	// Index is how the artifacts stood: for records, pages and entities
	// whether they were read from them; for a term, whether its usage is.
	Index  *render.IndexState `json:"index,omitempty"`
	Notice string             `json:"notice"`
}

// Body is a record's cached body, verified by the build.
type Body struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Text   string `json:"text"`
}

// Note is one operation of the notes log and where it stands.
type Note struct {
	Op          string   `json:"op"`
	At          string   `json:"at"`
	Actor       string   `json:"actor"`
	Session     string   `json:"session,omitempty"`
	Kind        string   `json:"kind"`
	Target      string   `json:"target"`
	Text        string   `json:"text,omitempty"`
	Paths       []string `json:"paths,omitempty"`
	Axes        string   `json:"axes,omitempty"`
	Evidence    []string `json:"evidence,omitempty"`
	ValidFrom   string   `json:"valid_from,omitempty"`
	ValidUntil  string   `json:"valid_until,omitempty"`
	Ref         string   `json:"ref,omitempty"`
	Status      string   `json:"status"`
	DecidedBy   string   `json:"decided_by,omitempty"`
	ContestedBy []string `json:"contested_by,omitempty"`
	// NoteText is the note that stands on the target, when a person kept
	// one.
	NoteText string `json:"note_text,omitempty"`
}

// Op is one line of a target's history in the log.
type Op struct {
	Op    string `json:"op"`
	At    string `json:"at"`
	Actor string `json:"actor"`
	Kind  string `json:"kind"`
	Text  string `json:"text,omitempty"`
	Ref   string `json:"ref,omitempty"`
}

// Usage is a term's use in content as the last build counted it.
type Usage struct {
	AsOf string `json:"as_of"`
	// Counted is false when the artifacts are not current (see the
	// answer's index) or the build did not count the term.
	Counted bool  `json:"counted"`
	Total   int   `json:"total"`
	Files   int   `json:"files"`
	Top     []Use `json:"top,omitempty"`
}

// Use is one content file's uses of a term.
type Use struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// Graph is a graph node's identity and one page of its neighbours.
type Graph struct {
	Identity  string      `json:"identity,omitempty"`
	Canonical string      `json:"canonical,omitempty"`
	Aliases   []string    `json:"aliases,omitempty"`
	Groups    []EdgeGroup `json:"groups"`
	Offset    int         `json:"offset"`
	Limit     int         `json:"limit"`
	Shown     int         `json:"shown"`
	// Next is the cursor of the next page, empty on the last.
	Next string `json:"next_cursor,omitempty"`
}

// EdgeGroup is the neighbours of one direction and edge kind.
type EdgeGroup struct {
	Direction string      `json:"direction"`
	Kind      string      `json:"kind"`
	Edges     []Neighbour `json:"edges"`
}

// Neighbour is the other end of an edge.
type Neighbour struct {
	URI   string `json:"uri"`
	Kind  string `json:"kind,omitempty"`
	Date  string `json:"date,omitempty"`
	Title string `json:"title,omitempty"`
}

// capped cuts s to limit runes, saying how much was cut.
func capped(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == limit {
			break
		}
		k++
	}
	return s[:i] + fmt.Sprintf("…[cut %d of %d characters]", n-limit, n)
}

// inline makes one stored line inert for text: control characters become
// spaces and bidirectional controls escapes (escape.Line), comment
// delimiters and code fences go (govern.Defuse), and the line is capped.
func inline(s string) string {
	return capped(govern.Defuse(escape.Line(s)), readValueRunes)
}

// Markers of a block: every line of a stored text is shown behind one,
// so that none can start a heading, a list or a fence, and a reader sees
// where the text starts and ends.
const (
	blockMarker      = "  | "
	fieldBlockMarker = "    | "
)

// block writes stored multi-line text line by line as stored, each line
// behind marker and made inert as inline does, but keeping its tabs and
// its length: only the text as a whole is capped.
func block(b *strings.Builder, marker, s string) {
	s = strings.TrimRight(capped(s, TextRunes), "\n")
	for _, line := range strings.Split(s, "\n") {
		fmt.Fprintf(b, "%s%s\n", marker, govern.Defuse(cleanLine(strings.TrimRight(line, "\r"))))
	}
}

// cleanLine is escape.Line for one line of a block: a tab is spacing a
// reader needs (code in a page), so it stays; every other control
// character becomes a space, and what else could act on the display is
// escaped (escape.Text).
func cleanLine(s string) string {
	return escape.Text(strings.Map(func(r rune) rune {
		if r != '\t' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

// isText reports whether a field value is a text rather than a short
// value: it spans lines or is longer than a value shown on its line.
func isText(v string) bool {
	return strings.Contains(v, "\n") || utf8.RuneCountInString(v) > readValueRunes
}

// dedent removes from the lines after the first the indentation of the
// last: a record's span starts at its opening brace, mid-line, and its
// other lines carry the document's indentation.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	last := lines[len(lines)-1]
	indent := last[:len(last)-len(strings.TrimLeft(last, " \t"))]
	if indent == "" {
		return s
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, indent) && strings.TrimSpace(l) != "" {
			return s
		}
	}
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimPrefix(lines[i], indent)
	}
	return strings.Join(lines, "\n")
}

// capAnswer caps every stored string of a JSON answer; the values stay
// as stored otherwise.
func capAnswer(a *Answer) {
	c := func(s *string) { *s = capped(*s, readValueRunes) }
	c(&a.Title)
	t := func(s *string) { *s = capped(*s, TextRunes) }
	t(&a.Raw)
	t(&a.Text)
	for i := range a.Fields {
		t(&a.Fields[i].Value) // a long value is shown whole in text too
	}
	if a.Body != nil {
		t(&a.Body.Text)
	}
	for i := range a.Brief {
		c(&a.Brief[i])
	}
	for i := range a.Sections {
		c(&a.Sections[i].Heading)
	}
	if a.Note != nil {
		c(&a.Note.Text)
		c(&a.Note.NoteText)
	}
	for i := range a.History {
		c(&a.History[i].Text)
	}
	if a.Graph != nil {
		for i := range a.Graph.Groups {
			for j := range a.Graph.Groups[i].Edges {
				c(&a.Graph.Groups[i].Edges[j].Title)
			}
		}
	}
}

func renderReadJSON(a *Answer) []byte {
	capAnswer(a)
	return append(render.Marshal(a, "", "  "), '\n')
}

func renderReadText(a *Answer) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", a.Kind, inline(a.URI))
	if a.Title != "" && a.Title != a.URI {
		fmt.Fprintf(&b, " · %s", inline(a.Title))
	}
	b.WriteByte('\n')
	var meta []string
	for _, kv := range []render.KV{{Field: "source", Value: a.Source}, {Field: "date", Value: a.Date}, {Field: "time", Value: a.Time}, {Field: "valid_from", Value: a.ValidFrom}, {Field: "valid_until", Value: a.ValidUntil}, {Field: "flags", Value: strings.Join(a.Flags, ",")}} {
		if kv.Value != "" {
			meta = append(meta, kv.Field+"="+inline(kv.Value))
		}
	}
	if len(meta) > 0 {
		fmt.Fprintf(&b, "%s\n", strings.Join(meta, " · "))
	}
	if len(a.Fields) > 0 {
		b.WriteString("fields:\n")
		for _, kv := range a.Fields {
			if isText(kv.Value) {
				fmt.Fprintf(&b, "  %s:\n", kv.Field)
				block(&b, fieldBlockMarker, kv.Value)
				continue
			}
			fmt.Fprintf(&b, "  %s: %s\n", kv.Field, inline(kv.Value))
		}
	}
	if a.Raw != "" {
		fmt.Fprintf(&b, "raw record, as stored in %s:\n", a.Document)
		block(&b, blockMarker, dedent(a.Raw))
	}
	if a.Body != nil {
		fmt.Fprintf(&b, "cached body %s (%d bytes, sha256 %s, verified):\n", a.Body.Path, a.Body.Bytes, a.Body.SHA256)
		block(&b, blockMarker, a.Body.Text)
	}
	if a.Section != nil {
		fmt.Fprintf(&b, "section #%s of %s (level %d):\n", a.Section.Anchor, a.Section.Page, a.Section.Level)
	}
	if a.Text != "" {
		if a.Section == nil {
			b.WriteString("text:\n")
		}
		block(&b, blockMarker, a.Text)
	}
	if len(a.Sections) > 0 {
		b.WriteString("sections:\n")
		for _, s := range a.Sections {
			fmt.Fprintf(&b, "  %s%s#%s · %s\n", strings.Repeat("  ", s.Level-1), inline(a.URI), s.Anchor, inline(s.Heading))
		}
	}
	if len(a.Brief) > 0 {
		b.WriteString("writing brief:\n")
		for _, l := range a.Brief {
			fmt.Fprintf(&b, "  - %s\n", inline(l))
		}
	}
	if n := a.Note; n != nil {
		renderNoteText(&b, n)
	}
	if u := a.Usage; u != nil {
		renderUsageText(&b, u, a.Index)
	}
	if len(a.History) > 0 {
		b.WriteString("history:\n")
		for _, h := range a.History {
			line := fmt.Sprintf("%s %s %s", h.Op, h.Kind, h.Actor)
			if h.Ref != "" {
				line += " ref=" + h.Ref
			}
			if h.Text != "" {
				line += ": " + h.Text
			}
			fmt.Fprintf(&b, "  %s\n", inline(line))
		}
	}
	if g := a.Graph; g != nil {
		renderGraphText(&b, a.URI, g)
	}
	if ix := a.Index; ix != nil {
		fmt.Fprintf(&b, "read: index=%s %s", ix.Path, ix.State)
		if ix.Reason != "" {
			fmt.Fprintf(&b, " · index_reason=%s", inline(ix.Reason))
		}
		b.WriteByte('\n')
	}
	b.WriteString(a.Notice)
	b.WriteByte('\n')
	return escape.Bytes([]byte(b.String()))
}

func renderNoteText(b *strings.Builder, n *Note) {
	b.WriteString("operation:\n")
	for _, kv := range []render.KV{
		{Field: "op", Value: n.Op}, {Field: "at", Value: n.At}, {Field: "actor", Value: n.Actor}, {Field: "session", Value: n.Session}, {Field: "kind", Value: n.Kind},
		{Field: "target", Value: n.Target}, {Field: "text", Value: n.Text}, {Field: "paths", Value: strings.Join(n.Paths, ", ")}, {Field: "axes", Value: n.Axes},
		{Field: "evidence", Value: strings.Join(n.Evidence, ", ")}, {Field: "valid_from", Value: n.ValidFrom}, {Field: "valid_until", Value: n.ValidUntil},
		{Field: "ref", Value: n.Ref}, {Field: "status", Value: n.Status}, {Field: "decided_by", Value: n.DecidedBy},
		{Field: "contested_by", Value: strings.Join(n.ContestedBy, ", ")}, {Field: "note in force", Value: n.NoteText},
	} {
		if kv.Value != "" {
			fmt.Fprintf(b, "  %s: %s\n", kv.Field, inline(kv.Value))
		}
	}
}

func renderUsageText(b *strings.Builder, u *Usage, ix *render.IndexState) {
	if !u.Counted {
		state := "not counted by the last build"
		if ix != nil && ix.State != string(corpus.StateUsed) {
			state = "not shown: the artifacts are " + ix.State + "; run cairn build"
		}
		fmt.Fprintf(b, "usage in content: %s\n", state)
		return
	}
	fmt.Fprintf(b, "usage in content, as of %s: %d use(s) in %d file(s)\n", u.AsOf, u.Total, u.Files)
	for _, t := range u.Top {
		fmt.Fprintf(b, "  %s %d\n", inline(t.Path), t.Count)
	}
}

func renderGraphText(b *strings.Builder, uri string, e *Graph) {
	if e.Identity != "" {
		fmt.Fprintf(b, "identity %s · canonical %s\n", inline(e.Identity), inline(e.Canonical))
	}
	if len(e.Aliases) > 0 {
		fmt.Fprintf(b, "aliases: %s\n", inline(strings.Join(e.Aliases, ", ")))
	}
	if e.Shown == 0 {
		fmt.Fprintf(b, "neighbours: none from %d on\n", e.Offset)
	} else {
		fmt.Fprintf(b, "neighbours %d to %d, newest first:\n", e.Offset+1, e.Offset+e.Shown)
	}
	for _, g := range e.Groups {
		fmt.Fprintf(b, "  %s %s:\n", g.Direction, g.Kind)
		for _, n := range g.Edges {
			line := n.URI
			if n.Kind != "" {
				line = fmt.Sprintf("%s %s %s", n.Kind, render.OrDash(n.Date), n.URI)
			}
			if n.Title != "" {
				line += " · " + n.Title
			}
			fmt.Fprintf(b, "    %s\n", inline(line))
		}
	}
	if e.Next != "" {
		fmt.Fprintf(b, "more: cairn read %s --limit %d --cursor %s\n", uri, e.Limit, e.Next)
	}
}
