// Package golden holds cairn's golden cases: each golden/<case>/base is an
// input base and golden/<case>/want the complete expected output. The demo
// base is embedded here so that `cairn demo` works from any folder.
package golden

import (
	"embed"
	"io/fs"
)

//go:embed all:demo/base
var demo embed.FS

// Demo returns the bundled demo base, rooted at its top folder.
func Demo() fs.FS {
	sub, err := fs.Sub(demo, "demo/base")
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder
	}
	return sub
}
