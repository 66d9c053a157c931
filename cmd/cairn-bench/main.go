// Command cairn-bench generates synthetic knowledge bases and measures the
// cairn binary against them (SPEC §11).
//
//	cairn-bench gen --records N [--days D] [--seed S] --out DIR
//	cairn-bench run --bin PATH [--sizes 10k,100k,1m] [--work DIR] [--runs N] [--seed S] [--days D]
//	cairn-bench shapes --bin PATH [--sizes 10,100] [--shapes LIST] [--work DIR] [--runs N]
//
// gen writes one deterministic base: the same flags give a byte-identical
// tree. run generates (or reuses) a base per size under the work folder,
// then runs the real binary as child processes and reports build
// throughput, peak memory, no-op and one-edit rebuild times and artifact
// bytes, as a table on stdout and as <work>/results.json.
//
// Performance is measured here and never by a timed test.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

const usage = `usage:
  cairn-bench gen --records N [--days D] [--seed S] --out DIR
      write a synthetic base of N event records over D days into DIR
      (missing or empty). The same flags give a byte-identical tree.
  cairn-bench run --bin PATH [--sizes 10k,100k,1m] [--work DIR] [--runs N] [--seed S] [--days D]
      generate (or reuse) a base per size under DIR (default bench-out),
      measure the cairn binary at PATH on each, print a table and write
      DIR/results.json.
  cairn-bench shapes --bin PATH [--sizes 10,100] [--shapes LIST] [--work DIR] [--runs N] [--seed S]
      build bases of each input shape (indented, minified, one-doc,
      big-field, tiny-docs) at each size in MB cold, print load and build
      MB/s per shape and write DIR/shapes.json; exit 1 when a shape is
      over 3x slower per MB than indented, or its largest size over 1.5x
      slower per MB than its smallest.
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintf(os.Stderr, "cairn-bench: %v\n\n%s", err, usage)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "cairn-bench: %v\n", err)
		os.Exit(1)
	}
}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"a command is required: gen, run or shapes"}
	}
	switch args[0] {
	case "gen":
		return genCommand(args[1:], stdout)
	case "run":
		return runCommand(args[1:], stdout, stderr)
	case "shapes":
		return shapesCommand(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q; use gen, run or shapes", args[0])}
}

// newFlags returns a flag set whose errors come back as usage errors
// instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

func genCommand(args []string, stdout io.Writer) error {
	fs := newFlags("gen")
	records := fs.String("records", "", "event records in total (10k, 1m or a number)")
	days := fs.Int("days", 10, "event days")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "output folder (missing or empty)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *records == "" || *out == "" {
		return usageError{"gen needs --records and --out"}
	}
	n, err := parseCount(*records)
	if err != nil {
		return usageError{err.Error()}
	}
	start := time.Now()
	st, err := generate(*out, genParams{Records: n, Days: *days, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "generated %s: %d event records (+%d index), %d documents, %d files, %d bytes in %.2fs\n",
		*out, st.Records, st.IndexRecords, st.Documents, st.Files, st.Bytes, time.Since(start).Seconds())
	return nil
}
