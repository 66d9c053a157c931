package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// fieldPaths is one entry of a document's fields map.
type fieldPaths struct {
	field string
	paths []string
}

// docField is one entry of a document's own schema.
type docField struct {
	field, cardinality, description string
}

// source describes one collected source: its share of the records, its
// envelope and how one record of it looks.
type source struct {
	name     string
	weight   int    // share of the records, out of the sum of weights
	marker   string // envelope marker: "cairn" or the legacy "fkf"
	fields   []fieldPaths
	schema   []docField // relation fields declared by the document itself
	body     string     // the document's free-text body
	halfLife int        // recency half-life in days, written to cairn.yaml
	minified bool       // the whole document on one line, as most programs print JSON
	category string     // policy defaults, written to cairn.yaml
	visible  string
	record   func(g *docGen, i, sec int)
}

func fp(field string, paths ...string) fieldPaths { return fieldPaths{field, paths} }

// sources are the collected sources, in the order their documents are
// planned. Their fields maps use nested paths, [] and list-valued maps on
// purpose: the benchmark should exercise the projection, not skip it.
var sources = []source{
	{
		name: "git-commits", weight: 30, marker: "cairn", halfLife: 7, category: "created", visible: "shared",
		fields: []fieldPaths{
			fp("id", ".sha"), fp("title", ".message.subject"), fp("time", ".committed_at"),
			fp("body", ".message.body"), fp("repo", ".repo"), fp("author", ".author.uri"),
			fp("reviewers", ".reviewers[]"), fp("tickets", ".refs.tickets[]"),
			fp("files", ".files[].path"), fp("branch", ".branch"),
		},
		schema: []docField{{"reviewers", "many", "people who approved the change"}},
		body:   "Commits on the default and feature branches of every tracked repository, collected from the forge API.",
		record: commitRecord,
	},
	{
		name: "tickets", weight: 20, marker: "cairn", halfLife: 14, category: "saved", visible: "shared",
		fields: []fieldPaths{
			fp("id", ".key"), fp("title", ".summary"), fp("time", ".updated"),
			fp("body", ".description", ".comments[].body"), fp("status", ".status"),
			fp("priority", ".priority"), fp("labels", ".labels[]"), fp("assignee", ".assignee"),
			fp("reporter", ".reporter"), fp("watchers", ".watchers[]"), fp("repo", ".repo"),
		},
		schema: []docField{{"watchers", "many", "people notified of every change"}},
		body:   "Tickets updated during the day, one snapshot per ticket as of its last update.",
		record: ticketRecord,
	},
	{
		// A CI service's export, printed minified: a large document on one
		// line, which a loader must not read once per record.
		name: "ci-runs", weight: 25, marker: "cairn", halfLife: 3, category: "saved", visible: "shared", minified: true,
		fields: []fieldPaths{
			fp("id", ".id"), fp("title", ".name"), fp("time", ".started_at"),
			fp("status", ".conclusion"), fp("repo", ".repo"), fp("actor", ".triggered_by"),
			fp("commit", ".head_sha"), fp("branch", ".head_branch"),
			fp("body", ".summary", ".jobs[].failure"), fp("url", ".html_url"),
		},
		body:   "Workflow runs of the CI service; identical workflow names repeat on every push.",
		record: ciRecord,
	},
	{
		name: "meetings", weight: 10, marker: "cairn", halfLife: 10, category: "created", visible: "shared",
		fields: []fieldPaths{
			fp("id", ".id"), fp("title", ".title"), fp("time", ".start"),
			fp("organizer", ".organizer"), fp("attendees", ".attendees[]"),
			fp("body", ".notes", ".decisions[]", ".action_items[].text"),
			fp("owners", ".action_items[].owner"), fp("tickets", ".tickets[]"),
			fp("visibility", ".visibility"),
		},
		body:   "Calendar meetings with the notes, decisions and action items taken in them.",
		record: meetingRecord,
	},
	{
		name: "mail", weight: 15, marker: "fkf", halfLife: 5, category: "received", visible: "shared",
		fields: []fieldPaths{
			fp("id", ".message_id"), fp("title", ".subject"), fp("time", ".date"),
			fp("from", ".from"), fp("to", ".to[]", ".cc[]"), fp("body", ".snippet"),
			fp("category", ".category"), fp("visibility", ".visibility"),
			fp("tickets", ".tickets[]"), fp("thread", ".thread_id"),
		},
		body:   "Mail of the team mailbox, with a snippet of each message; full bodies are cached for a few.",
		record: mailRecord,
	},
}

