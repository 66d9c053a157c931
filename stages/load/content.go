package load

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// loadContent reads the project's own content files: the text term usage is
// counted in, and the frontmatter point: that binds a file to a point. A
// file that prev says was counted as it is now is not read; it comes back
// in kept instead, with the point the previous build recorded and no text.
// A file the scan left unread (see changed) is hashed as it is read: its
// stamp is in stamps.
func loadContent(fsys fs.FS, cfg model.Config, entries []entry, prev *counted, p *progress, ds *diag.List) (read, kept []model.ContentFile, stamps []artifacts.FileStamp) {
	points := map[string]bool{}
	for _, p := range cfg.Governance.Points {
		points[p.Name] = true
	}
	for _, e := range entries {
		if e.kind != kindContent {
			continue
		}
		if prev.unchanged(e) {
			kept = append(kept, model.ContentFile{Path: e.path, Point: prev.points[e.path]})
			continue
		}
		data, ok := readFileRaw(fsys, e.path, MaxContentBytes, ds)
		p.step()
		if !ok {
			continue
		}
		if e.unread {
			stamps = append(stamps, artifacts.FileStamp{Path: e.path, Bytes: int64(len(data)), XXHash: artifacts.Hash(data)})
		}
		data = bytes.TrimPrefix(data, []byte(bom))
		fm, _, _, ok := decodeFrontmatter(e.path, data, ds)
		if !ok {
			continue
		}
		if fm.Point != "" && !points[fm.Point] {
			ds.Errorf(e.path, 2, 1, "unknown-point", "point %q is not declared in cairn.yaml governance.points; declare it or fix the name", fm.Point)
		}
		read = append(read, model.ContentFile{Path: e.path, Point: fm.Point, Text: string(data)})
	}
	return read, kept, stamps
}

// counted is what the previous build counted that still holds: the inputs
// its manifest records and the rows of its usage.tsv.
type counted struct {
	inputs []artifacts.FileStamp // sorted by path
	usage  []artifacts.TermUsage
	points map[string]string // content path → its point, from content.tsv
}

// previousCounts returns what the previous build counted, when it can
// stand for this build's reading: the manifest names usage.tsv, the file
// has the bytes the manifest records, and neither the configuration (what
// is content, which points exist) nor the terms store has changed since.
// A content file whose bytes that manifest records was then validated and
// counted by that build, as it is now. Otherwise it returns nil, and every
// content file is read.
//
// Only successful builds write a manifest, so the previous one never
// records a content file that had a mistake.
func previousCounts(fsys fs.FS, prev *artifacts.Manifest, cfgHash string, entries []entry, cfg model.Config) *counted {
	if prev == nil || prev.Format != artifacts.FormatVersion {
		return nil
	}
	stamp, ok := prev.Output(artifacts.UsagePath)
	if !ok {
		return nil
	}
	c := &counted{inputs: prev.Inputs}
	was, ok := c.input(ConfigFile)
	if !ok {
		was, ok = c.input(FkfConfigFile)
	}
	if !ok || was.XXHash != cfgHash {
		return nil
	}
	gov := cfg.Layers.Governance
	if gov == "" {
		gov = model.DefaultLayers.Governance
	}
	termsPath := path.Join(gov, "terms.yaml")
	was, inPrev := c.input(termsPath)
	i := slices.IndexFunc(entries, func(e entry) bool { return e.kind == kindTerms })
	switch {
	case i < 0 && inPrev, i >= 0 && !inPrev:
		return nil
	case i >= 0 && (entries[i].path != termsPath || entries[i].hash != was.XXHash):
		return nil
	}
	data, ok := readStamped(fsys, stamp)
	if !ok {
		return nil
	}
	var err error
	if c.usage, err = artifacts.DecodeUsage(data); err != nil {
		return nil
	}
	// A file not read again keeps the point the previous build read.
	stamp, ok = prev.Output(artifacts.ContentPath)
	if !ok {
		return nil
	}
	if data, ok = readStamped(fsys, stamp); !ok {
		return nil
	}
	files, err := artifacts.DecodeContent(data)
	if err != nil {
		return nil
	}
	c.points = make(map[string]string, len(files))
	for _, f := range files {
		c.points[f.Path] = f.Point
	}
	return c
}

// readStamped reads a previous output when it still has the bytes its
// stamp records. The size is checked before reading, so a file swapped
// for something large is never read whole.
func readStamped(fsys fs.FS, stamp artifacts.FileStamp) ([]byte, bool) {
	data, err := ReadCapped(fsys, stamp.Path, stamp.Bytes)
	if err != nil || int64(len(data)) != stamp.Bytes || artifacts.Hash(data) != stamp.XXHash {
		return nil, false
	}
	return data, true
}

// input returns the previous build's stamp of an input.
func (c *counted) input(p string) (artifacts.FileStamp, bool) {
	i, ok := slices.BinarySearchFunc(c.inputs, p, func(s artifacts.FileStamp, p string) int { return strings.Compare(s.Path, p) })
	if !ok {
		return artifacts.FileStamp{}, false
	}
	return c.inputs[i], true
}

// unchanged reports whether the previous build counted e with the bytes it
// has now. A nil counted holds nothing.
func (c *counted) unchanged(e entry) bool {
	if c == nil || e.hash == "" {
		return false
	}
	was, ok := c.input(e.path)
	return ok && was.XXHash == e.hash
}

// usageOf returns the previous counts of the files in paths (sorted), and
// only those: a file that changed is counted again, one that is gone is
// not counted at all.
func (c *counted) usageOf(kept []model.ContentFile) []artifacts.TermUsage {
	if c == nil || len(kept) == 0 {
		return nil
	}
	paths := make([]string, len(kept))
	for i, f := range kept {
		paths[i] = f.Path
	}
	out := make([]artifacts.TermUsage, 0, len(c.usage))
	for _, t := range c.usage {
		k := artifacts.TermUsage{Term: t.Term}
		for _, u := range t.Uses {
			if _, ok := slices.BinarySearch(paths, u.Path); ok {
				k.Uses = append(k.Uses, u)
				k.Total += u.Count
			}
		}
		out = append(out, k)
	}
	return out
}
