// Package status is `cairn status`: what a base holds and what state its
// artifacts and rules files are in, from the base as it is loaded and
// from what a build would do (a --check build, which writes nothing). It
// never changes the base.
package status

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// Report is the whole-base view.
type Report struct {
	// Base is the base's folder; Config its configuration file.
	Base   string `json:"base"`
	Config string `json:"config"`
	// Layers are the layer folders in their fixed order, with what each
	// holds; one fkf.yaml switches off is listed as off.
	Layers []Layer `json:"layers"`
	// Sources are the sources the base's documents come from and those its
	// configuration can collect, by name.
	Sources    []Source   `json:"sources"`
	Governance Governance `json:"governance"`
	Content    int        `json:"content_files"`
	// Problems counts the mistakes loading found: a build refuses the base
	// while there are errors.
	Problems Problems `json:"problems"`
	// Artifacts is the state of .cairn/, RulesFiles that of AGENTS.md and
	// CLAUDE.md.
	Artifacts  Artifacts  `json:"artifacts"`
	RulesFiles RulesFiles `json:"rules_files"`
}

// Layer is one layer folder and what it holds.
type Layer struct {
	Name      string `json:"name"`
	Folder    string `json:"folder"`
	Off       bool   `json:"off,omitempty"`
	Documents int    `json:"documents,omitempty"`
	Records   int    `json:"records,omitempty"`
	Pages     int    `json:"pages,omitempty"`
	Bodies    int    `json:"bodies,omitempty"`
	// FirstDay and LastDay bound the dated documents or pages.
	FirstDay string `json:"first_day,omitempty"`
	LastDay  string `json:"last_day,omitempty"`
}

// Source is one source: what the base holds of it and how it is
// collected.
type Source struct {
	Name      string `json:"name"`
	Layer     string `json:"layer,omitempty"`
	Documents int    `json:"documents"`
	Records   int    `json:"records"`
	// LastDay is its newest events day; LastCollected the newest
	// collected_at its documents record.
	LastDay       string `json:"last_day,omitempty"`
	LastCollected string `json:"last_collected,omitempty"`
	// Collect is how `cairn collect` gathers it: "command", a built-in
	// collector's name, "disabled in fkf.yaml", or "" when it does not.
	Collect string `json:"collect,omitempty"`
}

// Governance counts the governance files' contents.
type Governance struct {
	DefaultVoice string `json:"default_voice,omitempty"`
	Voices       int    `json:"voices"`
	Terms        int    `json:"terms"`
	Operations   int    `json:"log_operations"`
	Points       int    `json:"points"`
}

// Problems counts loading's diagnostics.
type Problems struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Artifacts says whether .cairn/ is what a build would write.
type Artifacts struct {
	// State is "current", "stale" (a build would rebuild Stale), "missing"
	// (never built) or "blocked" (the base has errors, so no build runs).
	State string   `json:"state"`
	Stale []string `json:"stale_stages,omitempty"`
	// Writes counts the files a build would create, update or delete.
	Writes int `json:"writes"`
}

// RulesFiles says how many rules files the base has and which a build
// would change.
type RulesFiles struct {
	Files       int      `json:"files"`
	WouldChange []string `json:"would_change,omitempty"`
}

// Check is what a --check build found, for Build: the stages it would run
// and the files it would change; Blocked when the base has errors.
type Check struct {
	Missing bool // no previous build
	Blocked bool
	Ran     []string
	Changes []artifacts.Change
}

// Build makes the report of a loaded base and its check.
func Build(base string, out load.Output, check Check) Report {
	b := out.Base
	cfg := b.Config.WithDefaults()
	r := Report{Base: base, Config: cmp.Or(b.ConfigPath, load.ConfigFile), Content: len(b.Content) + len(out.KeptContent)}
	r.layers(cfg, b)
	r.sources(cfg, b)
	r.Governance = Governance{DefaultVoice: cfg.Governance.DefaultVoice, Voices: len(b.Voices), Terms: len(b.Terms),
		Operations: len(b.Log), Points: len(cfg.Governance.Points)}
	for _, d := range out.Diagnostics {
		if d.Severity == diag.Error {
			r.Problems.Errors++
		} else {
			r.Problems.Warnings++
		}
	}
	r.RulesFiles.Files = len(b.RulesFiles)
	switch {
	case check.Blocked:
		r.Artifacts.State = "blocked"
	case check.Missing:
		r.Artifacts.State = "missing"
	case len(check.Ran) > 0 || len(check.Changes) > 0:
		r.Artifacts.State = "stale"
	default:
		r.Artifacts.State = "current"
	}
	r.Artifacts.Stale = check.Ran
	r.Artifacts.Writes = len(check.Changes)
	for _, c := range check.Changes {
		if artifacts.IsRulesFile(c.Path) {
			r.RulesFiles.WouldChange = append(r.RulesFiles.WouldChange, c.Path)
		}
	}
	return r
}

// layers counts what each layer folder holds.
func (r *Report) layers(cfg model.Config, b model.Base) {
	l := cfg.Layers
	for _, la := range []Layer{
		{Name: model.LayerEvents, Folder: l.Events}, {Name: model.LayerIndex, Folder: l.Index},
		{Name: model.LayerWiki, Folder: l.Wiki}, {Name: model.LayerProjects, Folder: l.Projects},
		{Name: model.LayerTasks, Folder: l.Tasks}, {Name: "bodies", Folder: l.Bodies},
	} {
		la.Off = slices.Contains(cfg.LayersOff, la.Name)
		for _, d := range b.Documents {
			if d.Layer == la.Name {
				la.Documents++
				la.Records += len(d.Records)
				la.span(d.Date)
			}
		}
		for _, p := range b.Pages {
			if p.Layer == la.Name {
				la.Pages++
				if la.Name == model.LayerTasks {
					la.span(p.Date)
				}
			}
		}
		if la.Name == "bodies" {
			la.Bodies = len(b.Bodies)
		}
		r.Layers = append(r.Layers, la)
	}
}

