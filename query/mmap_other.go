//go:build !unix

package query

import "os"

// mapFile does not map on this system: the file is read with positioned
// reads.
func mapFile(*os.File, int64) ([]byte, error) { return nil, nil }

func unmapFile([]byte) error { return nil }
