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
//   - The next writer of the same folder, which holds the base lock as
//     every writer in a base does, removes the temporary files of the
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

// createTemp creates the temporary file for base, a file name, in dir.
// O_EXCL makes sure it is a fresh file.
func createTemp(root *os.Root, dir, base string) (string, *os.File, error) {
	var suffix [tempRandomBytes]byte
	for range tempAttempts {
		rand.Read(suffix[:])
		tmp := path.Join(dir, TempPrefix+base+"."+hex.EncodeToString(suffix[:]))
		f, err := root.OpenFile(filepath.FromSlash(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
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
// caller holds the base lock, so no write that could own one is under way.
func sweepTemps(root *os.Root, dir string, ours func(target string) bool) error {
	d, err := root.Open(filepath.FromSlash(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("artifacts: cannot list %s for stale temporary files: %w", dir, err)
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("artifacts: cannot list %s for stale temporary files: %w", dir, err)
	}
	removed := false
	for _, e := range ents {
		target, ok := tempTarget(e.Name())
		if !ok || !e.Type().IsRegular() || !ours(target) {
			continue
		}
		name := path.Join(dir, e.Name())
		if err := root.Remove(filepath.FromSlash(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("artifacts: cannot remove %s, a temporary file a killed cairn left: %w; remove it by hand", name, err)
		}
		removed = true
	}
	if removed {
		return syncDir(root, dir)
	}
	return nil
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
// dropped since); beside a rules file or a swept file (the notes log),
// only those of the rules and swept files the plan names there. A folder
// outside .cairn reached through a link is left alone: the build writes
// nothing through one. Folders go in sorted order, so a failure is the
// same on every run.
func sweepPlanTemps(root *os.Root, p Plan) error {
	named := slices.Concat(p.Keep, p.Delete, p.Previous, []string{p.Manifest.Path, LockPath})
	for _, f := range slices.Concat(p.Files, p.Release) {
		named = append(named, f.Path)
	}
	targets := map[string]map[string]bool{} // folder -> rules file names; nil under .cairn
	for _, name := range slices.Concat(named, p.Swept) {
		dir := path.Dir(name)
		if dir == Dir || strings.HasPrefix(dir, Dir+"/") {
			targets[dir] = nil
			continue
		}
		if !IsRulesFile(name) && !slices.Contains(p.Swept, name) {
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
		if err := sweepTemps(root, dir, func(t string) bool { return only == nil || only[t] }); err != nil {
			return err
		}
	}
	return nil
}
