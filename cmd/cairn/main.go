// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
//
// Every command runs with the collector at GOGC=200 under a soft memory
// limit of 768 MiB (runtime/debug), decided by measurement once builds
// streamed their corpus through scratch files: paired on the 100k
// benchmark base, a cold build took 0.92 times the CPU of the default
// (GOGC=100) at a peak of 217 against 143 MiB; on the 1M base the limit
// held the peak to 797 MB against the default's 839, at 0.92 times its
// CPU (GOGC=200 alone peaked at 1.2 GB). An indexed query is the same
// either way. (When a build held its whole corpus in memory the default
// was best: GOGC=200 then cost 5% more CPU.) GOGC and GOMEMLIMIT in the
// environment still apply, for whoever tunes them.
package main

import (
	"os"
	"runtime/debug"
)

// gcPercent and memoryLimit are the process policy above.
const (
	gcPercent   = 200
	memoryLimit = 768 << 20
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd}
	os.Exit(runEnv(os.Args[1:], env))
}
