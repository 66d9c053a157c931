package index

// The shared -update flag, so that go test ./... -update runs here too.
import _ "github.com/cairn-kb/cairn/golden/goldentest"
