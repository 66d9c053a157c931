//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/receipts"
)

// deltaQuery is the query the delta tests ask, on the demo base.
var deltaQuery = []string{"--as-of", "2026-11-10", "arm64", "nightly"}

// The demo base's records the delta tests change: one edited, one
// deleted (the only record of its document), and one with a raw field its
// fields map does not project.
const (
	editedDoc   = "events/2026-11-06/git-commits.json"
	editedURI   = editedDoc + "#68ee74f7d6afe0164fe0f1197aa9177c946d8834"
	deletedDoc  = "events/2026-11-02/ci-runs.json"
	deletedURI  = deletedDoc + "#run-88104"
	unmappedDoc = "events/2026-11-06/ci-runs.json"
)

// stateHome gives the test its own XDG_STATE_HOME and HOME, and returns
// the former.
func stateHome(t *testing.T) string {
	t.Helper()
	isolate(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("HOME", t.TempDir())
	return state
}

// cairnEnv runs the command tree with the process environment, which
// the test sets.
func cairnEnv(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: os.Getenv, Getwd: os.Getwd}
	code = runEnv(args, env)
	return code, out.String(), errb.String()
}

// deltaReceipt is what the delta tests read of a pack.
type deltaReceipt struct {
	Items []struct {
		URI string `json:"uri"`
	} `json:"items"`
	Receipt struct {
		InputDigest  string   `json:"input_digest"`
		SinceReceipt string   `json:"since_receipt"`
		Changed      int      `json:"changed"`
		Deleted      []string `json:"deleted"`
		DeletedTotal int      `json:"deleted_total"`
		Candidates   int      `json:"candidates"`
		Warning      string   `json:"warning"`
		SavedReceipt *struct {
			URIs   int `json:"uris"`
			Capped int `json:"capped"`
		} `json:"saved_receipt"`
	} `json:"receipt"`
}

func (d deltaReceipt) uris() []string {
	var out []string
	for _, it := range d.Items {
		out = append(out, it.URI)
	}
	return out
}

// contextJSON runs cairn context in JSON and reads the pack.
func contextJSON(t *testing.T, dir string, args ...string) deltaReceipt {
	t.Helper()
	code, stdout, stderr := cairnEnv(t, append([]string{"--base", dir, "context", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("context %v: exit %d\n%s", args, code, stderr)
	}
	var d deltaReceipt
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	return d
}

// save saves the delta query's snapshot and returns its digest and path.
func save(t *testing.T, state, dir string) (string, string) {
	t.Helper()
	saved := contextJSON(t, dir, append([]string{"--save-receipt"}, deltaQuery...)...)
	if saved.Receipt.SavedReceipt == nil || saved.Receipt.SavedReceipt.URIs != saved.Receipt.Candidates || saved.Receipt.SavedReceipt.Capped != 0 {
		t.Fatalf("the receipt of --save-receipt says %+v for %d candidates", saved.Receipt.SavedReceipt, saved.Receipt.Candidates)
	}
	folder, err := receipts.Dir(filepath.Join(state, "cairn"), dir)
	if err != nil {
		t.Fatal(err)
	}
	return saved.Receipt.InputDigest, receipts.Store{Dir: folder}.Path(saved.Receipt.InputDigest)
}

// TestDeltaPackShowsTheEditedAndNamesTheDeleted saves a snapshot, edits
// one record and deletes another, and asks again with --since-receipt:
// the pack holds the edited record alone and its receipt names the
// deleted one, the same from the artifacts and from a scan, in every
// format.
func TestDeltaPackShowsTheEditedAndNamesTheDeleted(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	digest, path := save(t, state, dir)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no snapshot where the receipt says: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("snapshot mode %v, want 0600", info.Mode().Perm())
	}
	whole := contextJSON(t, dir, deltaQuery...)
	if !slices.Contains(whole.uris(), editedURI) || !slices.Contains(whole.uris(), deletedURI) {
		t.Fatalf("the whole pack holds neither %s nor %s; the test changes nothing it shows: %v", editedURI, deletedURI, whole.uris())
	}

	replaceInFile(t, filepath.Join(dir, editedDoc), "Skip keyless cosign tests under emulation", "Skip keyless cosign tests under qemu emulation")
	if err := os.Remove(filepath.Join(dir, deletedDoc)); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, dir)
	since := append([]string{"--since-receipt", digest}, deltaQuery...)
	d := contextJSON(t, dir, since...)
	if got := d.uris(); !slices.Equal(got, []string{editedURI}) {
		t.Errorf("delta items %v, want only the edited %s", got, editedURI)
	}
	r := d.Receipt
	if r.SinceReceipt != digest || r.Changed != 1 || r.DeletedTotal != 1 || !slices.Equal(r.Deleted, []string{deletedURI}) {
		t.Errorf("delta receipt since=%s changed=%d deleted=%v (%d); want since=%s changed=1 deleted=[%s] (1)",
			r.SinceReceipt, r.Changed, r.Deleted, r.DeletedTotal, digest, deletedURI)
	}
	if r.SavedReceipt != nil {
		t.Errorf("a delta without --save-receipt says it saved %+v", r.SavedReceipt)
	}
	// A delta that also saves seeds the next delta with the whole pool, as
	// it is now: against it, nothing has changed.
	next := contextJSON(t, dir, append([]string{"--save-receipt"}, since...)...)
	if next.Receipt.SavedReceipt == nil || next.Receipt.SavedReceipt.URIs != next.Receipt.Candidates {
		t.Errorf("a delta with --save-receipt saved %+v of %d candidates", next.Receipt.SavedReceipt, next.Receipt.Candidates)
	}
	if again := contextJSON(t, dir, append([]string{"--since-receipt", next.Receipt.InputDigest}, deltaQuery...)...); len(again.Items) != 0 || again.Receipt.DeletedTotal != 0 {
		t.Errorf("a delta against the snapshot just saved shows %v and deletes %v", again.uris(), again.Receipt.Deleted)
	}

	for _, format := range []string{"text", "json", "jsonl"} {
		args := withFormat(since, format)
		indexed := runDelta(t, dir, args...)
		if !strings.Contains(indexed, "used") {
			t.Fatalf("%s: the indexed delta did not use the index:\n%s", format, indexed)
		}
		scanned := withoutArtifacts(t, dir, func() string { return runDelta(t, dir, args...) })
		if a, b := normalise(t, format, indexed), normalise(t, format, scanned); a != b {
			t.Errorf("%s: indexed and scanned delta packs differ\n--- indexed\n%s\n--- scanned\n%s", format, a, b)
		}
		if format == "text" && !strings.Contains(indexed, "since_receipt="+digest+" changed=1 deleted=1 · deleted="+deletedURI) {
			t.Errorf("the text receipt does not state the delta:\n%s", indexed)
		}
	}
}

