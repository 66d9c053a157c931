// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd, Policy: processPolicy}
	os.Exit(runEnv(os.Args[1:], env))
}

// longLived marks a command whose process serves for a long time
// (`cairn mcp`, see McpCmd.longLived): it keeps the Go runtime's default collector.
type longLived interface{ longLived() }

// processPolicy sets the process-wide memory policy, once, before the
// command runs. Every command but a long-lived one is a short process that
// allocates what it needs and exits, so the collector is off, as esbuild
// does: collecting memory the exit frees anyway only costs time. A memory
// limit is the backstop: a build too large for memory collects as it nears
// the limit instead of growing until the kernel kills it. GOGC or
// GOMEMLIMIT in the environment wins, for whoever tunes it by hand.
func processPolicy(cmd any) {
	if _, ok := cmd.(longLived); ok {
		return
	}
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(memoryLimit())
}

// fallbackLimit is the memory limit where the physical memory is unknown.
const fallbackLimit = 1 << 30

// memoryLimit is a quarter of the machine's physical memory: above what
// a command needs with the collector off (a cold build of the 100k
// benchmark base peaks at 1.05 GB), so that only a larger base collects,
// near the limit, instead of growing until the machine runs out; and low
// enough to leave room for what a CI machine runs beside it.
func memoryLimit() int64 {
	if m := physicalMemory(); m > 0 {
		return int64(m / 4)
	}
	return fallbackLimit
}
