// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
package main

import (
	"os"

	"github.com/cairn-kb/cairn/stages/memory"
)

func main() {
	memory.Enable() // every command is one short process: see stages/memory
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd}
	os.Exit(runEnv(os.Args[1:], env))
}
