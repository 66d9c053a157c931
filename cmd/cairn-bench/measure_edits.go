package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The incremental measurements: each changes the base the way a user's
// day does (a new day collected, a page edited, a record edited and asked
// about before any build), times what follows, and restores the base,
// rebuilt and stamped, for the measurements after it. Each build's CPU is
// also given as a share of a cold build's (cold_build_cpu_s), the figure
// SPEC §11 sets at most 10%.

// newDayRecords is the size of the measured new day: one source's
// document of a quiet day.
const newDayRecords = 10

// measureNewDay adds one events day of newDayRecords tickets after the
// base's last day and times the build that takes it in. Before each run
// the day is removed and the base rebuilt, untimed.
func measureNewDay(b *bench) error {
	p := b.base.params
	p.Days++
	w := newWorld(p)
	day := w.days[p.Days-1]
	dir := filepath.Join(b.base.dir, "events", day)
	return b.alterAndBuild("new_day", "a new day of 10 records", func(int) error {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if _, err := b.cairn("build", "--quiet"); err != nil {
			return err
		}
		return writeEventsDoc(b.base.dir, w, cell{day: p.Days - 1, source: "tickets", count: newDayRecords})
	}, func() error { return os.RemoveAll(dir) })
}

// measurePageEdit appends a sentence to one wiki page (a different one
// each run) and times the rebuild.
func measurePageEdit(b *bench) error {
	w := newWorld(b.base.params)
	path := filepath.Join(b.base.dir, "wiki", w.wiki[len(w.wiki)/2]+".md")
	orig, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return b.alterAndBuild("page_edit", "one wiki page edited", func(i int) error {
		edited := fmt.Appendf(append([]byte(nil), orig...), "\nEdited by cairn-bench run %d: pagebenchedit%d.\n", i+1, i+1)
		return os.WriteFile(path, edited, 0o644)
	}, func() error { return os.WriteFile(path, orig, 0o644) })
}

// alterAndBuild runs b.runs builds, each after alter(i), records their
// wall time, CPU and CPU as a share of the cold build's under name, then
// restores the base with restore, rebuilds it and writes its stamp back.
func (b *bench) alterAndBuild(name, label string, alter func(i int) error, restore func() error) error {
	var runs []childRun
	err := b.altered(func() (err error) {
		runs, err = b.repeat(alter, "build", "--quiet")
		return err
	}, restore)
	if err != nil {
		return err
	}
	ms := durations(runs, time.Millisecond)
	cpu := cpuSeconds(runs)
	b.record(metric{Name: name + "_build_ms", Label: label + " rebuild", Unit: "ms", Value: median(ms), Samples: ms})
	b.record(metric{Name: name + "_build_cpu_s", Label: label + " rebuild CPU", Unit: "s", Value: median(cpu), Samples: cpu})
	if cold, ok := b.value("cold_build_cpu_s"); ok {
		b.record(metric{Name: name + "_cpu_share", Label: label + " CPU / cold build's", Unit: "ratio", Value: median(cpu) / cold, Target: "<= 0.1"})
	}
	b.record(metric{Name: name + "_build_peak_rss_mib", Label: label + " peak RSS", Unit: "MiB", Value: peakMiB(runs)})
	return nil
}

// measureQueryAfterEdit edits one record and asks, before any build, the
// benchmark's first question, then asks it again once the base is rebuilt:
// the ratio of the two is what an agent pays for asking between an edit
// and the next build (SPEC §11: at most 3).
func measureQueryAfterEdit(b *bench) error {
	rel, path, orig, err := editDocument(b.base)
	if err != nil {
		return err
	}
	args := contextArgs(contextQueries(b.base.params)[0], lastDay(b.base.params).Format(time.DateOnly))
	var stale, fresh []float64
	err = b.altered(func() error { return b.askAroundEdits(rel, path, orig, args, &stale, &fresh) },
		func() error { return os.WriteFile(path, orig, 0o644) })
	if err != nil {
		return err
	}
	ratios := make([]float64, len(stale))
	for i := range stale {
		ratios[i] = stale[i] / fresh[i]
	}
	b.record(metric{Name: "context_after_edit_ms", Label: "context after an unbuilt edit", Unit: "ms", Value: median(stale), Samples: stale})
	b.record(metric{Name: "context_after_edit_ratio", Label: "context after an unbuilt edit / indexed", Unit: "ratio", Value: median(ratios), Samples: ratios, Target: "<= 3"})
	return nil
}

// askAroundEdits edits the document at path (rel in the base, orig its
// bytes) once per run and asks args before the build that follows and
// after it, appending each query's wall time in ms to stale and fresh.
func (b *bench) askAroundEdits(rel, path string, orig []byte, args []string, stale, fresh *[]float64) error {
	for i := range b.runs {
		edited, err := editOneRecord(orig, "summary", fmt.Sprintf("Edited by cairn-bench query run %d: querybenchedit%d", i+1, i+1))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			return err
		}
		// Dated an hour back (a second apart per run), as an edit is by
		// the time a build and the queries after it see it: one just
		// written is racy to the stat cache, which would make the
		// rebuilt query below hash and walk again, not read as indexed.
		past := time.Now().Add(-time.Hour + time.Duration(i)*time.Second)
		if err := os.Chtimes(path, past, past); err != nil {
			return err
		}
		r, err := b.cairn(args...)
		if err != nil {
			return err
		}
		*stale = append(*stale, float64(r.wall)/float64(time.Millisecond))
		if _, err := b.cairn("build", "--quiet"); err != nil {
			return err
		}
		if r, err = b.cairn(args...); err != nil {
			return err
		}
		*fresh = append(*fresh, float64(r.wall)/float64(time.Millisecond))
	}
	return nil
}

// altered runs work on a base it changes, then restores the base with
// restore, rebuilds it untimed and stamps it again, so the measurements
// after it see fresh artifacts of the generated base. While the base
// differs from what the generator wrote it has no stamp: an interrupted
// benchmark regenerates it next time.
func (b *bench) altered(work, restore func() error) error {
	if err := os.Remove(b.base.stamp); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := work(); err != nil {
		return err
	}
	if err := restore(); err != nil {
		return err
	}
	if _, err := b.cairn("build", "--quiet"); err != nil {
		return err
	}
	return b.base.writeStamp()
}

// editDocument is the document the record edits rewrite (editTarget):
// its path in the base, on disk, and its bytes as generated.
func editDocument(c cachedBase) (rel, path string, orig []byte, err error) {
	if rel, err = editTarget(c); err != nil {
		return "", "", nil, err
	}
	path = filepath.Join(c.dir, filepath.FromSlash(rel))
	orig, err = os.ReadFile(path)
	return rel, path, orig, err
}

// cpuSeconds is each run's user + system time, in seconds.
func cpuSeconds(runs []childRun) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.cpu.Seconds()
	}
	return out
}

// value is the value of the metric recorded under name, if any.
func (b *bench) value(name string) (float64, bool) {
	for _, m := range b.metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}
