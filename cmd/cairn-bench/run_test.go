package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseCount(t *testing.T) {
	good := map[string]int{"2500": 2500, "10k": 10000, "100K": 100000, "1m": 1000000, " 3k ": 3000}
	for in, want := range good {
		if got, err := parseCount(in); err != nil || got != want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "1.5m", "k", "ten"} {
		if _, err := parseCount(in); err == nil {
			t.Errorf("parseCount(%q) succeeded", in)
		}
	}
	for n, want := range map[int]string{10000: "10k", 1000000: "1m", 2500: "2500", 1500000: "1500k"} {
		if got := sizeLabel(n); got != want {
			t.Errorf("sizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestEditOneRecord(t *testing.T) {
	doc := []byte("{\n  \"records\": [\n" +
		"    {\"key\":\"A-1\",\"summary\":\"first\"},\n" +
		"    {\"key\":\"A-2\",\"summary\":\"has \\\"quotes\\\" in it\",\"x\":1},\n" +
		"    {\"key\":\"A-3\",\"summary\":\"third\"}\n" +
		"  ]\n}\n")
	got, err := editOneRecord(doc, "summary", "edited")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(doc), `"has \"quotes\" in it"`, `"edited"`, 1)
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("the edit broke the JSON")
	}
	if _, err := editOneRecord(doc, "title", "x"); err == nil {
		t.Fatal("editing a missing key succeeded")
	}
}

func TestMedian(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
}

// TestRunWithFakeBinary drives the whole run command against a stand-in
// for cairn that writes one artifact, so the plumbing (base cache, edits,
// table, results.json) is tested without the real binary.
func TestRunWithFakeBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cairn")
	script := "#!/bin/sh\n" + fakeContext + fakeSearch + fakeRead + "mkdir -p \"$2/.cairn\" && cat \"$2/cairn.yaml\" > \"$2/.cairn/manifest.json\" && echo rules > \"$2/AGENTS.md\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	var stdout, stderr bytes.Buffer
	args := []string{"run", "--bin", bin, "--sizes", "300", "--work", work, "--runs", "2", "--days", "3"}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"cold build", "no-op rebuild", "artifacts / base", "one-record edit rebuild", "context indexed (median)", "context scan (median)", "read record (median)", "read hub (median)", "read peak RSS"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the table has no %q row:\n%s", want, stdout.String())
		}
	}
	data, err := os.ReadFile(filepath.Join(work, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sizes) != 1 || res.Sizes[0].Records != 300 {
		t.Fatalf("results: %+v", res.Sizes)
	}
	// The edited document was restored and the stamp rewritten, so a
	// second run reuses the base instead of regenerating it.
	before := readTree(t, filepath.Join(work, "base-300-d3-s1"))
	stderr.Reset()
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "reusing") {
		t.Errorf("the second run did not reuse the base:\n%s", stderr.String())
	}
	after := readTree(t, filepath.Join(work, "base-300-d3-s1"))
	for p, b := range before {
		if !bytes.Equal(b, after[p]) {
			t.Errorf("%s changed across runs", p)
		}
	}

	failing := filepath.Join(dir, "failing")
	os.WriteFile(failing, []byte("#!/bin/sh\necho 'cairn.yaml:1:1: error: broken [x]' >&2\nexit 2\n"), 0o755)
	err = run([]string{"run", "--bin", failing, "--sizes", "300", "--work", work, "--runs", "1", "--days", "3"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "broken [x]") || !strings.Contains(err.Error(), "status 2") {
		t.Errorf("a failing binary gave %v, want its stderr and status", err)
	}
}

// TestSelectMeasurements picks measurements by name, in the benchmark's
// order, and refuses a name it does not know, listing the names it does.
func TestSelectMeasurements(t *testing.T) {
	all, err := selectMeasurements("")
	if err != nil || len(all) != len(measurements) {
		t.Fatalf("no --only: got %d measurements, %v; want all %d", len(all), err, len(measurements))
	}
	got, err := selectMeasurements("read, cold build")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].name != "cold build" || got[1].name != "read" {
		t.Errorf("--only read,cold build: got %v", got)
	}
	_, err = selectMeasurements("cold build,warm build")
	if err == nil || !strings.Contains(err.Error(), `unknown measurement "warm build"`) || !strings.Contains(err.Error(), "no-op rebuild") {
		t.Errorf("unknown name: got %v", err)
	}
}
