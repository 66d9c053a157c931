package load

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// FkfConfigFile is fkf's configuration. A folder holding it and no
// cairn.yaml is a base as it is: cairn reads fkf.yaml as its
// configuration and fkf's documents ("fkf": 1) as its own, and writes
// into neither. When both files are there, cairn.yaml is the
// configuration and fkf.yaml is left to fkf.
const FkfConfigFile = "fkf.yaml"

// IsConfigFile reports whether p, a base-relative path, is a file a base
// is configured by.
func IsConfigFile(p string) bool { return p == ConfigFile || p == FkfConfigFile }

// configName is the configuration file of the base in fsys: cairn.yaml,
// else fkf.yaml when that is there, else cairn.yaml (whose absence is then
// the error to report).
func configName(fsys fs.FS) string {
	if _, err := fs.Stat(fsys, ConfigFile); errors.Is(err, fs.ErrNotExist) {
		if st, err := fs.Stat(fsys, FkfConfigFile); err == nil && st.Mode().IsRegular() {
			return FkfConfigFile
		}
	}
	return ConfigFile
}

// fkfConfig is fkf.yaml as fkf documents it. Every documented key is
// read; any other is an error naming it, since a setting read by fkf and
// silently dropped by cairn would make the two answer differently. The
// keys that only steer fkf's own scheduler and executor (the sync
// defaults but timeout, a source's requires, window, body, install, retry
// and min_interval) change no answer: they are checked for their type and
// otherwise left to fkf.
type fkfConfig struct {
	Marker     *int                       `yaml:"fkf"`
	Name       string                     `yaml:"name"`
	Schema     map[string]model.FieldSpec `yaml:"schema"`
	Layers     map[string]bool            `yaml:"layers"`
	Sources    map[string]fkfSource       `yaml:"sources"`
	Identities map[string]model.Identity  `yaml:"identities"`
	Sync       fkfSync                    `yaml:"sync"`
}

// fkfSync is fkf's defaults for collecting: how many days back, how old an
// index snapshot may grow, a command's timeout (the one cairn's collect
// honours, for a source with none of its own) and how many run at once.
type fkfSync struct {
	Days             int    `yaml:"days"`
	IndexMaxAgeHours int    `yaml:"index_max_age_hours"`
	Timeout          string `yaml:"timeout"`
	Concurrency      int    `yaml:"concurrency"`
}

// fkfSource is one of fkf's sources: its fields map, recency and command,
// which become a cairn collect source when fkf.yaml enables it, the policy
// roles, how its command prints records, and fkf's execution keys.
type fkfSource struct {
	Enabled     bool                        `yaml:"enabled"`
	Fields      map[string]model.FieldPaths `yaml:"fields"`
	Recency     model.Recency               `yaml:"recency"`
	Run         fkfRun                      `yaml:"run"`
	Format      string                      `yaml:"format"`
	Records     string                      `yaml:"records"`
	Category    string                      `yaml:"category"`
	Visibility  string                      `yaml:"visibility"`
	Timeout     string                      `yaml:"timeout"`
	Layer       string                      `yaml:"layer"`
	Requires    []string                    `yaml:"requires"`
	Window      bool                        `yaml:"window"`
	Body        fkfRun                      `yaml:"body"`
	Install     string                      `yaml:"install"`
	Retry       fkfRetry                    `yaml:"retry"`
	MinInterval string                      `yaml:"min_interval"`
}

// fkfRetry is how fkf retries a failing command. cairn's collect runs a
// command once and reports its failure; the next collect resumes.
type fkfRetry struct {
	Attempts int      `yaml:"attempts"`
	Backoff  string   `yaml:"backoff"`
	On       []string `yaml:"on"`
}

// fkfRun is a source's command, an argv list. A command line in one
// string needs a shell, which cairn never runs: that is refused with what
// to write instead.
type fkfRun []string

// UnmarshalYAML refuses a command given as one string.
func (r *fkfRun) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return errors.New("run is one command line, which needs a shell, and cairn runs commands without one; write it as a list of words, like [python3, scripts/collect.py]")
	}
	var argv []string
	if err := n.Decode(&argv); err != nil {
		return err
	}
	*r = argv
	return nil
}

// fkfLayers are the layers fkf.yaml may switch on or off, each with its
// default folder.
var fkfLayers = []string{"events", "index", "wiki", "projects", "tasks", "bodies", "governance"}

