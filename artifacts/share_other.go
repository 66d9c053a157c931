//go:build !windows

package artifacts

import "os"

// openShared opens name under root for reading. Unix lets a writer rename
// over an open file; see the Windows version.
func openShared(root *os.Root, name string) (*os.File, error) { return root.Open(name) }
