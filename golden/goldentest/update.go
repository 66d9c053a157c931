// Package goldentest holds what cairn's tests share: whether golden
// tests rewrite their expected files, and building a base in place. The
// rewrite switch is one environment variable rather than a test flag:
// a flag exists only in the test binaries that define it, and
// `go test ./... -update` fails in every package that does not, while
// `CAIRN_UPDATE_GOLDEN=1 go test ./...` runs everywhere and rewrites the
// expected files of every package that has them.
package goldentest

import "os"

// Env is the variable that, set to 1, asks golden tests to rewrite their
// expected files from the current output instead of comparing: review the
// diff like code.
const Env = "CAIRN_UPDATE_GOLDEN"

// Update reports whether golden tests rewrite their expected files.
func Update() bool { return os.Getenv(Env) == "1" }