// decodeFkf decodes fkf.yaml into a cairn configuration: the schema and
// identities as they are, a layer switched off is not read, and a source
// with a command becomes a collect source with its fields map. A fields
// map on a source with no command says how fkf's own collector wrote its
// documents, which carry that map themselves, so cairn needs no copy.
func decodeFkf(data []byte, ds *diag.List) (model.Config, *yaml.Node, bool) {
	var fc fkfConfig
	root, decoded := decodeYAML(FkfConfigFile, data, 1, &fc, ds)
	if fc.Marker != nil && *fc.Marker != 1 {
		line, col := keyLine(root, "fkf")
		ds.Errorf(FkfConfigFile, line, col, "wrong-marker", "fkf: %d is not a configuration contract this cairn reads; it reads fkf: 1", *fc.Marker)
	}
	cfg := model.Config{Name: fc.Name, Schema: fc.Schema, Identities: fc.Identities}
	for _, name := range slices.Sorted(maps.Keys(fc.Layers)) {
		if !slices.Contains(fkfLayers, name) {
			line, col := keyLine(root, "layers", name)
			ds.Errorf(FkfConfigFile, line, col, "unknown-layer", "layer %q is not one cairn knows; known layers: %s", name, strings.Join(fkfLayers, ", "))
			continue
		}
		if !fc.Layers[name] {
			cfg.LayersOff = append(cfg.LayersOff, name)
		}
	}
	if len(fc.Sources) > 0 {
		cfg.Sources = map[string]model.SourcePolicy{}
	}
	for _, name := range slices.Sorted(maps.Keys(fc.Sources)) {
		s := fc.Sources[name]
		p := model.SourcePolicy{Recency: s.Recency, Category: s.Category, Visibility: s.Visibility, Run: s.Run}
		if len(s.Run) > 0 {
			p.Fields, p.Timeout, p.Layer = s.Fields, cmp.Or(s.Timeout, fc.Sync.Timeout), s.Layer
			p.Disabled, p.Placeholders = !s.Enabled, true
			p.Format, p.Records, p.BodyDeclared = s.Format, s.Records, len(s.Body) > 0
		}
		if s.Format != "" && s.Format != "json" && s.Format != "ndjson" {
			line, col := keyLine(root, "sources", name, "format")
			ds.Errorf(FkfConfigFile, line, col, "bad-format", "format %q of source %q; use json (one array, or an object holding it) or ndjson (one record a line)", s.Format, name)
		}
		if s.Records != "" {
			if s.Format == "ndjson" {
				line, col := keyLine(root, "sources", name, "records")
				ds.Errorf(FkfConfigFile, line, col, "bad-records", "source %q prints ndjson, one record a line, so there is no wrapper for records to select; remove records", name)
			} else if _, err := fieldpath.Parse(s.Records); err != nil {
				line, col := keyLine(root, "sources", name, "records")
				ds.Errorf(FkfConfigFile, line, col, "bad-records", "records %q of source %q: %v", s.Records, name, err)
			}
		}
		for i, arg := range s.Run {
			if err := checkPlaceholders(arg); err != nil {
				line, col := itemLine(root, i, "sources", name, "run")
				ds.Errorf(FkfConfigFile, line, col, "bad-run", "word %d of the command of source %q: %v", i+1, name, err)
			}
		}
		cfg.Sources[name] = p
	}
	return cfg, root, decoded
}

// FkfPlaceholders are the words fkf fills into a command's arguments:
// the day collected and the next, the half-open window, the base folder
// and the home folder.
var FkfPlaceholders = []string{"date", "next_date", "start", "end", "base", "home"}

// checkPlaceholders refuses a word with a {{ that is not one of
// FkfPlaceholders spelled exactly, as fkf does.
func checkPlaceholders(word string) error {
	rest := word
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if strings.Contains(rest, "}}") {
				return fmt.Errorf("%q has a }} with no {{ before it", word)
			}
			return nil
		}
		if strings.Contains(rest[:i], "}}") {
			return fmt.Errorf("%q has a }} with no {{ before it", word)
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return fmt.Errorf("%q opens {{ and never closes it", word)
		}
		if name := rest[i+2 : i+j]; !slices.Contains(FkfPlaceholders, name) {
			return fmt.Errorf("{{%s}} is not a placeholder; the placeholders are {{%s}}", name, strings.Join(FkfPlaceholders, "}}, {{"))
		}
		rest = rest[i+j+2:]
	}
}
