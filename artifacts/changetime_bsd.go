//go:build darwin || freebsd || netbsd

package artifacts

import (
	"io/fs"
	"syscall"
)

// ChangeNS is a file's change time (ctime) in nanoseconds: the last time
// its bytes or its metadata changed, which, unlike the modification
// time, no program can set. 0 when the stat holds none.
func ChangeNS(st fs.FileInfo) int64 {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return int64(sys.Ctimespec.Sec)*1e9 + int64(sys.Ctimespec.Nsec)
}
