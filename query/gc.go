package query

import (
	"math"
	"runtime/debug"
	"sync"
)

// indexedGCPercent is the collector's GOGC while an index corpus is open.
// An indexed query allocates a few megabytes and is over, and the default
// (100) starts a collection at 4 MB, in the middle of most queries: its
// workers, mark bits and their fresh pages cost more than the memory it
// frees. At 200 a small query at 100k records takes about 140 fewer page
// faults and a collection only when it allocates 8 MB. A scan holds a
// base's rows, and keeps the default: at 200 its peak memory grows by a
// quarter and, with it, its time.
const indexedGCPercent = 200

// lightGC counts the index corpora open in the process, and remembers the
// setting to go back to when the last one closes.
var lightGC struct {
	sync.Mutex
	open int
	prev int
}

// holdLightGC raises GOGC to indexedGCPercent until release is called,
// unless the process runs at a setting of its own (GOGC in the
// environment, or debug.SetGCPercent): that is left as it is.
func holdLightGC() (release func()) {
	lightGC.Lock()
	defer lightGC.Unlock()
	if lightGC.open == 0 {
		// Read with the target at its highest for a moment, not at 200: a
		// target set above that (a query's headroom, whose heap counts
		// tens of megabytes of ballast) must not drop, even for the
		// instant before it is put back, or an allocation on another
		// goroutine would start a collection. (Turning the collector off
		// instead would wait for a collection under way to finish.)
		lightGC.prev = debug.SetGCPercent(math.MaxInt32)
		if lightGC.prev == 100 {
			debug.SetGCPercent(indexedGCPercent)
		} else {
			debug.SetGCPercent(lightGC.prev)
		}
	}
	lightGC.open++
	var once sync.Once
	return func() {
		once.Do(func() {
			lightGC.Lock()
			defer lightGC.Unlock()
			if lightGC.open--; lightGC.open == 0 {
				debug.SetGCPercent(lightGC.prev)
			}
		})
	}
}
