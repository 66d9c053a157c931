//go:build windows

package artifacts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// openShared opens name under root for reading, letting other processes
// rename over it or delete it meanwhile (FILE_SHARE_DELETE), as Unix
// always does. Go's own opens do not share deletion, so a query that holds
// an artifact open (a cairn mcp session holds its reader between
// requests) would make the next build's rename over it fail. The reader
// keeps the bytes it opened, as on Unix.
//
// The open is by the joined path, outside os.Root, and does not follow a
// link at the name (FILE_FLAG_OPEN_REPARSE_POINT); openRegular then checks
// that the file opened is the one os.Root saw there, so nothing outside
// the base is read. Where that open fails for any reason but a missing
// file (a path too long for it, say), os.Root opens the file the usual
// way.
func openShared(root *os.Root, name string) (*os.File, error) {
	p := filepath.Join(root.Name(), name)
	u, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return root.Open(name)
	}
	h, err := windows.CreateFile(u, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if err != nil {
		return root.Open(name)
	}
	return os.NewFile(uintptr(h), p), nil
}
