package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"go.yaml.in/yaml/v3"
)

// IsFieldName reports whether s has the shape of a schema field name: a
// lowercase ASCII letter, then lowercase letters, digits, '_' and '-'.
func IsFieldName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Policy role values.
var (
	Categories    = []string{"created", "received", "saved"}
	Visibilities  = []string{"private", "shared", "public"}
	Cardinalities = []string{"one", "optional", "many"}
)

// loadConfig reads and validates cairn.yaml. ok is false when the base
// cannot be classified (no config, or one that does not decode).
func loadConfig(fsys fs.FS, ds *diag.List) (cfg model.Config, root *yaml.Node, hash string, ok bool) {
	file := configName(fsys)
	data, err := ReadCapped(fsys, file, MaxGovernanceBytes)
	var big *tooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ds.Errorf(ConfigFile, 0, 0, "no-config", "this folder has no cairn.yaml, so it is not a cairn base; run `cairn init` here or pass --base")
		return cfg, nil, "", false
	case errors.As(err, &big):
		ds.Errorf(file, 0, 0, "too-large", "%v", big)
		return cfg, nil, "", false
	case err != nil:
		ds.Errorf(file, 0, 0, "read", "cannot read the configuration: %v", unwrapPath(err))
		return cfg, nil, "", false
	}
	var decoded bool
	// The hash is of the file's bytes, as hashing the inputs takes them;
	// the YAML is read without a byte order mark, as every input is.
	text := bytes.TrimPrefix(data, []byte(bom))
	if file == FkfConfigFile {
		cfg, root, decoded = decodeFkf(text, ds)
	} else {
		root, decoded = decodeYAML(ConfigFile, text, 1, &cfg, ds)
	}
	cfg = cfg.WithDefaults()
	validateConfig(file, cfg, root, ds)
	// Unknown keys and bad values are reported but leave a usable
	// configuration, so the rest of the base is still checked and every
	// mistake is reported in one run; only broken YAML stops here.
	usable := decoded || root != nil
	return cfg, root, artifacts.Hash(data), usable
}

// configCacheFormat versions EncodeConfigCache's bytes; a cache of
// another format is ignored.
const configCacheFormat = 2

// configCacheFile is the config cache's JSON document.
type configCacheFile struct {
	Format int          `json:"cairn-config-cache"`
	Config model.Config `json:"config"`
}

// EncodeConfigCache renders a configuration that decoded without mistakes
// for artifacts.WriteConfigCache.
func EncodeConfigCache(cfg model.Config) []byte {
	data, err := json.Marshal(configCacheFile{Format: configCacheFormat, Config: cfg})
	if err != nil {
		panic(err) // plain strings, numbers, slices and maps always encode
	}
	return data
}

// cachedConfig returns the cached configuration when cairn.yaml's size and
// modification time match the stat cache and its hash there matches the
// cache's: then these are the bytes the cache was decoded from.
// memo, when given, spares a long-lived process decoding the same cache
// again.
func cachedConfig(fsys fs.FS, stat artifacts.StatLookup, cached artifacts.ConfigCache, memo *ConfigMemo) (model.Config, string, bool) {
	var cfg model.Config
	file := configName(fsys)
	e, ok := stat.Lookup(file)
	if !ok || cached.XXHash == "" || e.XXHash != cached.XXHash {
		return cfg, "", false
	}
	st, err := fs.Stat(fsys, file)
	if err != nil || !st.Mode().IsRegular() || !e.VouchesFor(st) {
		return cfg, "", false
	}
	if memo == nil {
		cfg, ok = decodeConfigCache(cached.Data)
	} else {
		cfg, ok = memo.decode(cached.Data)
	}
	return cfg, cached.XXHash, ok
}

// decodeConfigCache decodes a config cache's data, false when it is not
// one of this format.
func decodeConfigCache(data []byte) (model.Config, bool) {
	var cfg model.Config
	var f configCacheFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&f) != nil || f.Format != configCacheFormat {
		return cfg, false
	}
	return f.Config.WithDefaults(), true
}

// ConfigMemo remembers the configuration a long-lived process last decoded
// from the config cache, by the cache's bytes: a server checking
// freshness per request decodes it once per change, not per request. The
// configuration it hands out is shared, as every reader of one treats it:
// read only. Its zero value is ready; it is safe for concurrent use.
type ConfigMemo struct {
	mu   sync.Mutex
	data []byte
	cfg  model.Config
}

func (m *ConfigMemo) decode(data []byte) (model.Config, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.data != nil && bytes.Equal(m.data, data) {
		return m.cfg, true
	}
	cfg, ok := decodeConfigCache(data)
	if ok {
		m.data, m.cfg = bytes.Clone(data), cfg
	}
	return cfg, ok
}

