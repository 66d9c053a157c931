// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
//
// Every command runs with the Go runtime's default memory settings. That
// was decided by measurement, paired on the 100k benchmark base: with the
// collector off (as this command once ran), a cold build took 1.32 times
// the CPU of the default and twice its peak memory (1,070 against
// 541 MiB), and a query that scans the base 1.34 times the CPU and twice
// the memory; the collector saved only the 9% of a 65 ms indexed query.
// GOGC=200 cost 5% more CPU than the default, with a higher peak. GOGC
// and GOMEMLIMIT in the environment still apply, for whoever tunes them.
package main

import "os"

func main() {
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd}
	os.Exit(runEnv(os.Args[1:], env))
}
