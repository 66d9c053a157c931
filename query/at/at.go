package at

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/provenance"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// By-location formats.
const (
	FormatMarkdown = "markdown"
)

// Request is one by-location question: what applies at a path, or what
// a named voice profile holds.
type Request struct {
	// Path is the location, base-relative or absolute inside the base; ""
	// or "." is the project root.
	Path string
	// Profile names a voice profile instead of a path.
	Profile string
	Format  string // markdown or json
	Explain bool   // markdown: add how the answer was reached
	// Comments answers for the code comments written at the path rather
	// than its content: the voice's limits for comments lead the brief.
	Comments bool
	AsOf     time.Time
	// Seen, in a long-lived process, is what it read before: the answer's
	// first note then says what of the governance, the terms or the notes
	// log moved since, if any did, and Seen advances to this read. Nil adds
	// no note.
	Seen *provenance.Seen
	// Governance, in a long-lived process, remembers the governance read
	// while its files do not change (see load.GovernanceMemo). Nil reads it
	// every time.
	Governance *load.GovernanceMemo
}

// At answers a by-location question about the base at root.
//
// Governance is small, so it is always read from the base itself and
// resolved by the same code the rules stage writes the rules files with:
// the answer for a path never depends on whether the artifacts are
// current. What the artifacts add is the term usage counts of
// suggestions, read from usage.tsv only while the build that wrote it is
// current; otherwise the answer says so and leaves the counts out.
func At(ctx context.Context, root string, req Request) ([]byte, error) {
	switch req.Format {
	case FormatMarkdown, render.FormatJSON:
	default:
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--format %q: a by-location answer is markdown or json", req.Format)}
	}
	if (req.Path == "") == (req.Profile == "") {
		return nil, &corpus.UsageError{Msg: "ask about one thing: --at PATH or --profile NAME"}
	}
	if root == "" {
		return builtinProfile(req)
	}
	osRoot, err := load.OpenDir(root)
	if err != nil {
		return nil, err
	}
	defer osRoot.Close()
	fsys := osRoot
	g := req.Governance.Read(fsys)
	if !g.ConfigOK {
		return nil, &corpus.UsageError{Msg: "cairn.yaml cannot be read: " + diag.Join(g.Diagnostics)}
	}
	doc := &Answer{AsOf: words.DayString(req.AsOf), lineRunes: g.Config.Governance.Caps.LineRunes}
	for _, d := range g.Diagnostics {
		if d.Severity == diag.Error {
			doc.Attention = append(doc.Attention, "Part of the governance failed to load and is left out of this answer: "+govern.Plain(d.String()))
		}
	}
	fresh := provenance.Usage(ctx, root, g.Config)
	fresh.CountAll()
	doc.Provenance = provenance.Of(root, g, fresh)
	resolver := govern.New(govern.Governance{
		DefaultVoice: g.Config.Governance.DefaultVoice, Points: g.Config.Governance.Points,
		Axes: g.Config.Governance.Axes, Voices: g.Voices, Terms: g.Terms, Log: g.Log, Usage: fresh.Uses,
	})
	if req.Profile != "" {
		// The base's own profile first, then the built-in one of the name.
		v, ok := resolver.Voice(req.Profile)
		if !ok {
			if v, ok = load.BuiltinVoice(req.Profile); ok {
				doc.Attention = append(doc.Attention, builtinNote(v.Name, true))
			}
		}
		if !ok {
			return nil, &corpus.UsageError{Msg: fmt.Sprintf("no voice profile is named %q; the base has: %s; built into cairn: %s", req.Profile, voiceNames(g.Voices), voiceNames(load.BuiltinVoices()))}
		}
		doc.profile(v)
	} else {
		rel, place, err := doc.placeOf(fsys, root, req.Path, g.Config)
		if err != nil {
			return nil, err
		}
		doc.project(rel, resolver.At(place, req.AsOf))
	}
	if req.Comments {
		doc.forComments()
	}
	doc.finish(fresh)
	if req.Seen != nil {
		if note := req.Seen.Advance(g); note != "" {
			doc.Attention = append([]string{note}, doc.Attention...)
		}
	}
	if req.Format == render.FormatJSON {
		return append(render.Marshal(doc, "", "  "), '\n'), nil
	}
	return []byte(escape.Text(doc.markdown(req.Explain))), nil
}

