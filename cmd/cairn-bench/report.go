package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// results is the whole run, as written to results.json.
type results struct {
	Generator int          `json:"generator_version"`
	Bin       string       `json:"bin"`
	Seed      uint64       `json:"seed"`
	Days      int          `json:"days"`
	Runs      int          `json:"runs"`
	GOOS      string       `json:"goos"`
	GOARCH    string       `json:"goarch"`
	NumCPU    int          `json:"num_cpu"`
	Sizes     []sizeResult `json:"sizes"`
}

// sizeResult is one size's base and metrics.
type sizeResult struct {
	Size      string   `json:"size"`
	Records   int      `json:"records"`
	Base      string   `json:"base"`
	BaseFiles int      `json:"base_files"`
	BaseBytes int64    `json:"base_bytes"`
	Metrics   []metric `json:"metrics"`
}

func newResults(bin string, seed uint64, days, runs int) *results {
	return &results{Generator: generatorVersion, Bin: bin, Seed: seed, Days: days, Runs: runs,
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU()}
}

func (r *results) add(b *bench) {
	r.Sizes = append(r.Sizes, sizeResult{
		Size: b.label, Records: b.base.params.Records, Base: b.base.dir,
		BaseFiles: b.base.stats.Files, BaseBytes: b.input, Metrics: b.metrics,
	})
}

func (r *results) write(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// printTable prints one row per metric and one column per size, so adding
// a measurement adds rows and the table stays readable at any width.
func (r *results) printTable(w io.Writer) {
	type row struct{ name, label, unit, target string }
	var rows []row
	seen := map[string]bool{}
	for _, s := range r.Sizes {
		for _, m := range s.Metrics {
			if !seen[m.Name] {
				seen[m.Name] = true
				rows = append(rows, row{m.Name, m.Label, m.Unit, m.Target})
			}
		}
	}
	// Numbers align right; the metric names are padded to one width so
	// they read left-aligned.
	width := len("metric")
	for _, rw := range rows {
		width = max(width, utf8.RuneCountInString(rw.label))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{pad("metric"), "unit"}
	for _, s := range r.Sizes {
		head = append(head, s.Size)
	}
	head = append(head, "target@100k")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, rw := range rows {
		cells := []string{pad(rw.label), rw.unit}
		for _, s := range r.Sizes {
			v := "-"
			for _, m := range s.Metrics {
				if m.Name == rw.name {
					v = formatValue(m.Unit, m.Value)
				}
			}
			cells = append(cells, v)
		}
		cells = append(cells, rw.target)
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
}

// formatValue prints a metric with the precision its unit deserves.
func formatValue(unit string, v float64) string {
	switch unit {
	case "count", "rec/s":
		return groupThousands(int64(math.Round(v)))
	case "ms":
		if v < 10 {
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	case "s", "ratio":
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
