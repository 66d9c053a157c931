// Package goldentest holds the -update flag of cairn's golden tests. Every
// test package imports it, so that `go test ./... -update` is accepted by
// every test binary, and the packages with golden files rewrite them.
package goldentest

import "flag"

// Update asks golden tests to rewrite their expected files from the
// current output instead of comparing; review the diff like code.
var Update = flag.Bool("update", false, "rewrite golden files from the current output; review the diff like code")
