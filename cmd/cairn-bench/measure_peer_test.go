package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFTS5PeerIndexesTheRecords: the peer's script puts every record of a
// generated base into its table, each under cairn's URI with the title its
// fields map gives, so the paired build compares like with like.
func TestFTS5PeerIndexesTheRecords(t *testing.T) {
	python, err := exec.LookPath("python3")
	switch {
	case err != nil && os.Getenv("CI") == "true":
		t.Fatalf("python3 is not on PATH in CI (%v); .ci/run needs it for the real-data floor too", err)
	case err != nil:
		t.Skipf("python3 is not on PATH: %v", err)
	}
	base := filepath.Join(t.TempDir(), "base")
	st, err := generate(base, genParams{Records: 300, Days: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "fts5_build.py")
	if err := os.WriteFile(script, fts5Build, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "peer.db")
	if _, err := runPeer(python, script, base, db); err != nil {
		t.Fatal(err)
	}
	count := exec.Command(python, "-c", `import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM items WHERE kind = 'record'").fetchone()[0])
print(db.execute("SELECT count(*) FROM items WHERE kind = 'record' AND (title = '' OR uri NOT LIKE '%#%')").fetchone()[0])`, db)
	out, err := count.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(out))
	if want := strconv.Itoa(st.Records + st.IndexRecords); len(lines) != 2 || lines[0] != want || lines[1] != "0" {
		t.Errorf("the peer's table holds %v records (then untitled or without a URI fragment), want %s and 0", lines, want)
	}
}
