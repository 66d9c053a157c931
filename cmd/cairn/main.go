// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
package main

import (
	"os"

	"github.com/cairn-kb/cairn/stages/memory"
)

func main() {
	memory.Enable() // every command is one short process: see stages/memory
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
