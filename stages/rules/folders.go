package rules

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// resolved is one content file and its answer.
type resolved struct {
	name string // the file's name inside its folder
	key  string // its place key: files sharing one share their answer
	ans  govern.Answer
}

// part is one answer written in a folder's section: the whole section for
// most folders, one per group of files when a folder's files get answers
// that write differently.
type part struct {
	files    []string
	patterns []string // what bound its files to their points (patternOf), in order
	ans      govern.Answer
	sig      string
}

// folder is a folder holding content files, or the root.
type folder struct {
	path  string // "" for the root
	files []resolved
	parts []part
	sig   string // what its section would write, as a comparable string
	ruled bool
	body  []string // the section's lines between intro and outro
}

// resolveFolders groups the content files by folder (the root always
// present), resolves each file, and groups a folder's files by what their
// sections would write. Folders come sorted by path, so a folder follows
// every folder above it.
func resolveFolders(r *govern.Resolver, content []model.ContentFile, day time.Time, placed map[string]string) []*folder {
	byPath := map[string]*folder{"": {path: ""}}
	// Most files of a tree share their answer with many others: resolve
	// once per place key.
	answers := map[string]govern.Answer{}
	for _, f := range content {
		dir := path.Dir(f.Path)
		if dir == "." {
			dir = ""
		}
		fo := byPath[dir]
		if fo == nil {
			fo = &folder{path: dir}
			byPath[dir] = fo
		}
		place := govern.Place{Path: f.Path, Point: f.Point}
		key := r.PlaceKey(place)
		ans, ok := answers[key]
		if !ok {
			ans = r.At(place, day)
			answers[key] = ans
		}
		ans.Path = f.Path
		ans.Notes = notesPlacedFor(ans.Notes, dir, placed)
		fo.files = append(fo.files, resolved{name: path.Base(f.Path), key: key, ans: ans})
	}
	sigs := map[string]string{} // place key → written signature
	out := make([]*folder, 0, len(byPath))
	for _, fo := range byPath {
		slices.SortFunc(fo.files, func(a, b resolved) int { return strings.Compare(a.name, b.name) })
		for _, f := range fo.files {
			sig, ok := sigs[f.key]
			if !ok {
				sig = writtenSig(f.ans)
				sigs[f.key] = sig
			}
			i := slices.IndexFunc(fo.parts, func(p part) bool { return p.sig == sig })
			if i < 0 {
				fo.parts = append(fo.parts, part{ans: f.ans, sig: sig})
				i = len(fo.parts) - 1
			}
			fo.parts[i].files = append(fo.parts[i].files, f.name)
			if pat := patternOf(f.ans); !slices.Contains(fo.parts[i].patterns, pat) {
				fo.parts[i].patterns = append(fo.parts[i].patterns, pat)
			}
		}
		var sigs []string
		for _, p := range fo.parts {
			sigs = append(sigs, p.sig)
		}
		slices.Sort(sigs)
		fo.sig = strings.Join(sigs, "\x1e")
		out = append(out, fo)
	}
	slices.SortFunc(out, func(a, b *folder) int { return strings.Compare(a.path, b.path) })
	return out
}

// writtenSig is what an answer writes into a section, as a comparable
// string: its voice, its rules and its notes. Suggestions, the point and
// the binding are never written, so they do not count.
func writtenSig(a govern.Answer) string {
	voice := ""
	if a.Voice != nil {
		voice = a.Voice.Name
	}
	rules := writableIDs(a.Terms)
	slices.Sort(rules)
	var notes []string
	for _, n := range a.Notes {
		notes = append(notes, n.Target)
	}
	slices.Sort(notes)
	return voice + "\x1f" + strings.Join(rules, ",") + "\x1f" + strings.Join(notes, ",")
}

// frame is what a part's lines are written relative to: the root's
// answer, and what the ruled folders above state.
type frame struct {
	root      govern.Answer
	rootRules map[string]bool // ids of the rules the root section states
	rootNotes map[string]bool // targets of the notes the root's answer holds
	// voice is the voice stated nearest above (the root's, or a ruled
	// folder's); notes are every note stated above.
	voice string
	notes []govern.Note
	// held are the ids of rules held in some part of this folder: the
	// folder's file says one thing about a wording, so none of them is
	// also kept as it is under another part.
	held map[string]bool
}

