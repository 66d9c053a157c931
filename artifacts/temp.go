package artifacts

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Every file cairn writes in a base is written whole to a temporary file
// in its folder and renamed over its name (see writeAtomic). A writer
// killed before the rename leaves that temporary file behind. Two rules
// keep such litter harmless:
//
//   - The name starts with TempPrefix, which the .gitignore of cairn init
//     ignores, so `git add -A` never commits one, and the leading dot
//     keeps it out of cairn's own walk.
//   - The next writer of the same folder, which holds the lock every
//     writer of those files holds (the base lock, or for the notes log
//     the log's own, see LockLog), removes the temporary files of the
//     files it writes there: Sync those of its outputs and rules files
//     (and of the notes log, Plan.Swept, so a killed note's go with the
//     next build), WriteBaseFile those of the one file it writes. It
//     removes only regular files named exactly as cairn names them, in
//     this naming or the one older versions used (".<name>.tmp-<suffix>"),
//     never a link or a user's file that merely looks alike.

// TempPrefix begins the name of every temporary file cairn writes in a
// base: .cairn-tmp-<name>.<suffix>, the suffix being tempSuffixLen
// lower-case hex digits.
const TempPrefix = ".cairn-tmp-"

// TempIgnore is the .gitignore line that ignores cairn's temporary files
// in every folder of a repository.
const TempIgnore = TempPrefix + "*"

// oldTempMark is what older versions put between a file's name and the
// random suffix of its temporary file: ".<name>.tmp-<suffix>".
const oldTempMark = ".tmp-"

// tempRandomBytes is how many random bytes name a temporary file; their
// hex is tempSuffixLen digits.
const (
	tempRandomBytes = 6
	tempSuffixLen   = 2 * tempRandomBytes
)

// tempAttempts bounds the retries when a random temp name is already taken.
const tempAttempts = 10

// createTemp creates the temporary file for base, a file name, in dir,
// open for writing. O_EXCL makes sure it is a fresh file.
func createTemp(root *os.Root, dir, base string) (string, *os.File, error) {
	return createTempMode(root, dir, base, os.O_WRONLY)
}