func sourceByName(name string) source {
	for _, s := range sources {
		if s.name == name {
			return s
		}
	}
	panic("unknown source " + name)
}

// docGen generates one events document. It owns its random stream, so
// documents are independent of each other and of generation order.
type docGen struct {
	w       *world
	r       *rng
	day     int
	date    string // YYYY-MM-DD
	compact string // YYYYMMDD
	b       []byte // the record being written
	tickets []int  // tickets documents: the pool indices of the day
}

// writeEventsDoc streams one events document to disk, one record a line,
// or all on one line for a minified source; only the record being
// written is held in memory.
func writeEventsDoc(root string, w *world, c cell) error {
	src := sourceByName(c.source)
	rel := filepath.Join("events", w.days[c.day], c.source+".json")
	path := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	g := &docGen{
		w: w, r: newRNG(w.p.Seed, "events/"+w.days[c.day]+"/"+c.source),
		day: c.day, date: w.days[c.day], compact: w.compact[c.day],
		b: make([]byte, 0, 4096),
	}
	if c.source == "tickets" {
		g.tickets = w.ticketsOfDay(c.day, c.count)
	}
	header, indent, eol, end := eventsHeader(src, w, c), "    ", "\n", "  ]\n}\n"
	if src.minified {
		header, indent, eol, end = compactHeader(header), "", "", "]}\n"
	}
	bw.Write(header)
	secs := recordSeconds(g.r, c.count)
	for i, sec := range secs {
		g.b = append(g.b[:0], indent...)
		src.record(g, i, sec)
		if i < len(secs)-1 {
			g.b = append(g.b, ',')
		}
		g.b = append(g.b, eol...)
		bw.Write(g.b)
	}
	bw.WriteString(end)
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// eventsHeader renders the envelope up to the opening of the records array.
func eventsHeader(src source, w *world, c cell) []byte {
	var b []byte
	b = append(b, "{\n  \""...)
	b = append(b, src.marker...)
	b = append(b, "\": 1,\n  \"source\": "...)
	b = appendJSON(b, src.name)
	b = append(b, ",\n  \"layer\": \"events\",\n  \"date\": "...)
	b = appendJSON(b, w.days[c.day])
	b = append(b, ",\n"...)
	if len(src.schema) > 0 {
		b = append(b, "  \"schema\": {\n"...)
		for i, s := range src.schema {
			b = append(b, "    "...)
			b = appendKey(b, s.field)
			b = append(b, ` {"relation": true, "cardinality": `...)
			b = appendJSON(b, s.cardinality)
			b = append(b, `, "description": `...)
			b = appendJSON(b, s.description)
			b = append(b, '}')
			if i < len(src.schema)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, "  },\n"...)
	}
	b = appendFieldsMap(b, src.fields, "  ")
	b = append(b, ",\n  \"window_start\": "...)
	b = appendJSON(b, w.days[c.day]+"T00:00:00Z")
	b = append(b, ",\n  \"window_end\": "...)
	b = appendJSON(b, w.days[c.day]+"T23:59:59Z")
	b = append(b, ",\n  \"collected_at\": "...)
	next := firstDay.AddDate(0, 0, c.day+1).Format("2006-01-02")
	b = appendJSON(b, next+"T00:05:00Z")
	b = append(b, ",\n  \"body\": "...)
	b = appendJSON(b, src.body)
	b = append(b, ",\n  \"count\": "...)
	b = strconv.AppendInt(b, int64(c.count), 10)
	b = append(b, ",\n  \"records\": [\n"...)
	return b
}

// compactHeader drops the whitespace between the tokens of an envelope
// header, which ends inside the records array.
func compactHeader(header []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, append(slices.Clip(header), "]}"...)); err != nil {
		panic("the events header is not JSON: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("]}"))
}