// span widens the layer's days to hold day.
func (la *Layer) span(day string) {
	if day == "" {
		return
	}
	if la.FirstDay == "" || day < la.FirstDay {
		la.FirstDay = day
	}
	la.LastDay = max(la.LastDay, day)
}

// sources lists every source the documents come from or the
// configuration declares.
func (r *Report) sources(cfg model.Config, b model.Base) {
	by := map[string]*Source{}
	get := func(name string) *Source {
		if s, ok := by[name]; ok {
			return s
		}
		s := &Source{Name: name}
		by[name] = s
		return s
	}
	for _, d := range b.Documents {
		s := get(d.Source)
		s.Layer = d.Layer
		s.Documents++
		s.Records += len(d.Records)
		s.LastDay = max(s.LastDay, d.Date)
		if later(d.CollectedAt, s.LastCollected) {
			s.LastCollected = d.CollectedAt
		}
	}
	for name, p := range cfg.Sources {
		s := get(name)
		switch c := load.CollectorOf(name, p); {
		case p.Disabled:
			s.Collect = "disabled in fkf.yaml"
		case len(p.Run) > 0:
			s.Collect = "command"
		case c != "":
			s.Collect = c
		}
		if s.Layer == "" && (len(p.Run) > 0 || p.Layer != "") {
			s.Layer = cmp.Or(p.Layer, model.LayerEvents)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(by)) {
		r.Sources = append(r.Sources, *by[name])
	}
}

// later reports whether timestamp a is after b, as instants: documents
// record collected_at in their own zones. An unreadable stamp is never
// later (load has refused it already).
func later(a, b string) bool {
	ta, err := time.Parse(time.RFC3339, a)
	if err != nil {
		return false
	}
	tb, err := time.Parse(time.RFC3339, b)
	return err != nil || ta.After(tb)
}

// Text renders the report for a person.
func Text(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "base: %s (%s)\n", r.Base, r.Config)
	b.WriteString("layers:\n")
	for _, l := range r.Layers {
		name := l.Folder + "/"
		if l.Folder != l.Name {
			name += " (" + l.Name + ")"
		}
		fmt.Fprintf(&b, "  %-11s %s\n", name, l.describe())
	}
	if len(r.Sources) > 0 {
		b.WriteString("sources:\n")
		width := 0
		for _, s := range r.Sources {
			width = max(width, len(s.Name))
		}
		for _, s := range r.Sources {
			fmt.Fprintf(&b, "  %-*s %s\n", width, s.Name, s.describe())
		}
	}
	g := r.Governance
	fmt.Fprintf(&b, "governance: %s, %s, %s, %s", count(g.Voices, "voice"), count(g.Terms, "term"), count(g.Points, "point"), count(g.Operations, "log operation"))
	if g.DefaultVoice != "" {
		fmt.Fprintf(&b, "; default voice %s", g.DefaultVoice)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "content: %s\n", count(r.Content, "file"))
	if p := r.Problems; p.Errors+p.Warnings > 0 {
		fmt.Fprintf(&b, "problems: %s, %s; cairn build lists them\n", count(p.Errors, "error"), count(p.Warnings, "warning"))
	}
	a := r.Artifacts
	switch a.State {
	case "current":
		b.WriteString("artifacts: current\n")
	case "missing":
		b.WriteString("artifacts: missing; run cairn build\n")
	case "blocked":
		b.WriteString("artifacts: not built while the base has errors; cairn build lists them\n")
	default:
		stages := "no stage"
		if len(a.Stale) > 0 {
			stages = strings.Join(a.Stale, ", ")
		}
		fmt.Fprintf(&b, "artifacts: stale; a build would run %s and write %s\n", stages, count(a.Writes, "file"))
	}
	fmt.Fprintf(&b, "rules files: %d", r.RulesFiles.Files)
	if w := r.RulesFiles.WouldChange; len(w) > 0 {
		fmt.Fprintf(&b, "; a build would change %s\n", strings.Join(w, ", "))
	} else if a.State == "current" || a.State == "stale" {
		b.WriteString("; all as a build writes them\n")
	} else {
		b.WriteString("\n")
	}
	return b.String()
}

// describe is a layer's line.
func (l Layer) describe() string {
	var parts []string
	switch {
	case l.Off:
		return "switched off in fkf.yaml"
	case l.Documents > 0:
		parts = append(parts, count(l.Documents, "document"), count(l.Records, "record"))
	case l.Pages > 0:
		parts = append(parts, count(l.Pages, "page"))
	case l.Bodies > 0:
		parts = append(parts, count(l.Bodies, "cached body"))
	default:
		parts = append(parts, "empty")
	}
	line := strings.Join(parts, ", ")
	if l.FirstDay != "" {
		line += ", " + l.FirstDay + ".." + l.LastDay
	}
	return line
}

// describe is a source's line.
func (s Source) describe() string {
	line := cmp.Or(s.Layer, "-") + ", " + count(s.Documents, "document") + ", " + count(s.Records, "record")
	if s.LastDay != "" {
		line += ", last day " + s.LastDay
	}
	if s.LastCollected != "" {
		line += ", collected " + s.LastCollected
	}
	if s.Collect != "" {
		line += "; collect: " + s.Collect
	}
	return line
}

// count writes n things, with an s past one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "body") {
		return fmt.Sprintf("%d %sbodies", n, strings.TrimSuffix(thing, "body"))
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
