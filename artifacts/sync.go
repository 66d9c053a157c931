package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// File is one output: Path is relative to the base root, "/"-separated
// (".cairn/docs.tsv", "docs/AGENTS.md").
type File struct {
	Path string
	Data []byte
	// staged, when set, holds the bytes in a spool's temporary file
	// instead of Data (see Spool).
	staged *staged
}

// Plan is what a build wants on disk.
type Plan struct {
	Root     string   // base root directory (OS path)
	Files    []File   // outputs to make current, manifest excluded
	Keep     []string // outputs left exactly as they are (their stage was skipped)
	Manifest File     // written last, after everything else is durable
	// Previous are the outputs the previous manifest named; any under the
	// artifacts folder that is not in Files, Keep or Manifest is deleted.
	// Rules files named there are never deleted for that reason alone: a
	// person may have written in them since, so only the rules stage
	// decides about them, through Release and Delete.
	Previous []string
	// Release are rules files losing cairn's section: written like Files,
	// with the text around the section kept, but no longer outputs.
	Release []File
	// Delete are rules files that held nothing but cairn's section, which
	// their folder no longer has: deleted.
	Delete []string
	// Swept are base files other commands write (the notes log): the
	// build writes none of them, but removes, under the log's lock (see
	// LockLog), the temporary files a killed writer of one left beside it.
	Swept []string
	// Was gives, by path, the hash the previous manifest recorded for an
	// output. A spooled file whose hash is another is written without
	// reading the file it replaces: its bytes are new. One whose hash is
	// the same is compared with the disk, which may have changed since.
	Was map[string]string
}

// The actions a Change can carry.
const (
	ActionCreate = "create" // the path did not exist
	ActionUpdate = "update" // the path existed with other bytes
	ActionDelete = "delete" // a stale output that the plan no longer names
)

// Change is one file that Sync writes or deletes.
type Change struct {
	Path   string // base-relative, "/"-separated
	Action string // ActionCreate, ActionUpdate or ActionDelete
}

// Result says what Sync did (or, from Diff, would do). Changes and Unchanged
// are sorted by path and include the manifest. Unchanged lists every output
// left as it was: files whose bytes already matched and every Keep path.
type Result struct {
	Changes   []Change
	Unchanged []string
}

// syncHook, when set by a test, runs before each disk operation ("write",
// "rename", "delete") with the path concerned; an error it returns makes
// the operation fail. It lets tests observe the write order and inject
// faults at the exact points where a real crash could happen.
var syncHook func(event, path string) error

// Sync makes the disk under p.Root match p. It is the only code in cairn
// that writes build outputs.
//
// The order is what makes a build atomic for readers: every regular file is
// written (temp file, fsync, rename, fsync of its folder), then stale outputs
// are deleted, then the manifest is written the same way. A reader trusts
// only files the manifest names with matching hashes, so a build killed at
// any point leaves the old manifest describing files that are either intact
// or detectably changed. Files whose bytes already match are not touched, so
// their mtimes stay and make-style tools downstream see no change.
func Sync(p Plan) (Result, error) {
	root, s, err := openAndSurvey(p)
	if err != nil {
		return Result{}, err
	}
	defer root.Close()
	if err := sweepPlanTemps(root, p); err != nil {
		return Result{}, err
	}
	// Outputs and released rules files are written in path order, then
	// stale outputs and emptied rules files are deleted: a failure midway
	// leaves the old manifest, which no longer matches what changed.
	for _, f := range s.writes {
		if f.staged != nil {
			if err := f.staged.commit(root, f.Path); err != nil {
				return Result{}, err
			}
			continue
		}
		if err := writeAtomic(root, f.Path, f.Data); err != nil {
			return Result{}, err
		}
	}
	for _, f := range s.sameStaged {
		f.staged.spool.remove(f.staged.tmp) // the file there holds these bytes already
	}
	for _, name := range s.deletes {
		if err := remove(root, name); err != nil {
			return Result{}, err
		}
	}
	if s.writeManifest {
		if err := writeAtomic(root, p.Manifest.Path, p.Manifest.Data); err != nil {
			return Result{}, err
		}
	}
	return s.result, nil
}