// itemLine is the line and column of item i of the list at keys, or of
// the key when the value is not a list that long.
func itemLine(root *yaml.Node, i int, keys ...string) (int, int) {
	line, col := keyLine(root, keys...)
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range keys {
		var next *yaml.Node
		for j := 0; n != nil && n.Kind == yaml.MappingNode && j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				next = n.Content[j+1]
				break
			}
		}
		n = next
	}
	if n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
		return n.Content[i].Line, n.Content[i].Column
	}
	return line, col
}

// keyLine finds the line and column of a mapping key along a path of keys
// in a decoded YAML document, falling back to the deepest key found.
func keyLine(root *yaml.Node, keys ...string) (int, int) {
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line, col := 1, 1
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, col = n.Content[i].Line, n.Content[i].Column
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line, col
}

// MaxHalfLifeDays bounds a source's recency half-life: a thousand years
// and more, far past any base's age, and a number docs.key holds.
const MaxHalfLifeDays = 1_000_000

// validateConfig checks the values strict decoding cannot: names, ranges,
// enumerations, globs and identity aliases. Each section is checked in
// sorted key order and reports every mistake it finds, so one run lists
// them all.
func validateConfig(file string, cfg model.Config, root *yaml.Node, ds *diag.List) {
	c := configCheck{file: file, root: root, ds: ds}
	c.schema(cfg.Schema)
	c.sources(cfg.Sources)
	c.identities(cfg.Identities)
	c.content(cfg.Content)
	c.layers(cfg.Layers)
	c.checkIgnores(cfg.Check.Ignore)
}

// checkIgnores checks each check.ignore entry: at least one valid glob,
// and rule names shaped like the rule ids findings carry.
func (c configCheck) checkIgnores(ignores []model.CheckIgnore) {
	for i, ig := range ignores {
		line, col := itemLine(c.root, i, "check", "ignore")
		if len(ig.Paths) == 0 {
			c.ds.Errorf(c.file, line, col, "bad-ignore", "check.ignore entry %d has no paths; give the files it is for, like paths: [docs/style-guide.md]", i+1)
		}
		for _, g := range ig.Paths {
			if !doublestar.ValidatePattern(g) {
				c.ds.Errorf(c.file, line, col, "bad-glob", "check.ignore entry %d: path %q is not a valid doublestar pattern; fix its brackets or braces", i+1, g)
			}
		}
		for _, r := range ig.Rules {
			if r == "" || strings.ContainsAny(r, " \t") {
				c.ds.Errorf(c.file, line, col, "bad-ignore", "check.ignore entry %d: rule %q is not a rule id; write one as findings show it, like terms.forbidden:sprint, or its start, like terms", i+1, r)
			}
		}
	}
}

// configCheck reports mistakes in cairn.yaml at the line of the key they
// are about.
type configCheck struct {
	file string // cairn.yaml, or fkf.yaml in an fkf base
	root *yaml.Node
	ds   *diag.List
}

// errAt reports a mistake at the key along keys, or the deepest of them
// the document has.
func (c configCheck) errAt(keys []string, code, format string, args ...any) {
	line, col := keyLine(c.root, keys...)
	c.ds.Errorf(c.file, line, col, code, format, args...)
}

// schema checks each field's name, weight and cardinality.
func (c configCheck) schema(fields map[string]model.FieldSpec) {
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		f := fields[name]
		at := []string{"schema", name}
		if !IsFieldName(name) {
			c.errAt(at, "bad-field-name", "field name %q must match ^[a-z][a-z0-9_-]*$; rename it", name)
		}
		if f.Weight != 0 && (f.Weight < 1 || f.Weight > 100) {
			c.errAt(append(at, "weight"), "bad-weight", "weight of %q is %d; use a whole number from 1 to 100", name, f.Weight)
		}
		if f.Cardinality != "" && !slices.Contains(Cardinalities, f.Cardinality) {
			c.errAt(append(at, "cardinality"), "bad-cardinality", "cardinality of %q is %q; use one of: %s", name, f.Cardinality, strings.Join(Cardinalities, ", "))
		}
	}
}

