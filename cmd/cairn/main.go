// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
package main

import (
	"os"
)

func main() {
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd, Policy: processPolicy}
	os.Exit(runEnv(os.Args[1:], env))
}
