package main

import (
	"fmt"
	"runtime/debug"

	"github.com/cairn-kb/cairn/artifacts"
)

// VersionCmd is `cairn version`.
type VersionCmd struct{}

// Run prints the versions.
func (VersionCmd) Run(env *Env) error {
	commit := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	fmt.Fprintf(env.Stdout, "cairn %s\ncommit %s\nranking %d\nformat %d\n", Version, commit, artifacts.RankingVersion, artifacts.FormatVersion)
	return nil
}