// appendFieldsMap renders `"fields": {...}` with one field a line.
func appendFieldsMap(b []byte, fields []fieldPaths, indent string) []byte {
	b = append(b, indent...)
	b = append(b, "\"fields\": {\n"...)
	for i, f := range fields {
		b = append(b, indent...)
		b = append(b, "  "...)
		b = appendKey(b, f.field)
		b = append(b, ' ')
		if len(f.paths) == 1 {
			b = appendJSON(b, f.paths[0])
		} else {
			b = appendStrList(b, f.paths)
		}
		if i < len(fields)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, indent...)
	return append(b, '}')
}

// recordSeconds spreads n record times over a day, most of them in working
// hours, and returns them in chronological order.
func recordSeconds(r *rng, n int) []int {
	secs := make([]int, n)
	for i := range secs {
		if r.chance(80) {
			secs[i] = r.between(8*3600, 19*3600-1)
		} else {
			secs[i] = r.intn(86400)
		}
	}
	slices.Sort(secs)
	return secs
}

// ticketSummary is the summary of pool ticket idx. It depends only on the
// ticket, so every daily snapshot and every mail about it says the same.
func (w *world) ticketSummary(idx int) string {
	r := newRNG(w.p.Seed, "ticket/"+strconv.Itoa(idx))
	var b []byte
	b = append(b, titleCase(w.voc.contentWord(r))...)
	b = append(b, ": "...)
	b = append(b, pick(r, verbs)...)
	for range r.between(2, 4) {
		b = append(b, ' ')
		b = append(b, w.voc.contentWord(r)...)
	}
	return string(b)
}

var (
	verbs = []string{"fix", "add", "remove", "refactor", "bump", "revert", "document", "speed up",
		"handle", "guard against", "log", "retry", "cache", "drop", "rename", "split", "tighten",
		"migrate", "validate", "deprecate"}
	codeDirs    = []string{"internal", "cmd", "pkg", "web/src", "api", "deploy", "scripts", "docs"}
	codeExts    = []string{".go", ".go", ".go", ".ts", ".yaml", ".md", ".sql", ".py"}
	workflows   = []string{"build", "test", "test", "lint", "e2e", "deploy-staging", "deploy-production", "nightly", "security-scan"}
	ciJobs      = []string{"lint", "unit", "integration", "build", "e2e", "package", "scan"}
	ticketState = []string{"open", "open", "in progress", "in progress", "in review", "blocked", "resolved", "closed", "reopened"}
	priorities  = []string{"P0", "P1", "P1", "P2", "P2", "P2", "P3", "P3"}
	ticketTypes = []string{"bug", "bug", "task", "task", "story", "incident", "chore"}
)

func (g *docGen) person() string { return g.w.person(g.r).URI }

func (g *docGen) people(lo, hi int) []string {
	n := g.r.between(lo, hi)
	out := make([]string, 0, n)
	for len(out) < n {
		u := g.person()
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// key appends `,"name":` (or `{"name":` for the first member).
func (g *docGen) key(name string) {
	if n := len(g.b); n > 0 && g.b[n-1] != '{' && g.b[n-1] != ' ' {
		g.b = append(g.b, ',')
	}
	g.b = appendKey(g.b, name)
}

func (g *docGen) str(name, v string) { g.key(name); g.b = appendJSON(g.b, v) }

func (g *docGen) strs(name string, vs []string) { g.key(name); g.b = appendStrList(g.b, vs) }

func (g *docGen) num(name string, v int) { g.key(name); g.b = strconv.AppendInt(g.b, int64(v), 10) }

func (g *docGen) clock(name string, sec int) {
	g.key(name)
	g.b = append(g.b, '"')
	g.b = appendClock(g.b, g.date, sec)
	g.b = append(g.b, '"')
}

func (g *docGen) prose(name string, n, lo, hi int) {
	g.key(name)
	g.b = appendJSONBytes(g.b, g.w.voc.appendProse(nil, g.r, n, lo, hi))
}

// objects writes a list of n objects, each filled by one call of fill.
func (g *docGen) objects(name string, n int, fill func()) {
	g.key(name)
	g.b = append(g.b, '[')
	for k := range n {
		if k > 0 {
			g.b = append(g.b, ',')
		}
		g.b = append(g.b, '{')
		fill()
		g.b = append(g.b, '}')
	}
	g.b = append(g.b, ']')
}
