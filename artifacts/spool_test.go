package artifacts

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// spoolFile writes data through s as the artifact name and finishes it.
func spoolFile(t *testing.T, s *Spool, name, data string) File {
	t.Helper()
	o := s.Create(name, 0)
	for _, part := range strings.SplitAfter(data, "\n") { // in pieces, as an encoder writes
		o.WriteString(part)
	}
	f, err := o.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Len() != int64(len(data)) || f.Size() != int64(len(data)) {
		t.Fatalf("%s: %d bytes written, %d staged; want %d", name, o.Len(), f.Size(), len(data))
	}
	return f
}

// temps lists cairn's temporary files in the base's artifacts folder.
func temps(t *testing.T, root string) []string {
	t.Helper()
	return slices.DeleteFunc(names(t, root+"/"+Dir), func(n string) bool { return !strings.HasPrefix(n, TempPrefix) })
}

// TestSpoolStagesAndSyncCommits: a spooled artifact holds no bytes in
// memory, stamps as the same bytes written in memory would, and Sync puts
// it in place, leaving no temporary file; one whose bytes are already
// there is not rewritten, and its temporary file goes.
func TestSpoolStagesAndSyncCommits(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".cairn/same.tsv": "kept\nas is\n"})
	ageAll(t, root)
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	fresh := spoolFile(t, s, ".cairn/fresh.tsv", "a\nb\nc\n")
	same := spoolFile(t, s, ".cairn/same.tsv", "kept\nas is\n")
	if !fresh.Staged() || fresh.Data != nil {
		t.Fatalf("a spooled file is not staged: %+v", fresh)
	}
	if got, want := StampFile(fresh), StampFile(File{Path: fresh.Path, Data: []byte("a\nb\nc\n")}); got != want {
		t.Errorf("staged stamp %+v, in-memory stamp %+v", got, want)
	}
	if n := len(temps(t, root)); n != 2 {
		t.Fatalf("%d temporary files while staged, want 2", n)
	}
	p := Plan{Root: root, Files: []File{fresh, same}, Manifest: manifest("{}\n")}
	syncWants(t, p, Result{Changes: []Change{{Path: ".cairn/fresh.tsv", Action: ActionCreate}, {Path: ".cairn/manifest.json", Action: ActionCreate}},
		Unchanged: []string{".cairn/same.tsv"}})
	got := snapshot(t, root)
	if got[".cairn/fresh.tsv"].Data != "a\nb\nc\n" {
		t.Errorf("fresh.tsv = %q", got[".cairn/fresh.tsv"].Data)
	}
	if !got[".cairn/same.tsv"].MTime.Equal(oldTime) {
		t.Error("same.tsv was rewritten, though it held the spooled bytes already")
	}
	if left := temps(t, root); len(left) > 0 {
		t.Errorf("temporary files left after Sync: %v", left)
	}
}

// TestSpoolTrustsAnotherHash: a spooled file whose hash is not the one the
// previous build recorded (Plan.Was) is written without reading the disk,
// even where the disk holds its bytes already; one whose hash is the
// recorded one is still compared, and left when the disk agrees.
func TestSpoolTrustsAnotherHash(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".cairn/moved.tsv": "new\n", ".cairn/same.tsv": "kept\n"})
	ageAll(t, root)
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	moved := spoolFile(t, s, ".cairn/moved.tsv", "new\n")
	same := spoolFile(t, s, ".cairn/same.tsv", "kept\n")
	p := Plan{Root: root, Files: []File{moved, same}, Manifest: manifest("{}\n"),
		Was: map[string]string{".cairn/moved.tsv": Hash([]byte("old\n")), ".cairn/same.tsv": Hash([]byte("kept\n"))}}
	syncWants(t, p, Result{Changes: []Change{{Path: ".cairn/manifest.json", Action: ActionCreate}, {Path: ".cairn/moved.tsv", Action: ActionUpdate}},
		Unchanged: []string{".cairn/same.tsv"}})
	got := snapshot(t, root)
	if got[".cairn/moved.tsv"].Data != "new\n" || got[".cairn/moved.tsv"].MTime.Equal(oldTime) {
		t.Errorf("moved.tsv = %+v; want its new bytes, written again", got[".cairn/moved.tsv"])
	}
	if !got[".cairn/same.tsv"].MTime.Equal(oldTime) {
		t.Error("same.tsv was rewritten, though the disk held its bytes and its hash was the recorded one")
	}
}

// TestSpoolDiscardAndSweep: a build that fails removes what it spooled;
// what a killed one left is swept by the next Sync, which leaves its own
// plan's staged files to commit them.
func TestSpoolDiscardAndSweep(t *testing.T) {
	root := t.TempDir()
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	spoolFile(t, s, ".cairn/docs.tsv", "x\n")
	s.Discard()
	if left := temps(t, root); len(left) > 0 {
		t.Fatalf("Discard left %v", left)
	}

	killed, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	spoolFile(t, killed, ".cairn/docs.tsv", "from a killed build\n")
	killed.Close() // as a killed build would: nothing removed
	next, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Discard()
	f := spoolFile(t, next, ".cairn/docs.tsv", "from this build\n")
	if _, err := Sync(Plan{Root: root, Files: []File{f}, Manifest: manifest("{}\n")}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, ".cairn/docs.tsv"); got != "from this build\n" {
		t.Errorf("docs.tsv = %q", got)
	}
	if left := temps(t, root); len(left) > 0 {
		t.Errorf("temporary files left after Sync: %v", left)
	}
}

