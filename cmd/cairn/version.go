package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/cairn-kb/cairn/artifacts"
)

// VersionCmd is `cairn version`; `cairn --version` prints the same.
type VersionCmd struct{}

// Help is the detail under the summary of `cairn version --help`.
func (VersionCmd) Help() string {
	return `The commit is the git revision go build stamped into the binary, or unknown.

Example:

    cairn version`
}

// Run prints the versions.
func (VersionCmd) Run(env *Env) error {
	printVersion(env.Stdout)
	return nil
}

// printVersion writes the version, commit, ranking and format versions.
func printVersion(w io.Writer) {
	commit := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	fmt.Fprintf(w, "cairn %s\ncommit %s\nranking %d\nformat %d\n", Version, commit, artifacts.RankingVersion, artifacts.FormatVersion)
}
