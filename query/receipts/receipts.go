// Package receipts keeps the snapshots delta packs are made against: for
// one base, in one folder of machine-local state, each saved pack's
// candidate URIs with their semantic digests (docs.tsv's digest column),
// never their bodies, zstd-compressed, owner-only, the Kept most recently
// used.
//
// In: the snapshot folder (Dir makes it from cairn's state folder and the
// base's path; nothing here reads the environment), a Snapshot to save or
// a digest to load. Out: the snapshot, or a typed error: missing
// (fs.ErrNotExist), *CorruptError, *BusyError.
//
// It is the only part of the read side that writes, and only when asked:
// Save writes one snapshot under the folder's lock, and Use marks one as
// used. It must not hold evidence text, and must never write inside a
// base: the state is the machine's, not the base's.
//
// The folder is the user's: links on the way to it are theirs, and
// followed. A snapshot file in it is cairn's own and only ever a regular
// file: a link in its place is not read (Load says so, naming it), its
// time is not touched by Use, and Save renames a fresh file over the link
// itself, never writing where it points.
package receipts

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/cairn-kb/cairn/artifacts"
)

// Kept is how many snapshots a base keeps: the most recently used.
const Kept = 16

// Limits on a snapshot file, so that a damaged or foreign file cannot make
// a read take more than a bounded amount of memory.
const (
	// maxFileBytes bounds a snapshot file as stored.
	maxFileBytes = 16 << 20
	// maxDecodedBytes bounds it decompressed.
	maxDecodedBytes = 64 << 20
)

// lockName is the folder's lock file.
const lockName = "lock"

// suffix ends every snapshot file's name: <digest>.zst.
const suffix = ".zst"

// header is the first line of a snapshot, decompressed.
const header = "#cairn receipt v1\n"

// Entry is one candidate of a saved pack.
type Entry struct {
	URI    string
	Digest uint64 // the item's semantic digest
}

// Snapshot is what a delta pack needs of an earlier pack.
type Snapshot struct {
	Digest   string // the pack's receipt.input_digest: the snapshot's name
	QueryKey string // binds the snapshot to the query it answered
	Query    string // that query, for messages
	// Candidates counts the pack's candidates; Entries holds at most a cap
	// of them, so Candidates - len(Entries) were left out.
	Candidates int
	Entries    []Entry // sorted by URI, distinct
}

// Dir is the snapshot folder of the base at root under cairn's state
// folder: <state>/receipts/<hash of the base's physical path>, the path
// with its links resolved, so that every way of naming the base shares
// one folder.
func Dir(state, root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	phys, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(phys))
	return filepath.Join(state, "receipts", hex.EncodeToString(sum[:8])), nil
}

// ValidDigest reports whether s can name a snapshot: 16 lower-case hex
// digits, as receipt.input_digest is written.
func ValidDigest(s string) bool {
	_, ok := artifacts.ParseHashSum(s)
	return ok && strings.ToLower(s) == s
}

// Store is one base's snapshot folder.
type Store struct {
	Dir string
	// Now reads the clock for use times; nil means time.Now.
	Now func() time.Time
}

// Path is where the snapshot of a digest is kept.
func (s Store) Path(digest string) string { return filepath.Join(s.Dir, digest+suffix) }

// BusyError says another process is saving a snapshot of the same base.
type BusyError struct{ Lock *artifacts.FileBusyError }

func (e *BusyError) Error() string {
	return "another cairn is saving a receipt snapshot of this base; wait for it to finish and run again (" + e.Lock.Error() + ")"
}

// ExitCode is 3: busy.
func (e *BusyError) ExitCode() int { return 3 }

// CorruptError says a snapshot file cannot be read back.
type CorruptError struct {
	Path   string
	Reason string
}

func (e *CorruptError) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Reason) }

