//go:build !linux

package load

import "github.com/cairn-kb/cairn/stages/lib/diag"

// fastWalk has no fast path here: walkOnly walks the base.
func fastWalk(dir string, c classifier, top map[string]bool, folders *folderLog) ([]entry, diag.List, bool) {
	return nil, diag.List{}, false
}