// Diff reports what Sync would do with p, writing nothing. It runs the same
// survey Sync runs, so the Changes are the ones Sync would make (for
// `cairn build --check`).
func Diff(p Plan) (Result, error) {
	root, s, err := openAndSurvey(p)
	if err != nil {
		return Result{}, err
	}
	root.Close()
	return s.result, nil
}

// openAndSurvey opens the base and surveys p in it: the shared first half
// of Sync and Diff. The caller closes the root when err is nil.
func openAndSurvey(p Plan) (*os.Root, surveyed, error) {
	root, err := openArtifacts(p.Root)
	if err != nil {
		return nil, surveyed{}, err
	}
	s, err := survey(root, p)
	if err != nil {
		root.Close()
		return nil, surveyed{}, err
	}
	return root, s, nil
}

// openBase opens the base root as an os.Root: every access below goes
// through it, so no path, and no symlink met on the way, can reach outside
// the base.
func openBase(dir string) (*os.Root, error) {
	if dir == "" {
		return nil, errors.New("artifacts: sync: the plan has no root folder")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot open the base folder: %w", err)
	}
	return root, nil
}

// surveyed is the outcome of comparing a plan with the disk.
type surveyed struct {
	writes        []File   // files to write, sorted by path
	sameStaged    []File   // spooled files whose bytes are on disk already
	deletes       []string // stale outputs to delete, sorted
	writeManifest bool
	result        Result
}

// survey validates p and compares it with the disk. It reads but never
// writes, which is why Diff can share it with Sync. Every path is checked
// below the artifacts folder before it is read; the steps only append, and
// the result's lists are sorted once at the end.
func survey(root *os.Root, p Plan) (surveyed, error) {
	var s surveyed
	if err := checkPlanPaths(p); err != nil {
		return s, err
	}
	if err := s.compareFiles(root, slices.Concat(p.Files, p.Release), p.Was); err != nil {
		return s, err
	}
	if err := s.checkKept(root, p.Keep); err != nil {
		return s, err
	}
	if err := s.findDeletes(root, p.Delete, staleOutputs(p)); err != nil {
		return s, err
	}
	if err := s.compareManifest(root, p.Manifest); err != nil {
		return s, err
	}
	slices.SortFunc(s.result.Changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(s.result.Unchanged)
	return s, nil
}

// compareFiles sorts files by path and queues each one whose bytes differ
// from the disk's, so writes go out in path order; was is Plan.Was.
func (s *surveyed) compareFiles(root *os.Root, files []File, was map[string]string) error {
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
		if err := checkBelowDir(root, f.Path); err != nil {
			return err
		}
		action, err := compareFile(root, f, was[f.Path])
		if err != nil {
			return err
		}
		if action == "" {
			if f.staged != nil {
				s.sameStaged = append(s.sameStaged, f)
			}
			s.result.Unchanged = append(s.result.Unchanged, f.Path)
			continue
		}
		s.writes = append(s.writes, f)
		s.result.Changes = append(s.result.Changes, Change{Path: f.Path, Action: action})
	}
	return nil
}

// checkKept requires every kept output to be there as a regular file: the
// manifest about to be written names it, and nothing in this build would
// recreate it. A link is no output of cairn's, wherever it points.
func (s *surveyed) checkKept(root *os.Root, keep []string) error {
	for _, name := range keep {
		if err := checkBelowDir(root, name); err != nil {
			return err
		}
		info, err := root.Lstat(filepath.FromSlash(name))
		if err != nil {
			return fmt.Errorf("artifacts: kept output %s cannot be used: %w; its stage must run again (delete %s to force a full build)", name, err, ManifestPath)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("artifacts: kept output %s is not a regular file; remove it and build again", name)
		}
		s.result.Unchanged = append(s.result.Unchanged, name)
	}
	return nil
}

