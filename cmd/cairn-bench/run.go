package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runCommand is `cairn-bench run`: a base per size, every measurement on
// each, then the table and results.json.
func runCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run")
	bin := fs.String("bin", "", "the cairn binary to measure")
	sizes := fs.String("sizes", "10k,100k", "comma-separated record counts (10k, 100k, 1m, ...)")
	work := fs.String("work", "bench-out", "folder for cached bases and results.json")
	runs := fs.Int("runs", 3, "repetitions of each timed command (the median is reported)")
	seed := fs.Uint64("seed", 1, "generator seed")
	days := fs.Int("days", 10, "event days of each base")
	only := fs.String("only", "", "comma-separated measurements to run (e.g. \"context in a running server\"); default all")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	steps, err := selectMeasurements(*only)
	if err != nil {
		return usageError{err.Error()}
	}
	if *bin == "" {
		return usageError{"run needs --bin PATH/TO/cairn"}
	}
	if *runs < 1 {
		return usageError{"--runs must be at least 1"}
	}
	counts, err := parseSizes(*sizes)
	if err != nil {
		return usageError{err.Error()}
	}
	binPath, err := binaryPath(*bin, *work)
	if err != nil {
		return err
	}
	workAbs, err := filepath.Abs(*work)
	if err != nil {
		return err
	}
	res := newResults(binPath, *seed, *days, *runs)
	for _, n := range counts {
		p := genParams{Records: n, Days: *days, Seed: *seed}
		base, err := ensureBase(*work, p, stderr)
		if err != nil {
			return err
		}
		b := &bench{bin: binPath, base: base, runs: *runs, log: stderr, label: sizeLabel(n), work: workAbs,
			cache: filepath.Join(workAbs, "stat-cache-"+sizeLabel(n)), steps: steps}
		if err := b.measureAll(); err != nil {
			return fmt.Errorf("size %s: %w", b.label, err)
		}
		res.add(b)
	}
	res.printTable(stdout)
	out := filepath.Join(*work, "results.json")
	if err := res.write(out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", out)
	return nil
}

// cachedBase is a generated base under the work folder, with its stamp.
// The stamp is written after generation completes and removed while the
// benchmark edits the base, so a base is reused only when it is exactly
// what the generator wrote.
type cachedBase struct {
	dir    string
	stamp  string
	params genParams
	stats  genStats
}

// baseStamp is the content of a cached base's stamp file.
type baseStamp struct {
	Generator int      `json:"generator"`
	Records   int      `json:"records"`
	Days      int      `json:"days"`
	Seed      uint64   `json:"seed"`
	Stats     genStats `json:"stats"`
}

func (c cachedBase) writeStamp() error {
	data, err := json.MarshalIndent(baseStamp{generatorVersion, c.params.Records, c.params.Days, c.params.Seed, c.stats}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.stamp, append(data, '\n'), 0o644)
}

// ensureBase returns the cached base for p, generating it when it is
// missing, stale (another generator version) or was left mid-edit.
func ensureBase(work string, p genParams, log io.Writer) (cachedBase, error) {
	key := fmt.Sprintf("base-%s-d%d-s%d", sizeLabel(p.Records), p.Days, p.Seed)
	c := cachedBase{dir: filepath.Join(work, key), stamp: filepath.Join(work, key+".json"), params: p}
	if data, err := os.ReadFile(c.stamp); err == nil {
		var s baseStamp
		if json.Unmarshal(data, &s) == nil && s.Generator == generatorVersion &&
			s.Records == p.Records && s.Days == p.Days && s.Seed == p.Seed {
			if st, err := os.Stat(c.dir); err == nil && st.IsDir() {
				c.stats = s.Stats
				fmt.Fprintf(log, "%s: reusing %s\n", sizeLabel(p.Records), c.dir)
				return c, nil
			}
		}
	}
	os.Remove(c.stamp)
	if err := os.RemoveAll(c.dir); err != nil {
		return c, err
	}
	fmt.Fprintf(log, "%s: generating %s\n", sizeLabel(p.Records), c.dir)
	start := time.Now()
	st, err := generate(c.dir, p)
	if err != nil {
		return c, err
	}
	c.stats = st
	fmt.Fprintf(log, "%s: generated %d files, %d bytes in %.1fs\n", sizeLabel(p.Records), st.Files, st.Bytes, time.Since(start).Seconds())
	return c, c.writeStamp()
}

