package eval

import (
	"os"
	"testing"

	"github.com/cairn-kb/cairn/golden/testhome"
)

// TestMain runs the tests in a home of their own (testhome): the queries
// an eval asks refresh the base's stat cache, which must not land in the
// user's caches.
func TestMain(m *testing.M) { os.Exit(testhome.Run(m)) }
