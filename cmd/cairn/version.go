package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/cairn-kb/cairn/artifacts"
)

// VersionCmd is `cairn version`; `cairn --version` prints the same.
type VersionCmd struct {
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn version --help`.
func (VersionCmd) Help() string {
	return `The commit is the git revision go build stamped into the binary, or unknown.

Example:

    cairn version
    cairn version --format json`
}

// Run prints the versions.
func (c VersionCmd) Run(env *Env) error {
	if c.json() {
		return writeJSON(env.Stdout, versions())
	}
	printVersion(env.Stdout)
	return nil
}

// versionInfo is what cairn version reports.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"` // the git revision go build stamped, or "unknown"
	Ranking int    `json:"ranking"`
	Format  int    `json:"format"`
}

// versions reads this binary's versions.
func versions() versionInfo {
	v := versionInfo{Version: Version, Commit: "unknown", Ranking: artifacts.RankingVersion, Format: artifacts.FormatVersion}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				v.Commit = s.Value
			}
		}
	}
	return v
}

// printVersion writes the version, commit, ranking and format versions.
func printVersion(w io.Writer) {
	v := versions()
	fmt.Fprintf(w, "cairn %s\ncommit %s\nranking %d\nformat %d\n", v.Version, v.Commit, v.Ranking, v.Format)
}
