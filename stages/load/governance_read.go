package load

import (
	"errors"
	"io/fs"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Governance is a base's governance as a by-location question reads it:
// the configuration, the voices, the terms store and the operation log,
// checked as a build checks them.
type Governance struct {
	Config model.Config
	Voices []model.Voice
	Terms  []model.Term
	Log    []model.LogOp
	// ConfigOK is false when cairn.yaml could not be used at all.
	ConfigOK bool
	// Diagnostics are the mistakes found, sorted: what failed to load is
	// left out of the lists above, and an answer says so.
	Diagnostics []diag.Diagnostic
}

// ReadGovernance reads the governance of the base without walking it:
// the governance folder is small, and a question about one path needs
// nothing else of the base.
func ReadGovernance(fsys fs.FS) Governance {
	var ds diag.List
	cfg, cfgRoot, _, ok := loadConfig(fsys, &ds)
	g := Governance{Config: cfg, ConfigOK: ok}
	if ok {
		g.Voices, g.Terms, g.Log = loadGovernance(fsys, cfg, nil, &ds)
		validateGovernanceConfig(ConfigFile, cfgRoot, cfg, g.Voices, &ds)
	}
	g.Diagnostics = ds.Sorted()
	return g
}

// IsContent reports whether p is one of the base's content files by where
// it sits: outside the layer folders, matching a content glob, not a rules
// file. (Whether it exists is another question.)
func IsContent(cfg model.Config, p string) bool {
	var ds diag.List
	return newClassifier(cfg).classify(p, &ds) == kindContent
}

// ContentPoint reads the frontmatter point: of a content file. A folder
// or a file that does not exist (yet) has none; a file that cannot be read
// or decoded comes back with the mistakes found.
func ContentPoint(fsys fs.FS, p string) (string, []diag.Diagnostic) {
	// A folder, or a file not written yet, binds no point of its own.
	if st, err := fs.Stat(fsys, p); errors.Is(err, fs.ErrNotExist) || err == nil && !st.Mode().IsRegular() {
		return "", nil
	}
	var ds diag.List
	data, ok := readFile(fsys, p, MaxContentBytes, &ds)
	if !ok {
		return "", ds.Sorted()
	}
	fm, _, _, _ := decodeFrontmatter(p, data, &ds)
	return fm.Point, ds.Sorted()
}

// DecodeVoice reads data as the voice profile file (named stem.yaml), as
// a build reads a file of the voices folder: kapi's shape mapped onto
// cairn's, every mistake a diagnostic. `cairn import kapi` checks each
// profile with it before writing, so an import never writes a voice the
// build refuses.
func DecodeVoice(file, stem string, data []byte) (model.Voice, []diag.Diagnostic) {
	var ds diag.List
	v, _ := decodeVoice(file, stem, data, &ds)
	return v, ds.Sorted()
}