// bench is one size's benchmark: the binary, the base, and the metrics
// measured so far, in the order they were recorded.
type bench struct {
	bin   string
	base  cachedBase
	runs  int
	log   io.Writer
	label string
	work  string // the work folder, absolute: where peers' scratch files go
	input int64  // bytes of the base's inputs (everything but .cairn and rules files)
	// cache is the XDG_CACHE_HOME of every cairn child, so the machine-local
	// stat cache is the benchmark's own and a cold build can start without it.
	cache   string
	steps   []measurement // what to measure, in order; nil for all
	metrics []metric
}

// metric is one measured number. Samples holds the individual runs when
// Value summarises several.
type metric struct {
	Name    string    `json:"name"`
	Label   string    `json:"label"`
	Unit    string    `json:"unit"`
	Value   float64   `json:"value"`
	Samples []float64 `json:"samples,omitempty"`
	Target  string    `json:"target,omitempty"` // the SPEC §11 target, at 100k records
}

func (b *bench) record(m metric) { b.metrics = append(b.metrics, m) }

// measureAll runs every measurement in order against the base.
func (b *bench) measureAll() error {
	_, n, err := treeSize(b.base.dir, isBuildOutput)
	if err != nil {
		return err
	}
	b.input = n
	b.record(metric{Name: "records", Label: "records (events + index)", Unit: "count",
		Value: float64(b.base.stats.Records + b.base.stats.IndexRecords)})
	b.record(metric{Name: "base_bytes", Label: "base input bytes", Unit: "MB", Value: float64(n) / 1e6})
	steps := b.steps
	if steps == nil {
		steps = measurements
	}
	for _, m := range steps {
		fmt.Fprintf(b.log, "%s: %s\n", b.label, m.name)
		if err := m.run(b); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
	}
	return nil
}

// isBuildOutput reports the paths cairn writes into a base: .cairn/ and
// the generated rules files. The generator writes neither.
func isBuildOutput(rel string, d fs.DirEntry) bool {
	if d.IsDir() {
		return rel == ".cairn"
	}
	name := filepath.Base(rel)
	return name == "AGENTS.md" || name == "CLAUDE.md"
}

// childRun is one finished cairn process.
type childRun struct {
	wall   time.Duration
	cpu    time.Duration // user + system time of the process
	rssKiB int64
	stdout []byte
}

// cairn runs the binary on the base with args and waits for it. A non-zero
// exit is an error carrying the child's stderr.
func (b *bench) cairn(args ...string) (childRun, error) {
	full := append([]string{"--base", b.base.dir}, args...)
	cmd := exec.Command(b.bin, full...)
	if b.cache != "" {
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+b.cache)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		var ee *exec.ExitError
		msg := strings.TrimRight(stderr.String(), "\n")
		if errors.As(err, &ee) {
			return childRun{}, fmt.Errorf("%s %s exited with status %d:\n%s", b.bin, strings.Join(full, " "), ee.ExitCode(), msg)
		}
		return childRun{}, fmt.Errorf("%s %s: %w", b.bin, strings.Join(full, " "), err)
	}
	return childRun{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		rssKiB: peakRSSKiB(cmd.ProcessState), stdout: stdout.Bytes()}, nil
}

// repeat runs cairn args b.runs times, calling before ahead of each run
// (untimed), and returns the runs.
func (b *bench) repeat(before func(i int) error, args ...string) ([]childRun, error) {
	var out []childRun
	for i := range b.runs {
		if before != nil {
			if err := before(i); err != nil {
				return nil, err
			}
		}
		r, err := b.cairn(args...)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// binaryPath is the absolute path of the cairn binary --bin names, once
// it is known to be a file, and makes the work folder.
func binaryPath(bin, work string) (string, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return "", fmt.Errorf("--bin %s is not a file; build it first (go build -o cairn ./cmd/cairn)", bin)
	}
	return abs, os.MkdirAll(work, 0o755)
}