// runDelta runs cairn context with the test's environment and returns
// stdout, failing on an error.
func runDelta(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, stdout, stderr := cairnEnv(t, append([]string{"--base", dir, "context"}, args...)...)
	if code != 0 {
		t.Fatalf("context %v: exit %d\n%s", args, code, stderr)
	}
	return stdout
}

// TestDeltaIgnoresUnprojectedFields edits a raw field the fields map
// does not project, in a record the query matches: its digest, and so the
// pack's input digest, stay the same, and the delta shows nothing.
func TestDeltaIgnoresUnprojectedFields(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	digest, _ := save(t, state, dir)
	replaceInFile(t, filepath.Join(dir, unmappedDoc), `"workflow": "nightly"`, `"workflow": "nightly-arm64-native"`)
	mustBuild(t, dir)
	d := contextJSON(t, dir, append([]string{"--since-receipt", digest}, deltaQuery...)...)
	r := d.Receipt
	if len(d.Items) != 0 || r.Changed != 0 || r.DeletedTotal != 0 {
		t.Errorf("delta after an unprojected edit: items %v, changed %d, deleted %v; want nothing", d.uris(), r.Changed, r.Deleted)
	}
	if r.InputDigest != digest {
		t.Errorf("input digest %s after an unprojected edit, want %s unchanged", r.InputDigest, digest)
	}
	if !strings.Contains(r.Warning, "nothing is new or changed since receipt "+digest) {
		t.Errorf("warning %q does not say nothing changed", r.Warning)
	}
}

// TestPlainContextWritesNoState checks that a pack without the receipt
// flags leaves cairn's state folders, XDG_STATE_HOME and HOME alike,
// untouched.
func TestPlainContextWritesNoState(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	contextJSON(t, dir, deltaQuery...)
	for _, d := range []string{state, os.Getenv("HOME")} {
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 0 {
			t.Errorf("plain cairn context wrote into %s: %v", d, ents)
		}
	}
}