// Save writes a snapshot, replacing one of the same digest, under the
// folder's lock, which it never waits for; then it removes all but the
// Kept most recently used. The file is written whole to a temporary name
// and renamed into place, so a reader sees the old snapshot or the new
// one, never a part.
func (s Store) Save(snap Snapshot, holder string) error {
	if !ValidDigest(snap.Digest) {
		return fmt.Errorf("receipts: %q is not a digest", snap.Digest)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("cannot make the receipt folder: %w", err)
	}
	lock, err := artifacts.LockFile(filepath.Join(s.Dir, lockName), holder)
	if err != nil {
		var busy *artifacts.FileBusyError
		if errors.As(err, &busy) {
			return &BusyError{Lock: busy}
		}
		return err
	}
	defer lock.Release()
	data, err := encode(snap)
	if err != nil {
		return err
	}
	if err := s.write(snap.Digest, data); err != nil {
		return err
	}
	return s.prune()
}

// write puts a snapshot file in place through a temporary file, stamped
// as the newest use.
func (s Store) write(digest string, data []byte) error {
	f, err := os.CreateTemp(s.Dir, ".tmp-*") // 0600
	if err != nil {
		return fmt.Errorf("cannot save the receipt: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		t := s.stamp(digest)
		err = os.Chtimes(tmp, t, t)
	}
	if err == nil {
		err = os.Rename(tmp, s.Path(digest))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot save the receipt: %w", err)
	}
	return nil
}

// snapshotFile is a snapshot file of the folder with its use time.
type snapshotFile struct {
	name string
	used time.Time
}

// files lists the folder's snapshot files, most recently used first (the
// name breaks ties), and its leftover temporary files.
func (s Store) files() (snaps []snapshotFile, temps []string, err error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".tmp-") {
			temps = append(temps, name)
			continue
		}
		d, ok := strings.CutSuffix(name, suffix)
		if !ok || !ValidDigest(d) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		snaps = append(snaps, snapshotFile{name, info.ModTime()})
	}
	slices.SortFunc(snaps, func(a, b snapshotFile) int {
		return cmp.Or(b.used.Compare(a.used), strings.Compare(a.name, b.name))
	})
	return snaps, temps, nil
}

