//go:build !linux

package query

// baseWatch is inotify's on Linux; elsewhere a session walks the base per
// request, as a process per question does.
type baseWatch struct{}

func startWatch(string) *baseWatch              { return nil }
func (*baseWatch) cover([]string) (bool, error) { return false, nil }
func (*baseWatch) generation() (uint64, bool)   { return 0, false }
func (*baseWatch) close()                       {}
