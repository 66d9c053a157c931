//go:build !unix

package collect

import "os/exec"

// ownGroup leaves cmd as it is where there are no Unix process groups:
// its cancellation kills the command alone.
func ownGroup(cmd *exec.Cmd) {}
