package rules

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// planFiles decides, for every ruled folder, which of its AGENTS.md and
// CLAUDE.md carry the section, and for every other rules file holding a
// section, whether it is rewritten without it or deleted. It fills
// out.Files, Release, Delete and After, and returns the files carrying
// each folder's section. The steps run in this order because each reads
// what the one before decided: a file that carries a section is not
// released, and After needs every write and delete.
func planFiles(existing []model.RulesFile, twins map[string]string, sections map[string]string, out *Output, ds *diag.List) map[string][]string {
	p := newFilePlan(existing, out, ds)
	carriers := p.carrySections(sections, twins)
	p.releaseOthers()
	p.recordAfter()
	return carriers
}

// filePlan is planFiles' working state: the rules files found, and what
// Sync will leave in each file cairn writes or deletes.
type filePlan struct {
	existing []model.RulesFile
	byPath   map[string]model.RulesFile
	after    map[string]string // path → text after Sync, for every file cairn writes
	deleted  map[string]bool   // files cairn deletes
	out      *Output
	ds       *diag.List
}

// newFilePlan indexes the rules files found by path.
func newFilePlan(existing []model.RulesFile, out *Output, ds *diag.List) *filePlan {
	byPath := map[string]model.RulesFile{}
	for _, f := range existing {
		byPath[f.Path] = f
	}
	return &filePlan{existing: existing, byPath: byPath, after: map[string]string{}, deleted: map[string]bool{}, out: out, ds: ds}
}

// carrySections writes each folder's section, in folder order, into the
// files that carry it, except where a content file differs from the rules
// file's name only in case.
func (p *filePlan) carrySections(sections, twins map[string]string) map[string][]string {
	carriers := map[string][]string{}
	for _, folder := range slices.Sorted(maps.Keys(sections)) {
		for _, f := range carrying(folder, p.byPath, p.ds) {
			if other, ok := twins[f]; ok {
				p.ds.Warnf(other, 0, 0, "rules-name-case", "%s differs from %s only in case; cairn does not write %s here, since on a case-insensitive file system it would replace this file; rename this file to %s to have cairn keep your text around its section", path.Base(other), path.Base(f), path.Base(f), path.Base(f))
				continue
			}
			text := splice(p.byPath[f].Text, sections[folder])
			p.out.Files = append(p.out.Files, artifacts.File{Path: f, Data: []byte(text)})
			p.after[f] = text
			carriers[folder] = append(carriers[folder], f)
		}
	}
	return carriers
}

// releaseOthers takes cairn's section out of every rules file that holds
// one but carries none now: deleted when the section is all it holds,
// otherwise rewritten without it. Links are left to the file they name.
func (p *filePlan) releaseOthers() {
	linkedTo := p.linkTargets()
	for _, f := range p.existing {
		if _, carried := p.after[f.Path]; carried || artifacts.RulesSectionOf([]byte(f.Text)) == nil {
			continue
		}
		if f.Symlink {
			if twin(f, p.byPath) == "" {
				p.ds.Warnf(f.Path, 0, 0, "rules-link", "this link shows a cairn section that is not this folder's (it is the section of the file the link points to), and cairn does not write through links; replace the link with a file of its own, or remove it")
			}
			continue // a link to the rules file beside it follows that file
		}
		if holdsOnlySection(f.Text) && !linkedTo[f.Path] {
			p.out.Delete = append(p.out.Delete, f.Path)
			p.deleted[f.Path] = true
			continue
		}
		text := splice(f.Text, "")
		p.out.Release = append(p.out.Release, artifacts.File{Path: f.Path, Data: []byte(text)})
		p.after[f.Path] = text
	}
}

// linkTargets is the set of rules files a link beside them points to. Such
// a file is never deleted, only emptied of the section: deleting it would
// leave the link dangling, and the next build would refuse it.
func (p *filePlan) linkTargets() map[string]bool {
	linkedTo := map[string]bool{}
	for _, f := range p.existing {
		if other := twin(f, p.byPath); f.Symlink && other != "" {
			linkedTo[other] = true
		}
	}
	return linkedTo
}