// sources checks each source's name, recency half-life and policy roles.
func (c configCheck) sources(sources map[string]model.SourcePolicy) {
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		s := sources[name]
		at := []string{"sources", name}
		if !isSourceName(name) {
			c.errAt(at, "bad-source-name", "source name %q must be letters, digits, dot, dash or underscore; rename it", name)
		}
		if s.Recency.HalfLifeDays < 0 {
			c.errAt(append(at, "recency", "half_life_days"), "bad-half-life", "half_life_days of %q is negative; use a positive number of days, or omit it for no recency bonus", name)
		}
		if s.Recency.HalfLifeDays > MaxHalfLifeDays {
			c.errAt(append(at, "recency", "half_life_days"), "bad-half-life", "half_life_days of %q is %d; use at most %d days, or omit it for no recency bonus", name, s.Recency.HalfLifeDays, MaxHalfLifeDays)
		}
		if s.Category != "" && !slices.Contains(Categories, s.Category) {
			c.errAt(append(at, "category"), "bad-category", "category %q of source %q; use one of: %s", s.Category, name, strings.Join(Categories, ", "))
		}
		if s.Visibility != "" && !slices.Contains(Visibilities, s.Visibility) {
			c.errAt(append(at, "visibility"), "bad-visibility", "visibility %q of source %q; use one of: %s", s.Visibility, name, strings.Join(Visibilities, ", "))
		}
		c.collection(name, s)
	}
}

// Collectors are the built-in collectors of `cairn collect`.
var Collectors = []string{"git", "markdown"}

// MaxCollectTimeout bounds a source's timeout: a day's collection that
// runs longer is stuck, not slow.
const MaxCollectTimeout = 24 * time.Hour

// CollectorOf names the built-in collector a source uses: its collector
// key, else its own name when that names one and it has no command; ""
// for a source gathered by its command, or only read.
func CollectorOf(name string, s model.SourcePolicy) string {
	if s.Collector != "" {
		return s.Collector
	}
	if len(s.Run) == 0 && slices.Contains(Collectors, name) {
		return name
	}
	return ""
}

// collection checks what `cairn collect` reads of a source: its command,
// fields map, layer, timeout and built-in collector. A source with a
// command must map id and title (and time, for events), as every document
// it will write must; a built-in collector writes its own fields map.
func (c configCheck) collection(name string, s model.SourcePolicy) {
	at := []string{"sources", name}
	for i, arg := range s.Run {
		if arg == "" || strings.ContainsRune(arg, 0) {
			line, col := itemLine(c.root, i, append(at, "run")...)
			c.ds.Errorf(c.file, line, col, "bad-run", "word %d of the command of source %q is empty; run is an argv list like [python3, scripts/tickets.py], with no shell", i+1, name)
		}
	}
	if s.Layer != "" && s.Layer != model.LayerEvents && s.Layer != model.LayerIndex {
		c.errAt(append(at, "layer"), "bad-layer", "layer %q of source %q; use events (a document a day) or index (one snapshot)", s.Layer, name)
	}
	if s.Timeout != "" {
		if d, err := time.ParseDuration(s.Timeout); err != nil || d <= 0 || d > MaxCollectTimeout {
			c.errAt(append(at, "timeout"), "bad-timeout", "timeout %q of source %q; write a duration from 1s to 24h, like 90s or 5m", s.Timeout, name)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(s.Fields)) {
		if !IsFieldName(f) {
			c.errAt(append(at, "fields", f), "bad-field-name", "field name %q must match ^[a-z][a-z0-9_-]*$; rename it", f)
		}
		if len(s.Fields[f]) == 0 {
			c.errAt(append(at, "fields", f), "bad-field-path", "field %q of source %q maps to no path; map it to a path like \".title\" or a list of them", f, name)
		}
		for _, p := range s.Fields[f] {
			if _, err := fieldpath.Parse(p); err != nil {
				c.errAt(append(at, "fields", f), "bad-field-path", "field %q of source %q, path %q: %v", f, name, p, err)
			}
		}
	}
	collector := CollectorOf(name, s)
	switch {
	case collector != "" && !slices.Contains(Collectors, collector):
		c.errAt(append(at, "collector"), "bad-collector", "collector %q of source %q; the built-in collectors are %s", collector, name, strings.Join(Collectors, ", "))
	case collector != "" && len(s.Run) > 0:
		c.errAt(append(at, "collector"), "bad-collector", "source %q has both a command and the %s collector; keep one", name, collector)
	case collector != "" && len(s.Fields) > 0:
		c.errAt(append(at, "fields"), "bad-collector", "source %q uses the %s collector, which writes its own fields map; remove fields", name, collector)
	case collector != "" && s.Layer != "":
		c.errAt(append(at, "layer"), "bad-collector", "source %q uses the %s collector, which chooses its own layer; remove layer", name, collector)
	case collector == "" && s.Path != "":
		c.errAt(append(at, "path"), "bad-collector", "path is what a built-in collector reads, and source %q has none; set collector: git or markdown, or remove path", name)
	case len(s.Run) > 0:
		need := []string{"id", "title"}
		if s.Placeholders {
			need = need[:1] // fkf's title is an optional display field
		}
		if s.Layer != model.LayerIndex {
			need = append(need, "time")
		}
		for _, f := range need {
			if _, ok := s.Fields[f]; !ok {
				c.errAt(append(at, "run"), "missing-field", "source %q has a command but its fields map does not map %q; every source maps id and title, and events map time too", name, f)
			}
		}
	case len(s.Fields) > 0 || s.Layer != "" || s.Timeout != "":
		c.errAt(at, "no-run", "source %q sets how it is collected (fields, layer or timeout) but has no run command; add run: [argv…] or remove them", name)
	}
}

// identities checks each canonical URI, and that every alias (the
// canonical URI among them) is non-empty and belongs to one identity.
// Identities are walked in sorted order, so a repeated alias is reported at
// the later identity, naming the one that claimed it before.
func (c configCheck) identities(ids map[string]model.Identity) {
	owner := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		id := ids[name]
		at := []string{"identities", name}
		if !IsEntityURI(id.Canonical) {
			c.errAt(append(at, "canonical"), "bad-identity", "canonical URI of identity %q is %q; write scheme:identity, e.g. person:email/marc@x.test", name, id.Canonical)
		}
		for _, a := range append([]string{id.Canonical}, id.Aliases...) {
			if a == "" {
				c.errAt(append(at, "aliases"), "bad-identity", "identity %q has an empty alias; remove it", name)
				continue
			}
			if other, ok := owner[a]; ok && other != name {
				c.errAt(append(at, "aliases"), "duplicate-alias", "%q names both identity %q and %q; an alias belongs to one identity", a, other, name)
			} else if ok {
				c.errAt(append(at, "aliases"), "duplicate-alias", "identity %q lists %q twice; keep one", name, a)
			}
			owner[a] = name
		}
	}
}