// voiceName is a voice's name, "" for none.
func voiceName(v *model.Voice) string {
	if v == nil {
		return ""
	}
	return v.Name
}

// writePart writes one part of a folder's section at the given heading
// level ("###" for a folder's only part, "####" under a part heading).
func writePart(s *section, level, folder string, p part, c frame) {
	a := p.ans
	// A voice written here (not the root's, nor the one above) brings its
	// own vocabulary into the list; one written above has said it.
	var voice *model.Voice
	if v := voiceName(a.Voice); v != "" && (v != voiceName(c.root.Voice) || v != c.voice) {
		s.voiceBlock(level, a.Voice)
		voice = a.Voice
	}
	var extra []govern.Term
	for _, t := range a.Terms {
		if govern.Writable(t) && !c.rootRules[t.ID] {
			extra = append(extra, t)
		}
	}
	s.block(level+" Say this, not that", capped(govern.RuleLinesFor(extra, voice), s.caps.rules, overflow("more rule holds here", "more rules hold here", folder, "lists them all")))
	var keep []string
	for _, t := range a.KeepAsIs {
		if !c.held[t.ID] {
			keep = append(keep, govern.KeepLine(t))
		}
	}
	s.block(level+" Keep as it is", capped(keep, s.caps.rules, overflow("more rule held elsewhere does not hold here", "more rules held elsewhere do not hold here", folder, "lists them all")))
	var own []govern.Note
	holds := map[string]bool{}
	for _, n := range a.Notes {
		holds[n.Target] = true
		if !c.rootNotes[n.Target] {
			own = append(own, n)
		}
	}
	s.block(level+" Notes a person kept", capped(govern.NoteLines(own), s.caps.notes, overflow("older note is not listed here", "older notes are not listed here", folder, "lists them all")))
	var away []govern.Note
	for _, n := range c.notes {
		if !holds[n.Target] {
			away = append(away, n)
		}
	}
	s.block(level+" The project's notes that do not hold for these files", capped(govern.NoteLines(away), s.caps.notes, overflow("more note above does not hold here", "more notes above do not hold here", folder, "lists the notes that do")))
}

// writeParts writes a folder's parts: the only part directly, several each
// under a heading naming the patterns its files are bound by.
func writeParts(s *section, folder string, parts []part, c frame) {
	if len(parts) == 1 {
		writePart(s, "###", folder, parts[0], c)
		return
	}
	for _, p := range parts {
		s.lines = append(s.lines, "")
		s.line(partHeading(p.patterns))
		writePart(s, "####", folder, p, c)
	}
}

// placeByEvidence finds the notes whose evidence is all in one folder's
// content files (a campaign's pages): such a note is written into that
// folder's file, not the root's, however wide its scope (seed 004). It
// maps each such note's target to the folder; evidence that is no
// content file (a record, a page of a layer) places nothing.
func placeByEvidence(notes []govern.Note, content []model.ContentFile) map[string]string {
	isContent := make(map[string]bool, len(content))
	for _, f := range content {
		isContent[f.Path] = true
	}
	placed := map[string]string{}
	for _, n := range notes {
		folder, ok := "", len(n.Evidence) > 0
		for i, e := range n.Evidence {
			p, _, _ := strings.Cut(e, "#")
			dir := path.Dir(p)
			if !isContent[p] || dir == "." {
				ok = false
				break
			}
			if i == 0 {
				folder = dir
			} else {
				folder = commonFolder(folder, dir)
			}
		}
		if ok && folder != "" {
			placed[n.Target] = folder
		}
	}
	return placed
}

// commonFolder is the deepest folder holding both a and b, "" for the root.
func commonFolder(a, b string) string {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return strings.Join(as[:n], "/")
}

// notesPlacedFor is notes as the files of folder dir are written: a note
// placed in a folder by its evidence only there and below.
func notesPlacedFor(notes []govern.Note, dir string, placed map[string]string) []govern.Note {
	if len(placed) == 0 {
		return notes
	}
	out := make([]govern.Note, 0, len(notes))
	for _, n := range notes {
		if f, ok := placed[n.Target]; ok && dir != f && !strings.HasPrefix(dir, f+"/") {
			continue
		}
		out = append(out, n)
	}
	return out
}