// placeOf is the place in the governance of the asked path: its clean
// base-relative form ("." for the base itself) and the point its content
// file names, if cairn.yaml declares it. What cannot be read of the file
// goes into the answer's attention list.
func (doc *Answer) placeOf(fsys fs.FS, root, asked string, cfg model.Config) (string, govern.Place, error) {
	rel, err := basePath(root, asked)
	if err != nil {
		return "", govern.Place{}, err
	}
	// Through the os.Root: a link that leaves the base is refused like a
	// path that does.
	if _, err := fs.Stat(fsys, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", govern.Place{}, &corpus.UsageError{Msg: fmt.Sprintf("%s cannot be read inside the base (%v); ask about a path inside it", rel, err)}
	}
	// Only a content file's own point: binds it, as in the build.
	var point string
	if rel != "." && load.IsContent(cfg, rel) {
		var ds []diag.Diagnostic
		point, ds = load.ContentPoint(fsys, rel)
		for _, d := range ds {
			doc.Attention = append(doc.Attention, "The file's frontmatter could not be read, so its point: is not known: "+govern.Plain(d.String()))
		}
	}
	if point != "" && !slices.ContainsFunc(cfg.Governance.Points, func(p model.Point) bool { return p.Name == point }) {
		doc.Attention = append(doc.Attention, fmt.Sprintf("The file names point %q, which cairn.yaml does not declare; the build refuses it, and this answer ignores it.", govern.Plain(point)))
		point = ""
	}
	place := govern.Place{Path: rel, Point: point}
	if rel == "." {
		place.Path = ""
	}
	return rel, place, nil
}

// basePath turns the asked path into a clean base-relative one, refusing
// anything outside the base.
func basePath(root, p string) (string, error) {
	outside := func(shown string) error {
		return &corpus.UsageError{Msg: fmt.Sprintf("%s is outside the base %s; ask about a path inside it", shown, root)}
	}
	if p == "" || p == "." {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		inside := func(r string, err error) bool { return err == nil && (r == "." || filepath.IsLocal(r)) }
		rel, err := filepath.Rel(root, p)
		if !inside(rel, err) {
			shown := p
			if err == nil {
				shown = filepath.ToSlash(rel) // relative to the base, as the user most likely meant it
			}
			// p may reach the base through a link to it: compare its
			// folder with links resolved (the file itself stays as asked).
			rel, err = filepath.Rel(resolvedDir(root), filepath.Join(resolvedDir(filepath.Dir(p)), filepath.Base(p)))
			if !inside(rel, err) {
				return "", outside(shown)
			}
		}
		p = rel
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", outside(p)
	}
	return p, nil
}

// resolvedDir is the folder dir with its links resolved, as far up as it
// exists; dir itself when nothing of it does.
func resolvedDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			rest, _ := filepath.Rel(d, dir)
			return filepath.Join(r, rest)
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func voiceNames(vs []model.Voice) string {
	if len(vs) == 0 {
		return "no voice profiles (governance/voices/ is empty)"
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// builtinProfile answers --profile NAME outside any base: the built-in
// voice profile of that name, with no project behind it.
func builtinProfile(req Request) ([]byte, error) {
	v, ok := load.BuiltinVoice(req.Profile)
	if !ok {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("no built-in voice profile is named %q, and no base is here to hold one; built into cairn: %s", req.Profile, voiceNames(load.BuiltinVoices()))}
	}
	doc := &Answer{AsOf: words.DayString(req.AsOf)}
	doc.Attention = append(doc.Attention, builtinNote(v.Name, false))
	doc.profile(v)
	if req.Comments {
		doc.forComments()
	}
	doc.finish(provenance.Freshness{State: corpus.StateUsed})
	doc.Provenance = provenance.Provenance{Project: "-", Artifacts: render.IndexState{Path: "-", State: "none", Reason: "no base"}}
	if req.Format == render.FormatJSON {
		return append(render.Marshal(doc, "", "  "), '\n'), nil
	}
	return []byte(escape.Text(doc.markdown(req.Explain))), nil
}

// builtinNote says where a built-in profile's answer comes from.
func builtinNote(name string, inBase bool) string {
	if inBase {
		return "The base has no voice profile named " + name + "; this is the one built into cairn. A file " + name + ".yaml in the base's voices folder would take its place."
	}
	return "This is the voice profile " + name + " built into cairn, answered outside any base."
}
