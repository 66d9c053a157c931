package artifacts

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"github.com/cairn-kb/cairn/golden/testhome"
)

// lockChildEnv, when set, makes the test binary act as a lock holder for
// TestLockHeldByOtherProcess instead of running tests.
const lockChildEnv = "CAIRN_TEST_LOCK_CHILD_ROOT"

// TestMain runs the tests in a home of their own (testhome), so that the
// stat caches they write stay out of the user's. With lockChildEnv set,
// the test binary acts as a lock holder for TestLockHeldByOtherProcess
// instead: it takes the lock, says so on stdout and holds it until killed
// or until stdin closes.
func TestMain(m *testing.M) {
	root := os.Getenv(lockChildEnv)
	if root == "" {
		os.Exit(testhome.Run(m))
	}
	if _, err := AcquireLock(root, "cairn child"); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}