// TestSpoolRefusals: an output outside the artifacts folder is never
// spooled, and an encoder's failure voids the file and its temporary.
func TestSpoolRefusals(t *testing.T) {
	root := t.TempDir()
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	if _, err := s.Create("AGENTS.md", 0).Finish(nil); err == nil || !strings.Contains(err.Error(), "only artifacts are spooled") {
		t.Errorf("spooling a rules file: %v", err)
	}
	o := s.Create(".cairn/postings.tsv", 0)
	o.WriteString("half a table\n")
	bad := errors.New("postings out of order")
	if _, err := o.Finish(bad); !errors.Is(err, bad) {
		t.Errorf("Finish with an encoder's error returned %v", err)
	}
	if left := temps(t, root); len(left) > 0 {
		t.Errorf("a voided file left %v", left)
	}
}

// TestSpoolKeepsPermissions: a spooled table that replaces a file keeps
// that file's permissions, as a file written whole does.
func TestSpoolKeepsPermissions(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".cairn/docs.tsv": "old\n"})
	p := filepath.Join(root, ".cairn", "docs.tsv")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	f := spoolFile(t, s, ".cairn/docs.tsv", "new\n")
	if _, err := Sync(Plan{Root: root, Files: []File{f}, Manifest: manifest("{}\n")}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 || readFile(t, root, ".cairn/docs.tsv") != "new\n" {
		t.Errorf("docs.tsv after the sync: %v, %v; want the new bytes, mode 0600", st.Mode(), err)
	}
}

// TestScratchAppendsAndReadsBack: appends come back section by section,
// on disk and in memory alike; the file is a temporary file of the
// artifacts folder while it lives (so a killed build's is swept), Remove
// deletes it, and a spool's Discard deletes one not removed.
func TestScratchAppendsAndReadsBack(t *testing.T) {
	root := t.TempDir()
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	for _, sc := range []*Scratch{s.Scratch(PostingsPath), (*Spool)(nil).Scratch(PostingsPath)} {
		parts := []string{"first run", "", "second\x00run", strings.Repeat("x", 3*spoolBuffer)}
		var at []ScratchSection
		for _, p := range parts {
			sec, err := sc.Append([]byte(p))
			if err != nil {
				t.Fatal(err)
			}
			at = append(at, sec)
		}
		for i := len(parts) - 1; i >= 0; i-- { // in any order
			var b strings.Builder
			if _, err := io.Copy(&b, sc.Section(at[i])); err != nil || b.String() != parts[i] {
				t.Errorf("section %d read back as %d bytes (%v), want %d", i, b.Len(), err, len(parts[i]))
			}
		}
	}
	if n := len(temps(t, root)); n != 1 {
		t.Fatalf("%d temporary files while a scratch file lives, want 1", n)
	}
	sc := s.Scratch(PostingsPath)
	sc.Append([]byte("left for Discard"))
	s.Scratch(PostingsPath).Remove()
	if n := len(temps(t, root)); n != 2 {
		t.Fatalf("%d temporary files after one Remove, want 2", n)
	}
	if _, err := s.Scratch(PostingsPath).Append(nil); err != nil {
		t.Fatal(err)
	}
	removed := s.Scratch(PostingsPath)
	removed.Remove()
	removed.Remove()
	if _, err := removed.Append([]byte("late")); err == nil {
		t.Error("an append after Remove succeeded")
	}
	s.Discard()
	if left := temps(t, root); len(left) > 0 {
		t.Errorf("Discard left %v", left)
	}

	// A build killed while its scratch file lives leaves it; the next
	// build's Sync sweeps it.
	killed, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	left := killed.Scratch(PostingsPath)
	left.Append([]byte("runs of a killed build"))
	left.file.Close() // as the killed process's exit does
	killed.Close()
	if n := len(temps(t, root)); n != 1 {
		t.Fatalf("%d temporary files after a killed build, want its scratch file", n)
	}
	if _, err := Sync(Plan{Root: root, Manifest: manifest("{}\n")}); err != nil {
		t.Fatal(err)
	}
	if left := temps(t, root); len(left) > 0 {
		t.Errorf("the next Sync left %v", left)
	}
}

// TestSpoolLargeWrites mixes writes larger than the spool's buffer with
// small ones: the staged file must hold every byte in order, with the
// stamp of the same bytes in memory, and the buffer must not grow to the
// large write's size.
func TestSpoolLargeWrites(t *testing.T) {
	root := t.TempDir()
	s, err := NewSpool(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	var want []byte
	o := s.Create(".cairn/large.tsv", 0)
	for i, n := range []int{10, 3 * spoolBuffer, 5, spoolBuffer, spoolBuffer - 1, 2*spoolBuffer + 7, 1} {
		part := bytes.Repeat([]byte{byte('a' + i)}, n)
		o.Write(part)
		want = append(want, part...)
		if cap(o.b) > 2*spoolBuffer {
			t.Fatalf("after a write of %d bytes the buffer holds %d", n, cap(o.b))
		}
	}
	f, err := o.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := StampFile(f), StampFile(File{Path: f.Path, Data: want}); got != w {
		t.Errorf("staged stamp %+v, in-memory stamp %+v", got, w)
	}
	syncWants(t, Plan{Root: root, Files: []File{f}, Manifest: manifest("{}\n")}, Result{Changes: []Change{{Path: ".cairn/large.tsv", Action: ActionCreate}, {Path: ".cairn/manifest.json", Action: ActionCreate}}})
	if got := snapshot(t, root)[".cairn/large.tsv"].Data; got != string(want) {
		t.Errorf("large.tsv holds %d bytes, want the %d written", len(got), len(want))
	}
}