// TestSnapshotErrorsGiveTheSeedCommand: a snapshot never saved, one cut
// short and one saved for another query are refused (exit 2) with the
// exact command that seeds a snapshot for the query, which works.
func TestSnapshotErrorsGiveTheSeedCommand(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	digest, path := save(t, state, dir)
	seed := "cairn --base " + dir + " context --save-receipt --as-of 2026-11-10 'arm64 nightly'"

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := contextJSON(t, dir, "--save-receipt", "--as-of", "2026-11-10", "retention").Receipt.InputDigest
	cases := []struct {
		name, digest, want string
		before             func()
	}{
		{"never saved", "0123456789abcdef", "no snapshot of it is kept for this base", nil},
		{"truncated", digest, "cannot be read", func() {
			if err := os.WriteFile(path, data[:len(data)/2], 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"another query", other, `it was saved for another query ("retention")`, nil},
	}
	for _, c := range cases {
		if c.before != nil {
			c.before()
		}
		code, stdout, stderr := cairnEnv(t, append([]string{"--base", dir, "context", "--since-receipt", c.digest}, deltaQuery...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "\n  "+seed+"\n") {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit 2 saying %q and the seed command %s", c.name, code, stdout, stderr, c.want, seed)
		}
	}
	code, _, stderr := cairnEnv(t, "--base", dir, "context", "--since-receipt", "HAR-151", "arm64")
	if code != 2 || !strings.Contains(stderr, "16 hex digits") {
		t.Errorf("a digest that is no digest: exit %d, %s", code, stderr)
	}
	// The seed command, run, saves the snapshot again.
	args := []string{"--base", dir, "context", "--save-receipt", "--as-of", "2026-11-10", "arm64 nightly"}
	if code, _, stderr := cairnEnv(t, args...); code != 0 {
		t.Fatalf("the seed command failed: exit %d\n%s", code, stderr)
	}
	if d := contextJSON(t, dir, append([]string{"--since-receipt", digest}, deltaQuery...)...); len(d.Items) != 0 {
		t.Errorf("a delta against the seeded snapshot shows %v, want nothing", d.uris())
	}
}

// TestConcurrentSaveIsBusy holds the receipt folder's lock, as a save in
// another process would, and saves: exit 3, nothing printed.
func TestConcurrentSaveIsBusy(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	folder, err := receipts.Dir(filepath.Join(state, "cairn"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	held, err := artifacts.LockFile(filepath.Join(folder, "lock"), "cairn context --save-receipt")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	code, stdout, stderr := cairnEnv(t, append([]string{"--base", dir, "context", "--save-receipt"}, deltaQuery...)...)
	if code != 3 || stdout != "" || !strings.Contains(stderr, "another cairn is saving a receipt snapshot of this base") {
		t.Errorf("save while the lock is held: exit %d, stdout %q, stderr %q; want 3 and a clear message", code, stdout, stderr)
	}
	// A delta only reads: the lock does not stop it.
	held.Release()
	digest, _ := save(t, state, dir)
	held, err = artifacts.LockFile(filepath.Join(folder, "lock"), "cairn context --save-receipt")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	contextJSON(t, dir, append([]string{"--since-receipt", digest}, deltaQuery...)...)
}

// TestSeventeenSavesKeepSixteen saves the snapshots of 17 queries of one
// base: the 16 most recent are kept.
func TestSeventeenSavesKeepSixteen(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	words := []string{"arm64", "nightly", "retention", "tokens", "runners", "signature", "release", "meeting",
		"cosign", "qemu", "sprint", "harbor", "policy", "window", "build", "native", "grace"}
	var digests []string
	for _, w := range words {
		digests = append(digests, contextJSON(t, dir, "--save-receipt", "--as-of", "2026-11-10", w).Receipt.InputDigest)
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(digests))); len(distinct) != len(words) {
		t.Fatalf("the %d queries gave %d distinct digests", len(words), len(distinct))
	}
	folder, err := receipts.Dir(filepath.Join(state, "cairn"), dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".zst") {
			kept = append(kept, strings.TrimSuffix(e.Name(), ".zst"))
		}
	}
	slices.Sort(kept)
	want := slices.Sorted(slices.Values(digests[1:]))
	if !slices.Equal(kept, want) {
		t.Errorf("kept %v, want the last 16 saved %v", kept, want)
	}
}

// TestSaveTakesTheBaseLock: --save-receipt takes the base's writer lock,
// failing at once while a build holds it; a plain context and a delta go
// on reading.
func TestSaveTakesTheBaseLock(t *testing.T) {
	state := stateHome(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	digest, _ := save(t, state, dir)
	build, err := artifacts.AcquireLock(dir, "cairn build")
	if err != nil {
		t.Fatal(err)
	}
	defer build.Release()
	code, stdout, stderr := cairnEnv(t, append([]string{"--base", dir, "context", "--save-receipt"}, deltaQuery...)...)
	if code != 3 || stdout != "" || !strings.Contains(stderr, "cairn build") {
		t.Errorf("a save while a build holds the base: exit %d, stdout %q, stderr %q; want 3 naming the build", code, stdout, stderr)
	}
	contextJSON(t, dir, deltaQuery...)
	contextJSON(t, dir, append([]string{"--since-receipt", digest}, deltaQuery...)...)
}
