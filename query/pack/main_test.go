package pack

import (
	"os"
	"testing"

	"github.com/cairn-kb/cairn/golden/testhome"
)

// TestMain runs the tests in a home of their own (testhome): a query
// refreshes the base's stat cache and may save receipt snapshots, which
// must not land in the user's caches and state.
func TestMain(m *testing.M) { os.Exit(testhome.Run(m)) }
