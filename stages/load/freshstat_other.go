//go:build !linux

package load

import "github.com/cairn-kb/cairn/artifacts"

// statTake has no fast path here, as fastWalk has none: Take walks.
func statTake(dir string, c classifier, top map[string]bool, stat artifacts.StatLookup) ([]entry, bool) {
	return nil, false
}
