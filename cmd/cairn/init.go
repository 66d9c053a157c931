package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// InitCmd is `cairn init [DIR]`.
type InitCmd struct {
	Dir string `arg:"" optional:"" name:"DIR" help:"Folder to scaffold (default: the working directory)."`
}

// Help is the detail under the summary of `cairn init --help`.
func (InitCmd) Help() string {
	return `It refuses a folder that holds a cairn.yaml already.

Examples:

    cairn init my-base`
}

// initConfig is the cairn.yaml a new base starts with: every section, with
// comments saying what goes there.
const initConfig = `# cairn.yaml: the configuration of this base. Unknown keys are errors.

# Fields records and pages carry, with their ranking weight (1..100).
# id defaults to 10, title to 5, everything else to 1.
schema:
  title: {weight: 5}
  # repository: {weight: 2, relation: true, cardinality: optional}

# Collected sources: recency half-life and default policy roles.
sources: {}
  # git-commits: {recency: {half_life_days: 14}}
  # mail: {category: received}

# People, repositories and other entities known by several names.
identities: {}
  # marc: {canonical: "person:email/marc@x.test", aliases: ["marc@x.test"]}

# The project's own content files, where rules apply and term use is counted.
content: ["**/*.md"]

governance: {}
  # default_voice: docs
`

// initLayers are the folders a new base starts with.
var initLayers = []string{"events", "index", "wiki", "projects", "tasks", "bodies", "governance/voices"}

// Run scaffolds the base.
func (c *InitCmd) Run(env *Env) error {
	dir := c.Dir
	if dir == "" {
		wd, err := env.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	}
	cfg := filepath.Join(dir, "cairn.yaml")
	if _, err := os.Stat(cfg); err == nil {
		return usageError("%s already exists; this folder is a base already", cfg)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, l := range initLayers {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(l)), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(cfg, []byte(initConfig), 0o644); err != nil {
		return err
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(gi, []byte(".cairn/\n"), 0o644); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.Stderr, "cairn: %s exists; add .cairn/ to it if it is not there\n", gi)
	}
	fmt.Fprintf(env.Stdout, "initialised a cairn base in %s\nnext: add record documents under events/YYYY-MM-DD/<source>.json and pages under wiki/, then run `cairn build`\n", dir)
	return nil
}
