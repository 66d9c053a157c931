//go:build !unix

package artifacts

import (
	"errors"
	"os"
)

// canMap says Mapped reads files here rather than mapping them.
const canMap = false

// mapFile is never called where canMap is false.
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.New("not mapped here") }

// unmapFile has nothing to undo.
func unmapFile([]byte) {}
