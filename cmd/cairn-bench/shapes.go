package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Linearity bounds of the shapes benchmark (issue 19): a shape may load
// at most shapeMaxSlowdown times slower per byte than the indented
// reference at the same size, and a shape's 100 MB base at most
// shapeMaxGrowth times slower per byte than its 10 MB one.
const (
	shapeMaxSlowdown = 3.0
	shapeMaxGrowth   = 1.5
)

// shapeRow is one shape at one size: what results.json-style tools read
// from shapes.json.
type shapeRow struct {
	Shape      string    `json:"shape"`
	SizeMB     int       `json:"size_mb"`
	InputBytes int64     `json:"input_bytes"`
	Documents  int       `json:"documents"`
	Records    int       `json:"records"`
	LoadMBps   float64   `json:"load_mb_per_s"`  // input MB / the build's load stage (median)
	BuildMBps  float64   `json:"build_mb_per_s"` // input MB / the whole cold build's wall time (median)
	CPUMBps    float64   `json:"cpu_mb_per_s"`   // input MB / its user + system CPU time (median)
	LoadMS     []float64 `json:"load_ms"`
	BuildMS    []float64 `json:"build_ms"`
	CPUMS      []float64 `json:"cpu_ms"`
	PeakRSSMiB float64   `json:"peak_rss_mib"`
	// VsIndented is the indented shape's CPU MB/s over this one's at
	// the same size; Growth is this shape's CPU MB/s at the smallest size
	// over this one's (0 at the smallest size).
	VsIndented float64 `json:"vs_indented"`
	Growth     float64 `json:"growth"`
}

// shapesCommand is `cairn-bench shapes`: for each shape and size, a cold
// build of a base of that shape, timed by stage, with the linearity
// checks of issue 19. It exits 1 when a check fails.
func shapesCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("shapes")
	bin := fs.String("bin", "", "the cairn binary to measure")
	sizes := fs.String("sizes", "10,100", "comma-separated sizes in MB of record documents")
	only := fs.String("shapes", strings.Join(shapes, ","), "comma-separated shapes")
	work := fs.String("work", "bench-out", "folder for cached bases and shapes.json")
	runs := fs.Int("runs", 3, "cold builds of each base (the median is reported)")
	seed := fs.Uint64("seed", 1, "generator seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *bin == "" {
		return usageError{"shapes needs --bin PATH/TO/cairn"}
	}
	if *runs < 1 {
		return usageError{"--runs must be at least 1"}
	}
	mbs, err := parseMBs(*sizes)
	if err != nil {
		return usageError{err.Error()}
	}
	want, err := parseShapes(*only)
	if err != nil {
		return usageError{err.Error()}
	}
	binPath, err := binaryPath(*bin, *work)
	if err != nil {
		return err
	}
	var rows []shapeRow
	for _, mb := range mbs {
		for _, shape := range want {
			row, err := measureShape(binPath, *work, shape, mb, *seed, *runs, stderr)
			if err != nil {
				return fmt.Errorf("%s at %d MB: %w", shape, mb, err)
			}
			rows = append(rows, row)
		}
	}
	failed := compareShapes(rows)
	printShapes(stdout, rows)
	data, err := json.MarshalIndent(struct {
		Version int        `json:"shapes_version"`
		Bin     string     `json:"bin"`
		Runs    int        `json:"runs"`
		Rows    []shapeRow `json:"rows"`
	}{shapesVersion, binPath, *runs, rows}, "", "  ")
	if err != nil {
		return err
	}
	out := filepath.Join(*work, "shapes.json")
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", out)
	if len(failed) > 0 {
		return fmt.Errorf("not linear: %s", strings.Join(failed, "; "))
	}
	return nil
}

