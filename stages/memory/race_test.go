//go:build race

package memory

// raceEnabled is whether the tests run under the race detector, which
// backs every allocation with shadow memory of its own: allocating then
// makes memory resident even where the allocation is never touched.
const raceEnabled = true
