//go:build unix

package collect

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, led by it, and has
// its cancellation (a timeout, a cap reached, an interrupt) kill that whole
// group: what the command started in the background goes with it instead
// of running on unwatched. The group is cmd's own, so the kill never
// reaches cairn.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
