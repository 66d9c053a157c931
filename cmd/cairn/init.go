package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// InitCmd is `cairn init [DIR]`.
type InitCmd struct {
	Dir        string `arg:"" optional:"" name:"DIR" help:"Folder to scaffold (default: --base, else $CAIRN_BASE, else the working directory)."`
	jsonFormat `embed:""`
}

// initReport is cairn init --format json: what was made, and where.
type initReport struct {
	Base string `json:"base"`
	// Created are the files and folders written, base-relative.
	Created []string `json:"created"`
	// Gitignore is "written" (a new .gitignore), "kept" (one that ignores
	// what it should) or "lacking" (one that does not; Warning says what
	// to add).
	Gitignore string `json:"gitignore"`
	Warning   string `json:"warning,omitempty"`
}

// Help is the detail under the summary of `cairn init --help`.
func (InitCmd) Help() string {
	return `It refuses a folder that holds a cairn.yaml already. A .gitignore that ignores .cairn/ and cairn's temporary files (.cairn-tmp-*) is written when the folder has none; one that does not ignore them is left as it is, with a warning.

Examples:

    cairn init my-base
    CAIRN_BASE=~/kb cairn init`
}

// initConfig is the cairn.yaml a new base starts with: every section, with
// commented hints of what goes there. Each hint is a whole entry under a
// section that is a mapping already (or empty, which reads as nothing), so
// that taking its # away leaves valid YAML and a valid configuration;
// TestInitHintsUncommented takes each one away and builds.
const initConfig = `# cairn.yaml: the configuration of this base. Unknown keys are errors.

# Fields records and pages carry, with their ranking weight (1..100).
# id defaults to 10, title to 5, everything else to 1.
schema:
  title: {weight: 5}
  # repository: {weight: 2, relation: true, cardinality: optional}

# Collected sources: recency half-life and default policy roles.
sources:
  # git-commits: {recency: {half_life_days: 14}}
  # mail: {category: received}

# People, repositories and other entities known by several names.
identities:
  # marc: {canonical: "person:email/marc@x.test", aliases: ["marc@x.test"]}

# The project's own content files, where rules apply and term use is counted.
content: ["**/*.md"]

# Governance: the voice profile in force where no point names one
# (a file of governance/voices/, here governance/voices/docs.yaml).
governance:
  # default_voice: docs
`

// initLayers are the folders a new base starts with.
var initLayers = []string{"events", "index", "wiki", "projects", "tasks", "bodies", "governance/voices"}

// Run scaffolds the base.
func (c *InitCmd) Run(env *Env) error {
	dir, err := c.folder(env)
	if err != nil {
		return err
	}
	cfg := filepath.Join(dir, "cairn.yaml")
	if _, err := os.Stat(cfg); err == nil {
		return usageError("%s already exists; this folder is a base already", cfg)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	rep := initReport{Base: abs, Created: []string{"cairn.yaml"}, Gitignore: "kept"}
	for _, l := range initLayers {
		p := filepath.Join(dir, filepath.FromSlash(l))
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			rep.Created = append(rep.Created, l+"/")
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(cfg, []byte(initConfig), 0o644); err != nil {
		return err
	}
	gi := filepath.Join(dir, ".gitignore")
	switch data, err := os.ReadFile(gi); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.WriteFile(gi, []byte(initGitignore), 0o644); err != nil {
			return err
		}
		rep.Created, rep.Gitignore = append(rep.Created, ".gitignore"), "written"
	case err != nil:
		return err
	default:
		// The file is the user's: cairn says what to add rather than
		// editing it behind their back.
		if warning := gitignoreLacks(gi, data); warning != "" {
			fmt.Fprintln(env.Stderr, warning)
			rep.Gitignore, rep.Warning = "lacking", strings.TrimPrefix(warning, "cairn: warning: ")
		}
	}
	slices.Sort(rep.Created)
	if c.json() {
		return writeJSON(env.Stdout, rep)
	}
	fmt.Fprintf(env.Stdout, "initialised a cairn base in %s\nnext: add record documents under events/YYYY-MM-DD/<source>.json and pages under wiki/, then run `cairn build`\n", dir)
	return nil
}

// folder is where init scaffolds: DIR, else --base, else $CAIRN_BASE,
// else the working directory, the order every command finds its base in.
func (c *InitCmd) folder(env *Env) (string, error) {
	switch {
	case c.Dir != "" && env.Base != "" && filepath.Clean(c.Dir) != filepath.Clean(env.Base):
		return "", usageError("init was given two folders, --base %s and %s; give one", env.Base, c.Dir)
	case c.Dir != "":
		return c.Dir, nil
	case env.Base != "":
		return env.Base, nil
	case env.Getenv("CAIRN_BASE") != "":
		return env.Getenv("CAIRN_BASE"), nil
	}
	return env.Getwd()
}

// initGitignore is the .gitignore a new base gets: the artifacts folder,
// and the temporary files a killed write leaves in any folder (see
// artifacts.TempPrefix), so that `git add -A` commits neither.
const initGitignore = ".cairn/\n" + artifacts.TempIgnore + "\n"

// gitignoreLacks words the warning about a user's .gitignore at gi that
// does not ignore the artifacts folder or cairn's temporary files, or ""
// when it ignores both.
func gitignoreLacks(gi string, data []byte) string {
	cairnOK, tempsOK := ignoresCairn(data), ignoresTemps(data)
	switch {
	case !cairnOK && !tempsOK:
		return fmt.Sprintf("cairn: warning: %s does not ignore .cairn/ nor cairn's temporary files; add the lines .cairn/ and %s to it, or the build artifacts, and what a killed build leaves, will be committed", gi, artifacts.TempIgnore)
	case !cairnOK:
		return fmt.Sprintf("cairn: warning: %s does not ignore .cairn/; add a line .cairn/ to it, or the build artifacts will be committed", gi)
	case !tempsOK:
		return fmt.Sprintf("cairn: warning: %s does not ignore cairn's temporary files; add a line %s to it, or what a killed build or note leaves will be committed", gi, artifacts.TempIgnore)
	}
	return ""
}

// ignoresTemps reports whether a .gitignore has the line that ignores
// cairn's temporary files in every folder.
func ignoresTemps(gitignore []byte) bool {
	for line := range bytes.Lines(gitignore) {
		if string(bytes.TrimSpace(line)) == artifacts.TempIgnore {
			return true
		}
	}
	return false
}

// ignoresCairn reports whether a .gitignore has a line that ignores the
// .cairn folder at the base's root, in any of the usual spellings.
func ignoresCairn(gitignore []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(gitignore))
	for sc.Scan() {
		switch string(bytes.TrimSpace(sc.Bytes())) {
		case ".cairn", ".cairn/", "/.cairn", "/.cairn/", ".cairn/*", "/.cairn/*", ".cairn/**", "/.cairn/**":
			return true
		}
	}
	return false
}