// prune removes all but the Kept most recently used snapshots, and the
// temporary files of saves that did not finish (the lock is held, so no
// save is under way).
func (s Store) prune() error {
	snaps, temps, err := s.files()
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range temps {
		if err := os.Remove(filepath.Join(s.Dir, t)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, f := range snaps[min(Kept, len(snaps)):] {
		if err := os.Remove(filepath.Join(s.Dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// stamp is the use time to give a snapshot now: the clock's time, or just
// after the newest other snapshot's when the clock is not ahead of it, so
// that uses keep their order on a coarse clock.
func (s Store) stamp(digest string) time.Time {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now()
	snaps, _, _ := s.files()
	for _, f := range snaps {
		if f.name != digest+suffix && !f.used.Before(t) {
			t = f.used.Add(time.Microsecond)
		}
	}
	return t
}

// Use marks a snapshot as just used, so that pruning keeps it longest. It
// takes no lock: at worst a save that prunes at the same moment removes
// it, as it would have a moment earlier.
//
// A link in the snapshot's place is left alone: changing its time would
// change the time of whatever it points to, and Load refuses it anyway.
func (s Store) Use(digest string) error {
	info, err := os.Lstat(s.Path(digest))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return nil
	}
	t := s.stamp(digest)
	err = os.Chtimes(s.Path(digest), t, t)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Load reads the snapshot of a digest. A snapshot never saved, or pruned,
// is an error that wraps fs.ErrNotExist; one that cannot be read back is a
// *CorruptError.
func (s Store) Load(digest string) (Snapshot, error) {
	p := s.Path(digest)
	f, _, err := artifacts.OpenOwnFile(s.Dir, digest+suffix)
	switch {
	case errors.Is(err, artifacts.ErrLink):
		return Snapshot{}, &CorruptError{p, "it is a symbolic link, which cairn does not follow; remove it, and save the snapshot again with --save-receipt"}
	case errors.Is(err, fs.ErrNotExist):
		return Snapshot{}, err
	case err != nil:
		return Snapshot{}, &CorruptError{p, err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return Snapshot{}, &CorruptError{p, err.Error()}
	}
	if len(data) > maxFileBytes {
		return Snapshot{}, &CorruptError{p, fmt.Sprintf("larger than %d bytes", maxFileBytes)}
	}
	snap, err := decode(data)
	if err != nil {
		return Snapshot{}, &CorruptError{p, err.Error()}
	}
	if snap.Digest != digest {
		return Snapshot{}, &CorruptError{p, fmt.Sprintf("it holds the snapshot of %s", snap.Digest)}
	}
	return snap, nil
}

// encode writes a snapshot as text, then compresses it:
//
//	#cairn receipt v1
//	digest <TAB> <16 hex>
//	query_key <TAB> <16 hex>
//	query <TAB> <the query, tabs and line breaks as spaces>
//	candidates <TAB> <n>
//	uris <TAB> <m>
//
// then m lines <uri> TAB <16 hex digest>, sorted by URI. zstd's frame
// checksum catches a file cut short or changed.
func encode(snap Snapshot) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	oneLine := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	fmt.Fprintf(&b, "digest\t%s\nquery_key\t%s\nquery\t%s\ncandidates\t%d\nuris\t%d\n",
		snap.Digest, snap.QueryKey, oneLine.Replace(snap.Query), snap.Candidates, len(snap.Entries))
	for i, e := range snap.Entries {
		if strings.ContainsAny(e.URI, "\t\n") || e.URI == "" {
			return nil, fmt.Errorf("receipts: URI %q cannot be saved", e.URI)
		}
		if i > 0 && snap.Entries[i-1].URI >= e.URI {
			return nil, fmt.Errorf("receipts: URIs are not sorted and distinct at %q", e.URI)
		}
		b.WriteString(e.URI)
		b.WriteByte('\t')
		b.WriteString(artifacts.HashSum(e.Digest))
		b.WriteByte('\n')
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(b.Bytes(), nil), nil
}

// decode reads what encode writes, checking every line.
func decode(data []byte) (Snapshot, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecodedBytes))
	if err != nil {
		return Snapshot{}, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(data, nil)
	if err != nil {
		return Snapshot{}, fmt.Errorf("not a readable snapshot: %v", err)
	}
	text, ok := strings.CutPrefix(string(raw), header)
	if !ok {
		return Snapshot{}, errors.New("not a cairn receipt snapshot of this version")
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 6 || lines[len(lines)-1] != "" {
		return Snapshot{}, errors.New("cut short")
	}
	lines = lines[:len(lines)-1]
	field := func(i int, name string) (string, error) {
		k, v, ok := strings.Cut(lines[i], "\t")
		if !ok || k != name {
			return "", fmt.Errorf("line %d: want %s", i+2, name)
		}
		return v, nil
	}
	var snap Snapshot
	var vals [5]string
	for i, name := range []string{"digest", "query_key", "query", "candidates", "uris"} {
		if vals[i], err = field(i, name); err != nil {
			return Snapshot{}, err
		}
	}
	snap.Digest, snap.QueryKey, snap.Query = vals[0], vals[1], vals[2]
	if snap.Candidates, err = strconv.Atoi(vals[3]); err != nil {
		return Snapshot{}, fmt.Errorf("line 5: %v", err)
	}
	n, err := strconv.Atoi(vals[4])
	if err != nil || n != len(lines)-5 || n > snap.Candidates {
		return Snapshot{}, fmt.Errorf("line 6: uris %q does not count the %d lines that follow", vals[4], len(lines)-5)
	}
	snap.Entries = make([]Entry, 0, n)
	for i, line := range lines[5:] {
		uri, d, ok := strings.Cut(line, "\t")
		sum, okSum := artifacts.ParseHashSum(d)
		if !ok || !okSum || uri == "" || (i > 0 && snap.Entries[i-1].URI >= uri) {
			return Snapshot{}, fmt.Errorf("line %d: not a sorted <uri> TAB <digest> line", i+7)
		}
		snap.Entries = append(snap.Entries, Entry{URI: uri, Digest: sum})
	}
	return snap, nil
}
