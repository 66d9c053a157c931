// Package emit is the last build stage: it gathers every stage's outputs,
// rebuilt or kept, and renders manifest.json, which names each input and
// output with its hash and each stage's input key.
//
// In: the inputs' stamps, the semantics digest, and each stage's key with
// its new files or its kept stamps. Out: the files to write, the paths to
// keep, the rules files to release or delete, and the manifest, which
// artifacts.Sync writes last. It must not read or write anything.
package emit

import (
	"context"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// Stage is one stage's contribution: either Files it just produced, or
// Kept stamps of outputs it left as they were. The rules stage may also
// release rules files from cairn's section and delete emptied ones; those
// are written or deleted once and are no outputs.
type Stage struct {
	Name    string
	Key     string
	Files   []artifacts.File
	Kept    []artifacts.FileStamp
	Release []artifacts.File
	Delete  []string
}

// Input is everything the manifest records.
type Input struct {
	ToolVersion     string
	SemanticsDigest string
	Inputs          []artifacts.FileStamp
	Stages          []Stage
}

// Output is what Sync needs.
type Output struct {
	Files    []artifacts.File
	Keep     []string
	Release  []artifacts.File
	Delete   []string
	Manifest artifacts.File
}

// Run renders the manifest.
func Run(ctx context.Context, in Input) (Output, error) {
	var out Output
	m := artifacts.Manifest{
		RankingVersion:  artifacts.RankingVersion,
		ToolVersion:     in.ToolVersion,
		SemanticsDigest: in.SemanticsDigest,
		Inputs:          in.Inputs,
	}
	for _, s := range in.Stages {
		st := artifacts.StageStamp{Stage: s.Name, Key: s.Key, Outputs: []string{}}
		for _, f := range s.Files {
			out.Files = append(out.Files, f)
			m.Outputs = append(m.Outputs, artifacts.StampFile(f))
			st.Outputs = append(st.Outputs, f.Path)
		}
		for _, k := range s.Kept {
			out.Keep = append(out.Keep, k.Path)
			m.Outputs = append(m.Outputs, k)
			st.Outputs = append(st.Outputs, k.Path)
		}
		out.Release = append(out.Release, s.Release...)
		out.Delete = append(out.Delete, s.Delete...)
		m.Stages = append(m.Stages, st)
	}
	slices.SortFunc(out.Files, func(a, b artifacts.File) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(out.Keep)
	slices.SortFunc(out.Release, func(a, b artifacts.File) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(out.Delete)
	out.Manifest = artifacts.File{Path: artifacts.ManifestPath, Data: artifacts.EncodeManifest(m)}
	return out, ctx.Err()
}
