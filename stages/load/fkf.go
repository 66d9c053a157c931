package load

import (
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/model"
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

// fkfConfig is the part of fkf.yaml cairn honours. Any other key is an
// error naming it, since a setting read by fkf and silently dropped by
// cairn would make the two answer differently.
type fkfConfig struct {
	Schema     map[string]model.FieldSpec `yaml:"schema"`
	Layers     map[string]bool            `yaml:"layers"`
	Sources    map[string]fkfSource       `yaml:"sources"`
	Identities map[string]model.Identity  `yaml:"identities"`
}

// fkfSource is one of fkf's sources: its fields map, recency and command,
// which become a cairn collect source, and the policy roles.
type fkfSource struct {
	Fields     map[string]model.FieldPaths `yaml:"fields"`
	Recency    model.Recency               `yaml:"recency"`
	Run        fkfRun                      `yaml:"run"`
	Category   string                      `yaml:"category"`
	Visibility string                      `yaml:"visibility"`
	Timeout    string                      `yaml:"timeout"`
	Layer      string                      `yaml:"layer"`
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
	cfg := model.Config{Schema: fc.Schema, Identities: fc.Identities}
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
	for name, s := range fc.Sources {
		p := model.SourcePolicy{Recency: s.Recency, Category: s.Category, Visibility: s.Visibility, Run: s.Run}
		if len(s.Run) > 0 {
			p.Fields, p.Timeout, p.Layer = s.Fields, s.Timeout, s.Layer
		}
		cfg.Sources[name] = p
	}
	return cfg, root, decoded
}
