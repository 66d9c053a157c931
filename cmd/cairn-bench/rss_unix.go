//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSKiB is the peak resident set size of a finished child process in
// KiB, from its rusage (Linux reports KiB, macOS bytes).
func peakRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
