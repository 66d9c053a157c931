package artifacts

import "testing"

// SetSyncHook installs the fault hook of Sync for one test of the
// external test package (artifacts_test), which drives whole builds and
// queries and so cannot live in this package.
func SetSyncHook(t testing.TB, h func(event, path string) error) {
	t.Helper()
	syncHook = h
	t.Cleanup(func() { syncHook = nil })
}