// recordAfter fills out.After with the rules files as Sync leaves them (the
// existing ones not deleted, and the new ones), sorted by path. A link
// to the rules file beside it reads what that file will hold; a hard link
// does not survive an atomic write of either name.
func (p *filePlan) recordAfter() {
	for _, f := range p.existing {
		if p.deleted[f.Path] {
			continue
		}
		text, wrote := p.after[f.Path]
		if !wrote {
			text = f.Text
		}
		if other := twin(f, p.byPath); f.Symlink && other != "" {
			if p.deleted[other] {
				continue // the link dangles; load will not see it as a file
			}
			if t, ok := p.after[other]; ok {
				text = t
			}
		}
		// A link survives the write of the file it names; a hard link
		// does not survive the write of either name.
		agents := path.Join(path.Dir(f.Path), artifacts.AgentsFile)
		_, agentsWritten := p.after[agents]
		linked := f.Symlink || p.byPath[agents].Symlink
		same := f.SameAsAgents && (linked || (!wrote && !agentsWritten && !p.deleted[agents]))
		p.out.After = append(p.out.After, model.RulesFile{Path: f.Path, Text: text, Symlink: f.Symlink, SameAsAgents: same})
	}
	for _, f := range slices.Sorted(maps.Keys(p.after)) {
		if _, ok := p.byPath[f]; !ok {
			p.out.After = append(p.out.After, model.RulesFile{Path: f, Text: p.after[f]})
		}
	}
	slices.SortFunc(p.out.After, func(a, b model.RulesFile) int { return strings.Compare(a.Path, b.Path) })
}

// twin returns the rules file beside f that is the same file as f (the
// AGENTS.md of a CLAUDE.md, or the reverse), or "".
func twin(f model.RulesFile, byPath map[string]model.RulesFile) string {
	dir := path.Dir(f.Path)
	a, c := path.Join(dir, artifacts.AgentsFile), path.Join(dir, artifacts.ClaudeFile)
	switch {
	case f.Path == c && f.SameAsAgents:
		return a
	case f.Path == a && byPath[c].SameAsAgents:
		return c
	}
	return ""
}

// carrying lists the files of a ruled folder that carry its section:
// AGENTS.md, and CLAUDE.md unless it imports AGENTS.md or is the same file.
// cairn never writes through a link (an atomic write would replace the
// link itself), so a linked AGENTS.md is left to the file it links to, or
// reported.
func carrying(folder string, byPath map[string]model.RulesFile, ds *diag.List) []string {
	a, c := path.Join(folder, artifacts.AgentsFile), path.Join(folder, artifacts.ClaudeFile)
	A, hasA := byPath[a]
	C, hasC := byPath[c]
	var out []string
	where := display(folder)
	switch {
	case hasA && A.Symlink && hasC && C.SameAsAgents && !C.Symlink:
		return []string{c} // AGENTS.md links to CLAUDE.md: the real file carries it
	case hasA && A.Symlink:
		ds.Warnf(a, 0, 0, "rules-link", "AGENTS.md is a link, and cairn does not write through links, so the rules for %s are not written in it; replace the link with a file", where)
	default:
		out = append(out, a)
	}
	switch {
	case !hasC:
		out = append(out, c)
	case artifacts.ImportsAgents([]byte(C.Text)):
	case C.SameAsAgents && C.Symlink:
	case C.SameAsAgents:
		// A hard link to AGENTS.md: writing AGENTS.md atomically breaks
		// it, so CLAUDE.md gets the same bytes of its own.
		out = append(out, c)
	case C.Symlink:
		ds.Warnf(c, 0, 0, "rules-link", "CLAUDE.md is a link to another file than the AGENTS.md beside it, and cairn does not write through links, so the rules for %s are not written in it; replace the link with a file or with the line @AGENTS.md", where)
	default:
		out = append(out, c)
	}
	return out
}

// caseTwins maps the rules file cairn would write in a folder (AGENTS.md,
// CLAUDE.md) to a content file there whose name differs from it only in
// case (claude.md): on a case-insensitive file system the two names are
// one file, and writing the rules file would replace the user's.
func caseTwins(content []model.ContentFile) map[string]string {
	out := map[string]string{}
	for _, f := range content {
		base := path.Base(f.Path)
		for _, name := range []string{artifacts.AgentsFile, artifacts.ClaudeFile} {
			if base != name && strings.EqualFold(base, name) {
				out[path.Join(path.Dir(f.Path), name)] = f.Path
			}
		}
	}
	return out
}
