package kapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Input is a kapi project to convert.
type Input struct {
	// FS is the kapi project's folder: the one holding .kapi/, or the
	// .kapi folder itself (or a copy of its files).
	FS fs.FS
}

// Output is what an import writes, and what it could not carry over.
type Output struct {
	// Files are the governance files, by path below the governance
	// folder (terms.yaml, voices/<name>.yaml), sorted by path.
	Files []File
	// Unmapped lists what has no place in cairn, or only a weaker one, by
	// kapi file and key.
	Unmapped []Finding
	// Voices names the voices written, the project-wide one first.
	Voices []string
	// Terms counts the terms written to terms.yaml.
	Terms int
}

// File is one file to write, by slash path below the governance folder.
type File struct {
	Path string
	Data []byte
}

// Finding is one thing of the kapi files that was not carried over as it
// is: File is the kapi file (as the project names it), Key the key path
// inside it, What what became of it.
type Finding struct {
	File, Key, What string
}

func (f Finding) String() string { return f.File + ": " + f.Key + ": " + f.What }

// InputError is a kapi file cairn cannot read at all: broken JSON or
// YAML, an unknown format, a voice the load stage refuses.
type InputError struct{ Problems []string }

func (e *InputError) Error() string { return strings.Join(e.Problems, "\n") }

// ExitCode makes unreadable kapi files invalid input.
func (e *InputError) ExitCode() int { return 2 }

// The kapi project's files, relative to its .kapi folder.
const (
	kapiDir      = ".kapi"
	termsFile    = "terms.json"
	voiceFile    = "voice.yaml"
	profilesDir  = "profiles"
	maxKapiBytes = 16 << 20 // a terms store of a few hundred thousand terms
)

// Run converts the kapi project in.FS.
func Run(ctx context.Context, in Input) (Output, error) {
	dir, err := locate(in.FS)
	if err != nil {
		return Output{}, err
	}
	var out Output
	var problems []string
	if data, ok, err := readOptional(in.FS, path.Join(dir, termsFile)); err != nil {
		return Output{}, err
	} else if ok {
		file, n, found, err := convertTerms(shown(dir, termsFile), data)
		if err != nil {
			problems = append(problems, err.Error())
		} else {
			out.Files = append(out.Files, file)
			out.Terms = n
		}
		out.Unmapped = append(out.Unmapped, found...)
	}
	profiles, err := profileFiles(in.FS, dir)
	if err != nil {
		return Output{}, err
	}
	stems := map[string]string{}
	for _, p := range profiles {
		if err := ctx.Err(); err != nil {
			return Output{}, err
		}
		data, ok, err := readOptional(in.FS, path.Join(dir, p.voice))
		if err != nil {
			return Output{}, err
		}
		if !ok {
			continue
		}
		name := shown(dir, p.voice)
		v, found, err := convertVoice(name, p.stem, data)
		out.Unmapped = append(out.Unmapped, found...)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if prev, dup := stems[v.stem]; dup {
			problems = append(problems, fmt.Sprintf("%s: it would be the voice %q, as %s is; give one of them another id: (or rename the profile folder)", name, v.stem, prev))
			continue
		}
		stems[v.stem] = name
		out.Voices = append(out.Voices, v.stem)
		out.Files = append(out.Files, File{Path: "voices/" + v.stem + ".yaml", Data: v.data})
		if p.terms != "" {
			if _, ok, _ := readOptional(in.FS, path.Join(dir, p.terms)); ok {
				out.Unmapped = append(out.Unmapped, Finding{shown(dir, p.terms), "concepts", "a profile's own terms are not imported: cairn's terms hold by path, not by voice; add them to terms.yaml with paths: where that voice governs"})
			}
		}
	}
	if len(problems) > 0 {
		return Output{}, &InputError{Problems: problems}
	}
	if len(out.Files) == 0 {
		return Output{}, &InputError{Problems: []string{"the folder holds no kapi terms or voice profiles (.kapi/terms.json, .kapi/voice.yaml, .kapi/profiles/<name>/voice.yaml, or the same without .kapi/); point at the kapi project's folder"}}
	}
	slices.SortFunc(out.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// locate returns the folder of the kapi files inside fsys: .kapi when the
// project has one, else the top, where a copy of .kapi's files sits.
func locate(fsys fs.FS) (string, error) {
	st, err := fs.Stat(fsys, kapiDir)
	switch {
	case err == nil && st.IsDir():
		return kapiDir, nil
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return ".", nil
	}
	return "", fmt.Errorf("cannot read the kapi project: %w", err)
}

// shown names a kapi file for a person: as the project does, .kapi/ and all.
func shown(dir, p string) string {
	if dir == "." {
		return p
	}
	return dir + "/" + p
}

// profile is one voice profile of the project and where its files are.
type profile struct {
	stem  string // the voice it becomes; "" for the project-wide voice (named from its content)
	voice string // its voice.yaml
	terms string // its own terms.json, if a profile may have one
}

// profileFiles lists the project-wide voice, then each profile's, by
// folder name.
func profileFiles(fsys fs.FS, dir string) ([]profile, error) {
	list := []profile{{voice: voiceFile}}
	entries, err := fs.ReadDir(fsys, path.Join(dir, profilesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot list %s: %w", shown(dir, profilesDir), err)
	}
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			p := path.Join(profilesDir, e.Name())
			list = append(list, profile{stem: e.Name(), voice: path.Join(p, voiceFile), terms: path.Join(p, termsFile)})
		}
	}
	return list, nil
}

// readOptional reads a regular file, reporting whether it exists.
func readOptional(fsys fs.FS, p string) ([]byte, bool, error) {
	st, err := fs.Stat(fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, false, &InputError{Problems: []string{p + " is not a regular file; replace it with the file itself"}}
	}
	if st.Size() > maxKapiBytes {
		return nil, false, &InputError{Problems: []string{fmt.Sprintf("%s is %d bytes, over the %d-byte cap of an import", p, st.Size(), maxKapiBytes)}}
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %s: %w", p, err)
	}
	return data, true, nil
}

// asErr is errors.As, kept short for the switch that words JSON errors.
func asErr[T error](err error, target *T) bool { return errors.As(err, target) }