// createTempMode is createTemp opening the file with access (os.O_WRONLY
// or os.O_RDWR).
func createTempMode(root *os.Root, dir, base string, access int) (string, *os.File, error) {
	var suffix [tempRandomBytes]byte
	for range tempAttempts {
		rand.Read(suffix[:])
		tmp := path.Join(dir, TempPrefix+base+"."+hex.EncodeToString(suffix[:]))
		f, err := root.OpenFile(filepath.FromSlash(tmp), access|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return tmp, f, nil
	}
	return "", nil, fmt.Errorf("no free temp file name in %s after %d attempts", dir, tempAttempts)
}

// tempTarget returns the name of the file a temporary file called name was
// written for, when name is one of cairn's in either naming.
func tempTarget(name string) (string, bool) {
	if len(name) <= tempSuffixLen+1 || !isLowerHex(name[len(name)-tempSuffixLen:]) {
		return "", false
	}
	rest := name[:len(name)-tempSuffixLen]
	if target, ok := strings.CutPrefix(rest, TempPrefix); ok {
		target, ok = strings.CutSuffix(target, ".")
		return target, ok && target != ""
	}
	if target, ok := strings.CutSuffix(rest, oldTempMark); ok && len(target) > 1 && target[0] == '.' {
		return target[1:], true
	}
	return "", false
}

// isLowerHex reports whether s is all lower-case hex digits, as
// hex.EncodeToString writes them.
func isLowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// sweepTemps removes from the folder dir of the base the temporary files
// of cairn's whose target ours accepts. A missing folder holds none. The
// caller holds the lock their writers hold (the base lock, or the log's
// for the notes log), so no write that could own one is under way.
func sweepTemps(root *os.Root, dir string, ours func(target string) bool) error {
	return sweepTempsBut(root, dir, ours, nil)
}

// sweepTempsBut is sweepTemps leaving the temporary files named in keep
// (base-relative): those of the build being synced (see Spool).
func sweepTempsBut(root *os.Root, dir string, ours func(target string) bool, keep map[string]bool) error {
	names, err := tempsIn(root, dir, ours)
	if err != nil {
		return err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return keep[n] })
	for _, name := range names {
		if err := root.Remove(filepath.FromSlash(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("artifacts: cannot remove %s, a temporary file a killed cairn left: %w; remove it by hand", name, err)
		}
	}
	if len(names) > 0 {
		return syncDir(root, dir)
	}
	return nil
}

// tempsIn lists, as base-relative paths, the temporary files of cairn's
// in the folder dir whose target ours accepts.
func tempsIn(root *os.Root, dir string, ours func(target string) bool) ([]string, error) {
	d, err := root.Open(filepath.FromSlash(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot list %s for stale temporary files: %w", dir, err)
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("artifacts: cannot list %s for stale temporary files: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if target, ok := tempTarget(e.Name()); ok && e.Type().IsRegular() && ours(target) {
			names = append(names, path.Join(dir, e.Name()))
		}
	}
	return names, nil
}

// linkOnWay returns the first element of name, a base-relative path, that
// is a symbolic link: a folder on the way or the file itself; "" when
// there is none. Elements that do not exist yet end the look: a writer
// creates them as real folders.
func linkOnWay(root *os.Root, name string) (string, error) {
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		info, err := root.Lstat(filepath.FromSlash(name[:i]))
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("artifacts: cannot check %s: %w", name[:i], err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return name[:i], nil
		}
	}
	return "", nil
}

// sweepPlanTemps removes the temporary files a killed build left in the
// folders the plan p writes in: in a folder of the artifacts folder, any
// of cairn's (the folder is cairn's alone, and an output may have been
// dropped since); beside a rules file, only those of the rules files the
// plan names there; and beside a swept file (the notes log), see
// sweepSwept. A folder outside .cairn reached through a link is left
// alone: the build writes nothing through one. Folders go in sorted
// order, so a failure is the same on every run.
func sweepPlanTemps(root *os.Root, p Plan) error {
	named := slices.Concat(p.Keep, p.Delete, p.Previous, []string{p.Manifest.Path, LockPath})
	spooled := map[string]bool{} // this build's own, which Sync commits
	for _, f := range slices.Concat(p.Files, p.Release) {
		named = append(named, f.Path)
		if f.staged != nil {
			spooled[f.staged.tmp] = true
		}
	}
	targets := map[string]map[string]bool{} // folder -> rules file names; nil under .cairn
	for _, name := range named {
		dir := path.Dir(name)
		if dir == Dir || strings.HasPrefix(dir, Dir+"/") {
			targets[dir] = nil
			continue
		}
		if !IsRulesFile(name) {
			continue
		}
		if link, err := linkOnWay(root, dir); err != nil || link != "" {
			continue
		}
		if targets[dir] == nil {
			targets[dir] = map[string]bool{}
		}
		targets[dir][path.Base(name)] = true
	}
	for _, dir := range slices.Sorted(maps.Keys(targets)) {
		only := targets[dir]
		if err := sweepTempsBut(root, dir, func(t string) bool { return only == nil || only[t] }, spooled); err != nil {
			return err
		}
	}
	return sweepSwept(root, p.Swept)
}

// sweepSwept removes the temporary files a killed writer left beside each
// swept file (the notes log). Their writers hold the log's lock, not the
// build lock (see LockLog), so they are removed only under the log's
// lock; it is taken only when there is one to remove, so a build of a
// base where no note was killed leaves no lock file, and when a note
// holds it they are left to the next sweep, since one may be that note's
// append under way.
func sweepSwept(root *os.Root, swept []string) error {
	for _, name := range slices.Sorted(slices.Values(swept)) {
		dir, base := path.Dir(name), path.Base(name)
		if link, err := linkOnWay(root, dir); err != nil || link != "" {
			continue
		}
		ours := func(t string) bool { return t == base }
		found, err := tempsIn(root, dir, ours)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			continue
		}
		lock, err := lockLogIn(root, "cairn build")
		var busy *FileBusyError
		if errors.As(err, &busy) {
			continue
		}
		if err != nil {
			return err
		}
		err = sweepTemps(root, dir, ours)
		if rerr := lock.Release(); err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
