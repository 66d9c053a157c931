package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/cmd/cairn/internal/kapi"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/load"
)

// ImportCmd is `cairn import`: governance from another tool's files.
type ImportCmd struct {
	Kapi ImportKapiCmd `cmd:"" help:"Convert a kapi project's terms and voice profiles into the base's governance/ files."`
}

// ImportKapiCmd is `cairn import kapi DIR`.
type ImportKapiCmd struct {
	Dir        string `arg:"" name:"DIR" help:"The kapi project: the folder holding .kapi/, or the .kapi folder itself." type:"existingdir"`
	Force      bool   `help:"Replace governance files the import writes that exist already with other content."`
	jsonFormat `embed:""`
}

// importReport is cairn import kapi --format json.
type importReport struct {
	Written   []string `json:"written"`   // governance files written, base-relative
	Unchanged int      `json:"unchanged"` // files the import would write that hold its bytes already
	Terms     int      `json:"terms"`
	Voices    []string `json:"voices"`
	// Unmapped is what could not be mapped, a line each naming the kapi
	// file and key (also printed to stderr).
	Unmapped []string `json:"unmapped"`
}

// Help is the detail under the summary of `cairn import kapi --help`.
func (ImportKapiCmd) Help() string {
	return `It reads DIR/.kapi/terms.json, DIR/.kapi/voice.yaml and DIR/.kapi/profiles/<name>/voice.yaml (or the same files without .kapi/) and writes governance/terms.yaml and governance/voices/<name>.yaml. The files written are printed, one a line; what could not be mapped goes to stderr, one line each, naming the kapi file and key. A file that exists with other content is refused unless --force replaces it; nothing is merged, and no other file is touched.

Example:

    cairn import kapi ../my-kapi-project && cairn build`
}

// Run converts the kapi project and writes the governance files.
func (c *ImportKapiCmd) Run(env *Env) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	// The base's files are read inside it, as the build reads them.
	base, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer base.Close()
	g := load.ReadGovernance(base.FS())
	if !g.ConfigOK {
		return &exitError{code: 2, msg: fmt.Sprintf("%s; fix cairn.yaml first", describeDiagnostics(g))}
	}
	out, err := kapi.Run(context.Background(), kapi.Input{FS: os.DirFS(c.Dir)})
	if err != nil {
		return err
	}
	for _, f := range out.Unmapped {
		fmt.Fprintf(env.Stderr, "cairn: import kapi: %s\n", escape.Line(fmt.Sprint(f)))
	}
	lock, err := artifacts.AcquireLock(root, "cairn import kapi")
	if err != nil {
		return err
	}
	defer lock.Release()
	gov := g.Config.Layers.Governance
	written, err := writeImported(root, gov, out.Files, c.Force)
	if err != nil {
		return err
	}
	if c.json() {
		rep := importReport{Written: nonNil(written), Unchanged: len(out.Files) - len(written), Terms: out.Terms,
			Voices: nonNil(out.Voices), Unmapped: []string{}}
		for _, f := range out.Unmapped {
			rep.Unmapped = append(rep.Unmapped, fmt.Sprint(f))
		}
		return writeJSON(env.Stdout, rep)
	}
	for _, p := range written {
		fmt.Fprintln(env.Stdout, escape.Line(p))
	}
	fmt.Fprintf(env.Stderr, "cairn: import kapi: %d term(s), %d voice(s) (%s); %d file(s) written, %d unchanged; run `cairn build`\n",
		out.Terms, len(out.Voices), strings.Join(out.Voices, ", "), len(written), len(out.Files)-len(written))
	if g.Config.Governance.DefaultVoice == "" && len(out.Voices) > 0 {
		fmt.Fprintf(env.Stderr, "cairn: import kapi: no voice is in force by default; to make kapi's project-wide voice the default, add `default_voice: %s` under governance: in cairn.yaml\n", out.Voices[0])
	}
	return nil
}

// writeImported writes the files below the governance folder gov of the
// base at root, each atomically and inside the base, and returns the paths
// written. A file that exists with other bytes is refused unless force;
// all are checked before any is written, so a refusal writes nothing.
func writeImported(root, gov string, files []kapi.File, force bool) ([]string, error) {
	var todo []kapi.File
	var clash []string
	for _, f := range files {
		p := path.Join(gov, f.Path)
		// Read the way it would be written: a link there is refused.
		old, err := artifacts.ReadBaseFile(root, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		case bytes.Equal(old, f.Data):
			continue // the same import again: nothing to write
		case !force:
			clash = append(clash, p)
		}
		todo = append(todo, kapi.File{Path: p, Data: f.Data})
	}
	if len(clash) > 0 {
		return nil, usageError("%s already exist(s) with other content; nothing was written. Run again with --force to replace them (the import does not merge), or move them aside", strings.Join(clash, ", "))
	}
	var written []string
	for _, f := range todo {
		if err := artifacts.WriteBaseFile(root, f.Path, f.Data); err != nil {
			return written, err
		}
		written = append(written, f.Path)
	}
	return written, nil
}

// describeDiagnostics words the mistakes that made cairn.yaml unusable.
func describeDiagnostics(g load.Governance) string {
	var lines []string
	for _, d := range g.Diagnostics {
		lines = append(lines, d.String())
	}
	if len(lines) == 0 {
		return "cairn.yaml cannot be read"
	}
	return strings.Join(lines, "\n")
}
