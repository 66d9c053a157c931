package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// fts5Build is the peer's build: a Python script, standard library only,
// that reads the same record documents and pages through the same fields
// maps into one SQLite FTS5 table (see its docstring). It is written into
// the work folder and run with python3.
//
//go:embed fts5_build.py
var fts5Build []byte

// measureColdBuildPaired runs cairn's cold build and the FTS5 script on
// the same base, interleaved (cairn, script, cairn, script, …) so that
// both see the same machine load, and records the CPU time (user +
// system) of each and their ratio: the figure SPEC §11 sets at most 1.0.
func measureColdBuildPaired(b *bench) error {
	python, err := exec.LookPath("python3")
	if err != nil {
		return fmt.Errorf("the FTS5 peer needs python3 on PATH: %w", err)
	}
	script := filepath.Join(b.work, "fts5_build.py")
	if err := os.WriteFile(script, fts5Build, 0o644); err != nil {
		return err
	}
	db := filepath.Join(b.work, "fts5-"+b.label+".db")
	defer os.Remove(db)
	var cairnCPU, peerCPU, ratios, peerRSS []float64
	for range b.runs {
		if err := os.RemoveAll(b.cache); err != nil {
			return err
		}
		if err := removeBuildOutputs(b.base.dir); err != nil {
			return err
		}
		c, err := b.cairn("build", "--quiet")
		if err != nil {
			return err
		}
		p, err := runPeer(python, script, b.base.dir, db)
		if err != nil {
			return err
		}
		cairnCPU = append(cairnCPU, c.cpu.Seconds())
		peerCPU = append(peerCPU, p.cpu.Seconds())
		ratios = append(ratios, c.cpu.Seconds()/p.cpu.Seconds())
		peerRSS = append(peerRSS, float64(p.rssKiB)/1024)
	}
	b.record(metric{Name: "paired_cold_build_cpu_s", Label: "cold build CPU, paired", Unit: "s", Value: median(cairnCPU), Samples: cairnCPU})
	b.record(metric{Name: "fts5_build_cpu_s", Label: "FTS5 script CPU (user+sys)", Unit: "s", Value: median(peerCPU), Samples: peerCPU})
	b.record(metric{Name: "cold_build_cpu_ratio", Label: "cold build CPU / FTS5 script's", Unit: "ratio", Value: median(ratios), Samples: ratios, Target: "<= 1"})
	b.record(metric{Name: "fts5_build_peak_rss_mib", Label: "FTS5 script peak RSS", Unit: "MiB", Value: median(peerRSS)})
	return nil
}

// runPeer runs the FTS5 script on base into db and waits for it.
func runPeer(python, script, base, db string) (childRun, error) {
	cmd := exec.Command(python, script, base, db)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return childRun{}, fmt.Errorf("%s %s: %w\n%s", filepath.Base(script), base, err, strings.TrimSpace(stderr.String()))
	}
	return childRun{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		rssKiB: peakRSSKiB(cmd.ProcessState)}, nil
}
