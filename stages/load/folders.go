package load

import (
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Freshness without a walk. A query needs the corpus's inputs to tell
// whether the index is current; listing the folders that hold them costs
// it more than anything else it does on a base of many folders (an event
// folder a day). So a walk logs each folder of the corpus trees with its
// modification time, taken before the folder is listed, and those stamps
// go into this machine's stat cache beside the files' (artifacts.StatCache,
// a folder's row being its path and a slash). A folder's modification time
// changes whenever an entry is added to it, removed or renamed, so while
// every logged folder keeps its stamp, the files the cache lists are all
// there is, and a query stats them (statTake) instead of listing folders.
// Anything unexpected sends it back to the walk.

// folderLog collects the folders a walk meets, from as many goroutines
// as walk. A nil log records nothing.
type folderLog struct {
	mu     sync.Mutex
	stamps map[string]int64 // base-relative path → modification time, ns
}

func newFolderLog() *folderLog { return &folderLog{stamps: map[string]int64{}} }

// add logs the folder at p.
func (l *folderLog) add(p string, mtimeNS int64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.stamps[p] = mtimeNS
	l.mu.Unlock()
}

// addFolderRows puts the logged folders of the corpus trees of cfg into c,
// the stat cache of entries, when c vouches for every corpus input and the
// configuration: only then is a listing rebuilt from its rows complete. A
// folder's row holds its modification time and artifacts.FolderMark. A
// folder behind a link gets no row (the walk does not enter it), so
// nothing below it is listed from the rows either, as the walk lists
// nothing there.
func addFolderRows(c artifacts.StatCache, entries []entry, log *folderLog, cfg model.Config) {
	if log == nil || c == nil {
		return
	}
	for _, e := range entries {
		if e.kind != kindConfig && e.kind.group() != GroupCorpus {
			continue
		}
		if _, ok := c[e.path]; !ok || e.symlink {
			return
		}
	}
	trees := map[string]bool{}
	for _, t := range TakenFolders(cfg) {
		trees[t] = true
	}
	for p, mtime := range log.stamps {
		if trees[strings.SplitN(p, "/", 2)[0]] {
			c[p+"/"] = artifacts.StatEntry{MtimeNS: mtime, XXHash: artifacts.FolderMark}
		}
	}
}