// staleOutputs lists, sorted and without repeats, the paths p asks to
// delete: its Delete list, and every output of the previous manifest under
// the artifacts folder that this plan neither writes nor keeps.
func staleOutputs(p Plan) []string {
	wanted := make(map[string]bool, len(p.Files)+len(p.Keep)+1)
	for _, f := range p.Files {
		wanted[f.Path] = true
	}
	for _, name := range p.Keep {
		wanted[name] = true
	}
	wanted[p.Manifest.Path] = true
	// LockPath (see AcquireLock) and LogLockPath (see LockLog) are never
	// deleted, even if a damaged manifest names them: deleting a held lock
	// file would let a second writer lock a fresh one.
	wanted[LockPath], wanted[LogLockPath] = true, true
	gone := slices.Clone(p.Delete)
	for _, name := range p.Previous {
		if !wanted[name] && strings.HasPrefix(name, Dir+"/") {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return slices.Compact(gone)
}

// findDeletes queues each path of gone that is still on disk. A folder is
// refused, never deleted; requested (the plan's Delete list, rules files)
// decides which fix the error names.
func (s *surveyed) findDeletes(root *os.Root, requested, gone []string) error {
	for _, name := range gone {
		if err := checkBelowDir(root, name); err != nil {
			return err
		}
		info, err := root.Lstat(filepath.FromSlash(name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // already gone: nothing to do, and not a change
		}
		if err != nil {
			return fmt.Errorf("artifacts: cannot check %s before deleting it: %w", name, err)
		}
		if info.IsDir() && slices.Contains(requested, name) {
			return fmt.Errorf("artifacts: %s is a folder, not a rules file; move it away and build again", name)
		}
		if info.IsDir() {
			return fmt.Errorf("artifacts: the previous manifest names folder %s as an output, which cairn never writes; delete %s and build again", name, ManifestPath)
		}
		s.deletes = append(s.deletes, name)
		s.result.Changes = append(s.result.Changes, Change{Path: name, Action: ActionDelete})
	}
	return nil
}

// compareManifest decides whether the manifest is written. Sync writes it
// last, after every other change, so it is kept apart from writes.
func (s *surveyed) compareManifest(root *os.Root, m File) error {
	action, err := compare(root, m.Path, m.Data)
	if err != nil {
		return err
	}
	if action == "" {
		s.result.Unchanged = append(s.result.Unchanged, m.Path)
	} else {
		s.writeManifest = true
		s.result.Changes = append(s.result.Changes, Change{Path: m.Path, Action: action})
	}
	return nil
}

// checkPlanPaths refuses unsafe and duplicate paths before anything is read.
// A path may appear once across Files, Keep and Manifest: two claims on one
// file would make the result depend on write order.
func checkPlanPaths(p Plan) error {
	if p.Manifest.Path == "" {
		return errors.New("artifacts: sync: the plan has no manifest; every build writes one")
	}
	seen := make(map[string]string, len(p.Files)+len(p.Keep)+1)
	claim := func(name, role string) error {
		if err := checkPath(name); err != nil {
			return fmt.Errorf("artifacts: refusing %s %q: %w", role, name, err)
		}
		if name == LockPath || name == LogLockPath {
			return fmt.Errorf("artifacts: refusing %s %q: the path is reserved for a lock", role, name)
		}
		if first, dup := seen[name]; dup {
			if first == role {
				return fmt.Errorf("artifacts: %s %s is planned twice; each output has one owner", role, name)
			}
			return fmt.Errorf("artifacts: %s is planned twice (as %s and as %s); each output has one owner", name, first, role)
		}
		seen[name] = role
		return nil
	}
	for _, f := range p.Files {
		if err := claim(f.Path, "output"); err != nil {
			return err
		}
	}
	for _, name := range p.Keep {
		if err := claim(name, "kept output"); err != nil {
			return err
		}
	}
	// Release and Delete reach outside the artifacts folder into files a
	// person may have written: only rules files may be named there.
	for _, f := range p.Release {
		if err := claimRules(claim, f.Path, "released rules file"); err != nil {
			return err
		}
	}
	for _, name := range p.Delete {
		if err := claimRules(claim, name, "rules file to delete"); err != nil {
			return err
		}
	}
	if err := claim(p.Manifest.Path, "manifest"); err != nil {
		return err
	}
	// The previous manifest is read from disk and may have been edited by
	// hand; deleting what it names must never reach outside the outputs.
	for _, name := range p.Previous {
		if err := checkPath(name); err != nil {
			return fmt.Errorf("artifacts: the previous manifest names %q, which is not a safe output path: %w; delete %s and build again", name, err, ManifestPath)
		}
	}
	return nil
}

// claimRules claims a path that must name a rules file.
func claimRules(claim func(name, role string) error, name, role string) error {
	if !IsRulesFile(name) {
		return fmt.Errorf("artifacts: refusing %s %q: only AGENTS.md and CLAUDE.md files outside %s are released or deleted by name", role, name, Dir)
	}
	return claim(name, role)
}

// checkPath accepts only clean, relative, "/"-separated paths below the
// root. Symlinks are checked later, by os.Root, when the path is used.
func checkPath(name string) error {
	switch {
	case name == "":
		return errors.New("the path is empty")
	case strings.Contains(name, `\`):
		return errors.New(`the path contains a backslash; use "/" as the separator`)
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name):
		return errors.New("the path is absolute; outputs are relative to the base root")
	case slices.Contains(strings.Split(name, "/"), ".."):
		return errors.New(`the path contains ".."; outputs stay inside the base`)
	case name == "." || !fs.ValidPath(name):
		return errors.New(`the path is not clean (empty or "." elements, or a trailing "/")`)
	case !filepath.IsLocal(filepath.FromSlash(name)):
		return errors.New("the path is not a local file name on this system")
	}
	return nil
}

// compare says what writing data at name would be: ActionCreate,
// ActionUpdate, or "" when the bytes on disk are already data. The size is
// checked first so that a changed file is usually known without reading it.
//
// A link at name is never read. Under .cairn it is replaced, like any file
// there that is not cairn's; anywhere else (a rules file) it is the user's,
// and refused: replacing it would change what the user linked, and writing
// through it would write where it points.
func compare(root *os.Root, name string, data []byte) (string, error) {
	return compareFile(root, File{Path: name, Data: data}, "")
}

// compareFile is compare for a File, whose bytes may be staged; was is the
// hash the previous build recorded for it, "" for none.
func compareFile(root *os.Root, file File, was string) (string, error) {
	name := file.Path
	osName := filepath.FromSlash(name)
	info, err := root.Lstat(osName)
	if errors.Is(err, fs.ErrNotExist) {
		return ActionCreate, nil
	}
	if err != nil {
		if file := blockingFile(root, name); file != "" {
			return "", fmt.Errorf("artifacts: cannot write %s: %s is a file where cairn needs a folder; move or rename it", name, file)
		}
		return "", fmt.Errorf("artifacts: cannot use %s as an output: %w", name, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		if strings.HasPrefix(name, Dir+"/") {
			return ActionUpdate, nil
		}
		return "", &LinkError{Path: name, Fix: "cairn writes its section only in a regular file and never through a link: replace the link with a copy of the file it points to (or remove it) and build again"}
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("artifacts: %s exists and is not a regular file; move it away so cairn can write its output there", name)
	}
	if info.Size() != file.Size() || file.staged != nil && was != "" && file.staged.xxhash != was {
		return ActionUpdate, nil
	}
	f, err := root.Open(osName)
	if err != nil {
		return "", fmt.Errorf("artifacts: cannot read %s: %w", name, err)
	}
	defer f.Close()
	var same bool
	if file.staged != nil {
		same, err = file.staged.sameAs(root, f)
	} else {
		same, err = sameBytes(f, file.Data)
	}
	if err != nil {
		return "", fmt.Errorf("artifacts: cannot read %s: %w", name, err)
	}
	if same {
		return "", nil
	}
	return ActionUpdate, nil
}

// compareChunk is how much of a file is read at a time when comparing it:
// streaming keeps a large artifact from being held in memory twice.
const compareChunk = 64 << 10

// sameBytes reports whether r holds exactly data.
func sameBytes(r io.Reader, data []byte) (bool, error) {
	buf := make([]byte, compareChunk)
	rest := data
	for {
		n, err := r.Read(buf)
		if n > len(rest) || !bytes.Equal(buf[:n], rest[:n]) {
			return false, nil
		}
		rest = rest[n:]
		if err == io.EOF {
			return len(rest) == 0, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// writeAtomic replaces name with data so that a reader sees either the old
// bytes or the new ones, never a mix: the data goes to a temp file in the
// same folder (so the rename stays on one file system), is fsynced, renamed
// over the target, and the folder is fsynced so the rename itself survives a
// crash. The temp file is removed on any failure.
func writeAtomic(root *os.Root, name string, data []byte) error {
	if err := runHook("write", name); err != nil {
		return fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	dir := path.Dir(name)
	if err := makeDirs(root, dir); err != nil {
		return fmt.Errorf("artifacts: cannot create the folder for %s: %w", name, err)
	}
	tmp, f, err := createTemp(root, dir, path.Base(name))
	if err != nil {
		return fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	if _, err = f.Write(data); err != nil {
		f.Close()
	} else {
		err = installTemp(root, f, tmp, name)
	}
	if err != nil {
		root.Remove(filepath.FromSlash(tmp))
		return fmt.Errorf("artifacts: cannot write %s: %w", name, err)
	}
	return nil
}

// installTemp puts the temporary file tmp, open as f, in place of name:
// it gives it the permissions of the file it replaces (a user's AGENTS.md
// kept private stays private; a new file gets 0644, less the umask, and
// so does one replacing a link), syncs and closes it, renames it over
// name and syncs the folder, so the rename itself survives a crash. It
// closes f whatever happens; the caller removes tmp on an error.
func installTemp(root *os.Root, f *os.File, tmp, name string) error {
	var err error
	if st, lerr := root.Lstat(filepath.FromSlash(name)); lerr == nil && st.Mode().IsRegular() {
		err = f.Chmod(st.Mode().Perm())
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = runHook("rename", name)
	}
	if err == nil {
		err = root.Rename(filepath.FromSlash(tmp), filepath.FromSlash(name))
	}
	if err == nil {
		err = syncDir(root, path.Dir(name))
	}
	return err
}

// blockingFile names the first folder on the way to name that exists and
// is not a folder, or "" when there is none.
func blockingFile(root *os.Root, name string) string {
	for i := range len(name) {
		if name[i] != '/' {
			continue
		}
		info, err := root.Lstat(filepath.FromSlash(name[:i]))
		if err != nil {
			return ""
		}
		if !info.IsDir() {
			return name[:i]
		}
	}
	return ""
}

// makeDirs creates dir and its missing parents (mode 0755), fsyncing the
// parent of each folder it creates so the new entry is as durable as the
// file about to be renamed into it.
func makeDirs(root *os.Root, dir string) error {
	if dir == "." {
		return nil
	}
	info, err := root.Stat(filepath.FromSlash(dir))
	if err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a folder", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := path.Dir(dir)
	if err := makeDirs(root, parent); err != nil {
		return err
	}
	if err := root.Mkdir(filepath.FromSlash(dir), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(root, parent)
}

// remove deletes a stale output and fsyncs its folder. The folder itself is
// left alone even when it becomes empty: it may hold the user's own files
// later, and .cairn must stay for the lock.
func remove(root *os.Root, name string) error {
	if err := runHook("delete", name); err != nil {
		return fmt.Errorf("artifacts: cannot delete stale output %s: %w", name, err)
	}
	err := root.Remove(filepath.FromSlash(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("artifacts: cannot delete stale output %s: %w", name, err)
	}
	if err := syncDir(root, path.Dir(name)); err != nil {
		return fmt.Errorf("artifacts: cannot delete stale output %s: %w", name, err)
	}
	return nil
}

// syncDir fsyncs a folder so that entries created, renamed or removed in it
// survive a crash. Windows cannot fsync a folder (and does not need to), so
// it is skipped there.
func syncDir(root *os.Root, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("fsync folder %s: %w", dir, err)
	}
	return d.Close()
}

func runHook(event, name string) error {
	if syncHook == nil {
		return nil
	}
	return syncHook(event, name)
}
