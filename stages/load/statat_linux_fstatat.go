//go:build linux && (arm64 || riscv64 || loong64)

package load

import "syscall"

// statAt stats the file name in the folder open as fd (the file at path
// p of the base in the folder dir), without following a link: see the
// amd64 version.
func statAt(fd int, _, name, _ string) (syscall.Stat_t, bool) {
	var st syscall.Stat_t
	const atSymlinkNoFollow = 0x100
	err := syscall.Fstatat(fd, name, &st, atSymlinkNoFollow)
	return st, err == nil
}
