//go:build !linux

package query

import (
	"io/fs"
	"os"
)

// folderFS is the base's os.Root itself outside Linux.
type folderFS struct{ fs.FS }

func newFolderFS(root *os.Root) *folderFS { return &folderFS{root.FS()} }

// Close does nothing: the root is closed by its owner.
func (*folderFS) Close() {}
