//go:build linux && !amd64 && !arm64 && !riscv64 && !loong64

package load

import "syscall"

// statAt stats the file at path p of the base in the folder dir, without
// following a link, by its whole path: the syscall package offers no
// fstatat on this architecture.
func statAt(_ int, dir, _, p string) (syscall.Stat_t, bool) {
	var st syscall.Stat_t
	err := syscall.Lstat(dir+"/"+p, &st)
	return st, err == nil
}