// parseMBs reads a comma-separated list of sizes in MB.
func parseMBs(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 || n > 10000 {
			return nil, fmt.Errorf("invalid size %q; give sizes in MB like 10,100", part)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--sizes is empty; give sizes in MB like 10,100")
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseShapes reads a comma-separated list of shapes, in the order of
// shapes; the reference is always measured, since every other is
// compared with it.
func parseShapes(s string) ([]string, error) {
	asked := map[string]bool{shapeIndented: true}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		if !slices.Contains(shapes, part) {
			return nil, fmt.Errorf("unknown shape %q; use one of: %s", part, strings.Join(shapes, ", "))
		}
		asked[part] = true
	}
	return slices.DeleteFunc(slices.Clone(shapes), func(sh string) bool { return !asked[sh] }), nil
}

// shapeStamp marks a cached shape base as complete.
type shapeStamp struct {
	Version int      `json:"shapes_version"`
	Shape   string   `json:"shape"`
	SizeMB  int      `json:"size_mb"`
	Seed    uint64   `json:"seed"`
	Stats   genStats `json:"stats"`
}

// ensureShape returns the cached base of shape at mb MB, generating it
// when it is missing or of another generator version.
func ensureShape(work, shape string, mb int, seed uint64, log io.Writer) (string, genStats, error) {
	key := fmt.Sprintf("shape-%s-%dmb-s%d", shape, mb, seed)
	dir, stamp := filepath.Join(work, key), filepath.Join(work, key+".json")
	want := shapeStamp{Version: shapesVersion, Shape: shape, SizeMB: mb, Seed: seed}
	if data, err := os.ReadFile(stamp); err == nil {
		var s shapeStamp
		if json.Unmarshal(data, &s) == nil {
			got := s
			got.Stats = genStats{}
			if got == want {
				return dir, s.Stats, nil
			}
		}
	}
	os.Remove(stamp)
	if err := os.RemoveAll(dir); err != nil {
		return "", genStats{}, err
	}
	fmt.Fprintf(log, "%s %d MB: generating %s\n", shape, mb, dir)
	st, err := generateShape(dir, shape, int64(mb)*1e6, seed)
	if err != nil {
		return "", genStats{}, err
	}
	want.Stats = st
	data, err := json.Marshal(want)
	if err != nil {
		return "", genStats{}, err
	}
	return dir, st, os.WriteFile(stamp, append(data, '\n'), 0o644)
}

// loadTiming is the load stage's line of `cairn build --timings`.
var loadTiming = regexp.MustCompile(`(?m)^cairn: load\s+(\d+) ms$`)

// measureShape builds one shape's base cold, runs times.
func measureShape(bin, work, shape string, mb int, seed uint64, runs int, log io.Writer) (shapeRow, error) {
	dir, st, err := ensureShape(work, shape, mb, seed, log)
	if err != nil {
		return shapeRow{}, err
	}
	cache, err := filepath.Abs(filepath.Join(work, "stat-cache-shapes"))
	if err != nil {
		return shapeRow{}, err
	}
	row := shapeRow{Shape: shape, SizeMB: mb, InputBytes: st.Bytes, Documents: st.Documents, Records: st.Records}
	var peak int64
	for range runs {
		if err := os.RemoveAll(cache); err != nil {
			return row, err
		}
		if err := removeBuildOutputs(dir); err != nil {
			return row, err
		}
		cmd := exec.Command(bin, "--base", dir, "build", "--quiet", "--timings")
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return row, fmt.Errorf("cairn build exited with status %d:\n%s", ee.ExitCode(), strings.TrimSpace(stderr.String()))
			}
			return row, err
		}
		m := loadTiming.FindSubmatch(stderr.Bytes())
		if m == nil {
			return row, fmt.Errorf("cairn build --timings printed no load line:\n%s", stderr.String())
		}
		ms, _ := strconv.ParseFloat(string(m[1]), 64)
		row.LoadMS = append(row.LoadMS, max(ms, 1)) // a stage under a millisecond counts as one
		row.BuildMS = append(row.BuildMS, float64(wall)/float64(time.Millisecond))
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		row.CPUMS = append(row.CPUMS, float64(cpu)/float64(time.Millisecond))
		peak = max(peak, peakRSSKiB(cmd.ProcessState))
	}
	mbIn := float64(st.Bytes) / 1e6
	row.LoadMBps = mbIn / (median(row.LoadMS) / 1000)
	row.BuildMBps = mbIn / (median(row.BuildMS) / 1000)
	row.CPUMBps = mbIn / (median(row.CPUMS) / 1000)
	row.PeakRSSMiB = float64(peak) / 1024
	fmt.Fprintf(log, "%s %d MB: load %.1f MB/s, build %.1f MB/s (%.1f MB/s of CPU), peak %.0f MiB\n", shape, mb, row.LoadMBps, row.BuildMBps, row.CPUMBps, row.PeakRSSMiB)
	return row, nil
}

// compareShapes fills each row's ratios and returns the checks that fail.
// Both compare the whole cold build's MB/s of CPU time: what the build
// costs, which other work on the machine changes less than the wall time
// (a machine shared with other builds is the usual case here).
func compareShapes(rows []shapeRow) []string {
	var failed []string
	ref := map[int]float64{}  // size → the indented shape's MB/s
	first := map[string]int{} // shape → index of its smallest size's row
	for i, r := range rows {
		if r.Shape == shapeIndented {
			ref[r.SizeMB] = r.CPUMBps
		}
		if j, ok := first[r.Shape]; !ok || r.SizeMB < rows[j].SizeMB {
			first[r.Shape] = i
		}
	}
	for i := range rows {
		r := &rows[i]
		if base := ref[r.SizeMB]; base > 0 && r.CPUMBps > 0 {
			r.VsIndented = base / r.CPUMBps
			if r.VsIndented > shapeMaxSlowdown {
				failed = append(failed, fmt.Sprintf("%s at %d MB is %.1f× slower per MB than indented (bound %.1f×)", r.Shape, r.SizeMB, r.VsIndented, shapeMaxSlowdown))
			}
		}
		if f := rows[first[r.Shape]]; f.SizeMB < r.SizeMB && r.CPUMBps > 0 {
			r.Growth = f.CPUMBps / r.CPUMBps
			if r.Growth > shapeMaxGrowth {
				failed = append(failed, fmt.Sprintf("%s at %d MB is %.2f× slower per MB than at %d MB (bound %.1f×)", r.Shape, r.SizeMB, r.Growth, f.SizeMB, shapeMaxGrowth))
			}
		}
	}
	return failed
}

// printShapes prints one row per shape and size.
func printShapes(w io.Writer, rows []shapeRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tsize\tinput MB\tdocs\tload MB/s\tbuild MB/s\tCPU MB/s\tpeak MiB\tvs indented\tvs smallest\t")
	for _, r := range rows {
		growth := "-"
		if r.Growth > 0 {
			growth = strconv.FormatFloat(r.Growth, 'f', 2, 64) + "×"
		}
		fmt.Fprintf(tw, "%s\t%d MB\t%.1f\t%d\t%.1f\t%.1f\t%.1f\t%.0f\t%.2f×\t%s\t\n",
			r.Shape, r.SizeMB, float64(r.InputBytes)/1e6, r.Documents, r.LoadMBps, r.BuildMBps, r.CPUMBps, r.PeakRSSMiB, r.VsIndented, growth)
	}
	tw.Flush()
}