// content checks each content glob, reported at its own list item. A
// leading ! makes a glob an exclusion (see newClassifier).
func (c configCheck) content(globs []string) {
	for i, g := range globs {
		if !doublestar.ValidatePattern(strings.TrimPrefix(g, "!")) {
			line, col := itemLine(c.root, i, "content")
			c.ds.Errorf(c.file, line, col, "bad-glob", "content glob %d %q is not a valid doublestar pattern; fix its brackets or braces", i+1, g)
		}
	}
}

// layers checks that each layer folder is a plain folder inside the base,
// and apart from every other layer's.
func (c configCheck) layers(l model.Layers) {
	type layer struct{ name, dir string }
	var seen []layer
	for _, la := range []layer{
		{"events", l.Events}, {"index", l.Index}, {"wiki", l.Wiki}, {"projects", l.Projects},
		{"tasks", l.Tasks}, {"bodies", l.Bodies}, {"governance", l.Governance},
	} {
		if !validFolder(la.dir) {
			c.errAt([]string{"layers", la.name}, "bad-layer", "layer folder %q is not a plain relative folder inside the base; use a name like %q", la.dir, la.name)
		}
		// A layer inside another would have its files read twice, or as
		// the outer layer's: each needs a folder of its own.
		for _, other := range seen {
			switch {
			case other.dir == la.dir:
				c.errAt([]string{"layers", la.name}, "bad-layer", "layers %s and %s share the folder %q; give each its own", other.name, la.name, la.dir)
			case strings.HasPrefix(la.dir, other.dir+"/"), strings.HasPrefix(other.dir, la.dir+"/"):
				c.errAt([]string{"layers", la.name}, "bad-layer", "layer %s (%q) and layer %s (%q) are nested; give each a folder outside the other", la.name, la.dir, other.name, other.dir)
			}
		}
		seen = append(seen, la)
	}
}

// validFolder reports whether dir is a clean relative path inside the base.
func validFolder(dir string) bool {
	return dir != "" && dir != "." && !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, ".") &&
		path.Clean(dir) == dir && !slices.Contains(strings.Split(dir, "/"), "..") && !strings.ContainsAny(dir, "\\\t\n")
}

// IsEntityURI reports whether s looks like scheme:identity.
func IsEntityURI(s string) bool {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || rest == "" || scheme == "" {
		return false
	}
	for i, r := range scheme {
		ok := r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
		if !ok {
			return false
		}
	}
	return !strings.ContainsAny(s, " \t\n")
}

// ReadConfig reads and validates the base's configuration alone, for a
// command that needs no more of the base (`cairn collect`). It returns
// the configuration with defaults, and every mistake found, sorted.
func ReadConfig(fsys fs.FS) (model.Config, []diag.Diagnostic) {
	var ds diag.List
	cfg, _, _, _ := loadConfig(fsys, &ds)
	return cfg, ds.Sorted()
}
