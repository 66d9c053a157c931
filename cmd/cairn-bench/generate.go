package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// generatorVersion changes whenever the generator's output for the same
// parameters changes, so cached bases of an older generator are rebuilt.
const generatorVersion = 2

// genParams are the knobs of a synthetic base. Equal parameters give
// byte-identical trees on every machine.
type genParams struct {
	Records int    // event records in total, over every day and source
	Days    int    // event days
	Seed    uint64 // varies every random choice, never the shape
}

// genStats summarises a generated base.
type genStats struct {
	Records      int   `json:"records"`       // event records (= params.Records)
	IndexRecords int   `json:"index_records"` // records of index/ snapshots
	Documents    int   `json:"documents"`     // record documents
	Files        int   `json:"files"`         // every file of the base
	Bytes        int64 `json:"bytes"`         // their total size
}

// generate writes a synthetic base into dir, which must be missing or
// empty. Events documents are streamed, one record in memory at a time,
// and written in parallel: each has its own random stream, so the bytes
// do not depend on scheduling.
func generate(dir string, p genParams) (genStats, error) {
	if p.Records < 1 || p.Days < 1 {
		return genStats{}, fmt.Errorf("--records and --days must be at least 1")
	}
	if p.Days > 3650 {
		return genStats{}, fmt.Errorf("--days %d is over the 3650-day limit", p.Days)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return genStats{}, fmt.Errorf("%s is not empty; remove it or choose another --out", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return genStats{}, err
	}
	w := newWorld(p)

	var cells []cell
	for _, c := range w.cells {
		if c.count > 0 {
			cells = append(cells, c)
		}
	}
	errs := make([]error, len(cells))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range jobs {
				errs[i] = writeEventsDoc(dir, w, cells[i])
			}
		})
	}
	for i := range cells {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return genStats{}, err
	}

	files := []fileOut{
		{"cairn.yaml", cairnYAML(w)},
		{".gitignore", []byte(".cairn/\n")},
		{"README.md", readme(w)},
		{"index/repos.json", reposIndex(w)},
		{"governance/terms.yaml", termsYAML(w.terms)},
		{"governance/log.jsonl", logJSONL(w)},
	}
	for _, v := range voiceYAML {
		files = append(files, fileOut{"governance/voices/" + v[0] + ".yaml", []byte(v[1])})
	}
	files = append(files, wikiPages(w)...)
	files = append(files, projectPages(w)...)
	files = append(files, taskPages(w)...)
	files = append(files, contentFiles(w)...)
	files = append(files, bodies(w)...)
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return genStats{}, err
		}
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return genStats{}, err
		}
	}

	st := genStats{Records: p.Records, IndexRecords: len(w.repos), Documents: len(cells) + 1}
	st.Files, st.Bytes, _ = treeSize(dir, nil)
	return st, nil
}

// treeSize counts the regular files under dir and their bytes, skipping
// any path for which skip returns true (a folder's whole subtree).
func treeSize(dir string, skip func(rel string, d fs.DirEntry) bool) (files int, bytes int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if skip != nil && rel != "." && skip(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			files++
			bytes += info.Size()
		}
		return nil
	})
	return files, bytes, err
}
