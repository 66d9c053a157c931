package load

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// GovernanceMemo remembers what ReadGovernance read, for a long-lived
// process that reads a base's governance per request (cairn mcp): while
// every file that read looked at has the size, mode and modification time
// it had then, the next read is the same answer and is not parsed again.
// A file modified in the last settle seconds is never trusted this way,
// since a second write within the clock's resolution could keep its
// stat. The Governance it hands out is shared, as every reader of one
// treats it: read only. Its zero value is ready; it is safe for
// concurrent use.
type GovernanceMemo struct {
	mu  sync.Mutex
	sig []statSig // what the remembered read looked at, as it was
	dir string    // the governance folder of the remembered read
	g   Governance
}

// statSig is one file or folder entry a governance read depends on; a
// missing file is its path alone.
type statSig struct {
	path  string
	size  int64
	mtime int64
	mode  fs.FileMode
}

// settle is how recent a modification must not be for a read to be
// remembered.
const settle = 2 * time.Second

// Read is ReadGovernance, answered from memory while nothing it read has
// changed. A nil memo reads every time.
func (m *GovernanceMemo) Read(fsys fs.FS) Governance {
	if m == nil {
		return ReadGovernance(fsys)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	dir := m.dir
	if dir == "" {
		dir = model.DefaultLayers.Governance
	}
	before, settled := governanceSig(fsys, dir)
	if m.sig != nil && slices.Equal(before, m.sig) {
		return m.g
	}
	g := ReadGovernance(fsys)
	m.dir, m.sig = g.Config.WithDefaults().Layers.Governance, nil
	// Remembered only when the files read are the ones stat saw before and
	// after the read, settled, in the folder this read found.
	if after, ok := governanceSig(fsys, m.dir); settled && ok && m.dir == dir && slices.Equal(before, after) {
		m.sig, m.g = after, g
	}
	return g
}

// governanceSig stats what ReadGovernance reads, given the governance
// folder: the configuration, the voices folder and each of its entries,
// the terms store and the notes log. It reports false when one of them
// was modified less than settle ago.
func governanceSig(fsys fs.FS, dir string) ([]statSig, bool) {
	now := time.Now()
	settled := true
	var out []statSig
	add := func(p string, info fs.FileInfo, err error) {
		if err != nil {
			out = append(out, statSig{path: p})
			return
		}
		if now.Sub(info.ModTime()) < settle {
			settled = false
		}
		out = append(out, statSig{path: p, size: info.Size(), mtime: info.ModTime().UnixNano(), mode: info.Mode()})
	}
	for _, p := range []string{ConfigFile, FkfConfigFile, path.Join(dir, "terms.yaml"), path.Join(dir, "log.jsonl")} {
		info, err := fs.Stat(fsys, p)
		add(p, info, err)
	}
	voices := path.Join(dir, "voices")
	info, err := fs.Stat(fsys, voices)
	add(voices, info, err)
	entries, err := fs.ReadDir(fsys, voices)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		settled = false // an error now may be another answer next time
	}
	for _, e := range entries {
		info, err := e.Info()
		add(path.Join(voices, e.Name()), info, err)
	}
	return out, settled
}
