// Command cairn compiles a knowledge base into static, byte-reproducible
// artifacts and answers questions from them. See the README.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
