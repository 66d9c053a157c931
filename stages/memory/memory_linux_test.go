package memory

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping that holds addr, from
// /proc/self/smaps, and the mapping's range.
func vmFlags(t *testing.T, addr uintptr) (flags []string, span string) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 { // a mapping's first line
			in = lo <= addr && addr < hi
			span = strings.Fields(line)[0]
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:")), span
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil, ""
}

// enable turns Advise and Reserve on for a test, as cairn's main does,
// and back to what they were after it.
func enable(t *testing.T, on bool) {
	was := enabled.Load()
	enabled.Store(on)
	t.Cleanup(func() { enabled.Store(was) })
}

// freeHeap is how much of the heap is mapped and free.
func freeHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// TestNothingUntilEnabled checks that a process that has not called
// Enable maps nothing ahead (and, with the same switch, advises nothing).
func TestNothingUntilEnabled(t *testing.T) {
	enable(t, false)
	before := freeHeap()
	const n = 512 << 20
	Reserve(n)
	if after := freeHeap(); after >= before+n/2 {
		t.Errorf("free heap went from %d to %d bytes after Reserve(%d) without Enable", before, after, n)
	}
}

// hugePagesBuiltIn reports whether the kernel has transparent huge pages
// at all; without them MADV_HUGEPAGE fails and nothing can be advised.
func hugePagesBuiltIn() bool {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil
}

// TestAdviseMarksTheHeap checks that the mapping holding the heap's first
// chunk, and the one holding memory allocated since, ask for huge pages
// ("hg" in VmFlags) once Advise has run.
func TestAdviseMarksTheHeap(t *testing.T) {
	enable(t, true)
	grown := make([]byte, 8<<20) // more than a chunk: the heap grows
	Advise()
	for _, c := range []struct {
		what string
		addr uintptr
	}{
		{"the heap's first chunk", uintptr(unsafe.Pointer(start))},
		{"memory allocated before the advice", uintptr(unsafe.Pointer(unsafe.SliceData(grown)))},
	} {
		flags, span := vmFlags(t, c.addr)
		got := strings.Contains(" "+strings.Join(flags, " ")+" ", " hg ")
		if got != hugePagesBuiltIn() {
			t.Errorf("%s (%s): VmFlags %v; huge pages asked for: %v, want %v", c.what, span, flags, got, hugePagesBuiltIn())
		}
	}
}

// TestReserveMapsAhead checks that Reserve maps the memory it is asked
// for, leaves none of it in use, and that objects allocated afterwards
// land in memory marked for huge pages.
func TestReserveMapsAhead(t *testing.T) {
	enable(t, true)
	const n = 64 << 20
	Reserve(n)
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	if live := s[0].Value.Uint64(); live >= n {
		t.Errorf("%d bytes of objects after Reserve(%d): the ballast was kept", live, n)
	}
	if free := s[1].Value.Uint64() + s[2].Value.Uint64(); free < n {
		t.Errorf("%d bytes of the heap mapped and free after Reserve(%d)", free, n)
	}
	var objs [][]byte
	for range 2048 {
		objs = append(objs, make([]byte, 8<<10))
	}
	last := objs[len(objs)-1]
	last[0] = 1
	flags, span := vmFlags(t, uintptr(unsafe.Pointer(unsafe.SliceData(last))))
	got := strings.Contains(" "+strings.Join(flags, " ")+" ", " hg ")
	if got != hugePagesBuiltIn() {
		t.Errorf("an object allocated after Reserve lies in %s with VmFlags %v; huge pages asked for: %v, want %v", span, flags, got, hugePagesBuiltIn())
	}
}

// resident is the process's resident memory in bytes.
func resident(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	var size, pages int64
	if _, err := fmt.Sscan(string(data), &size, &pages); err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

var garbage [][]byte

// TestReserveTouchesNothing checks that the memory Reserve maps ahead is
// not made resident, even when the heap's free memory begins with pages
// a collection freed: an allocation overlapping them would be cleared
// whole, touching every page of it.
func TestReserveTouchesNothing(t *testing.T) {
	enable(t, true)
	for range 256 {
		garbage = append(garbage, make([]byte, 32<<10))
	}
	for _, g := range garbage {
		g[0] = 1
	}
	garbage = nil
	runtime.GC() // the pages just used are free again, and resident
	const n = 256 << 20
	before := resident(t)
	Reserve(n)
	if grew := resident(t) - before; grew > n/4 {
		t.Errorf("Reserve(%d MB) made %d MB resident", n>>20, grew>>20)
	}
}

// TestStrictCommitMapsNothingAhead checks that under overcommit mode 2,
// where a writable mapping counts against a fixed limit, Reserve maps no
// heap ahead, and that the other modes are told apart.
func TestStrictCommitMapsNothingAhead(t *testing.T) {
	enable(t, true)
	dir := t.TempDir()
	old := overcommitPath
	t.Cleanup(func() { overcommitPath = old })
	for mode, strict := range map[string]bool{"0\n": false, "1\n": false, "2\n": true} {
		overcommitPath = filepath.Join(dir, "mode")
		if err := os.WriteFile(overcommitPath, []byte(mode), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := strictCommit(); got != strict {
			t.Errorf("overcommit mode %q: strict = %v, want %v", mode, got, strict)
		}
	}
	before := freeHeap()
	const n = 512 << 20
	if err := os.WriteFile(overcommitPath, []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Reserve(n)
	if after := freeHeap(); after >= before+n/2 {
		t.Errorf("free heap went from %d to %d bytes after Reserve(%d) in mode 2", before, after, n)
	}
	overcommitPath = filepath.Join(dir, "missing")
	if strictCommit() {
		t.Error("an unreadable mode counts as strict")
	}
}

// gcCycles is how many collections the process has finished.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// gcPercent is the collector's current GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestReserveCollectsOnce checks that mapping the heap ahead costs one
// collection, not one for every few megabytes of ballast, and leaves the
// collector's target as it was.
func TestReserveCollectsOnce(t *testing.T) {
	enable(t, true)
	runtime.GC()
	before, pct := gcCycles(), gcPercent()
	Reserve(64 << 20)
	if n := gcCycles() - before; n != 1 {
		t.Errorf("Reserve(64 MB) ran %d collections, want 1", n)
	}
	if got := gcPercent(); got != pct {
		t.Errorf("GOGC is %d after Reserve, was %d", got, pct)
	}
}

// TestHeadroom checks, in a process of its own (a fresh heap, as a
// command has), that Headroom(n) runs no collection, that a task then
// allocates about n bytes without one, in memory marked for huge pages,
// and that restore puts the collector's target back.
func TestHeadroom(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	enable(t, true)
	pct := gcPercent()
	const n = 16 << 20
	before := gcCycles()
	restore := Headroom(n)
	if c := gcCycles() - before; c != 0 {
		t.Errorf("Headroom(%d MB) ran %d collections, want none", n>>20, c)
	}
	var objs [][]byte
	for range n * 3 / 4 / (8 << 10) { // three quarters of n in small objects, all kept
		objs = append(objs, make([]byte, 8<<10))
	}
	if c := gcCycles() - before; c != 0 {
		t.Errorf("%d collections while allocating %d MB after Headroom(%d MB)", c, n*3/4>>20, n>>20)
	}
	last := objs[len(objs)-1]
	last[0] = 1
	flags, span := vmFlags(t, uintptr(unsafe.Pointer(unsafe.SliceData(last))))
	if got := strings.Contains(" "+strings.Join(flags, " ")+" ", " hg "); got != hugePagesBuiltIn() {
		t.Errorf("an object allocated after Headroom lies in %s with VmFlags %v; huge pages asked for: %v, want %v", span, flags, got, hugePagesBuiltIn())
	}
	if got := gcPercent(); got <= pct {
		t.Errorf("GOGC is %d during the headroom, was %d before", got, pct)
	}
	restore()
	restore() // a second call changes nothing
	if got := gcPercent(); got != pct {
		t.Errorf("GOGC is %d after restore, want %d", got, pct)
	}
}

// ownProcess runs the calling test again in a process of its own, whose
// heap is as a command's starts, and reports whether this is that process:
// if not, the test has run there, and passed or failed t.
func ownProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv("CAIRN_TEST_OWN_PROCESS") == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_OWN_PROCESS="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("in a process of its own: %v\n%s", err, out)
	}
	return false
}

// TestGrowFree checks that growFree leaves n bytes of heap mapped and
// free above what it allocated: allocations of n in all, made after it,
// land in one range above its last piece and map no more heap.
func TestGrowFree(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 12 << 20
	mappedBefore := heapMapped()
	growFree(n)
	grown := heapMapped() - mappedBefore
	if grown < n {
		t.Fatalf("growFree(%d MB) mapped %d MB", n>>20, grown>>20)
	}
	mapped := heapMapped()
	var objs [][]byte
	for range (n - 64<<10) / (64 << 10) {
		objs = append(objs, make([]byte, 64<<10))
	}
	if more := heapMapped() - mapped; more != 0 {
		t.Errorf("allocating %d MB after growFree(%d MB) mapped %d KB more heap", n>>20, n>>20, more>>10)
	}
	runtime.KeepAlive(objs)
}

// heapMapped is how much heap the runtime has mapped, free or not.
func heapMapped() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	var sum uint64
	for _, v := range s {
		sum += v.Value.Uint64()
	}
	return sum
}

// TestHeadroomAfterCollection checks, in a process of its own, that once
// a collection has run, Headroom maps nothing and leaves the collector's
// target as it is: the ballast would land in freed memory, which the
// runtime clears.
func TestHeadroomAfterCollection(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	enable(t, true)
	runtime.GC()
	pct, mapped := gcPercent(), heapMapped()
	restore := Headroom(16 << 20)
	if got := gcPercent(); got != pct {
		t.Errorf("GOGC is %d after Headroom in a collected heap, was %d", got, pct)
	}
	if grew := heapMapped() - mapped; grew >= 16<<20 {
		t.Errorf("Headroom in a collected heap mapped %d MB more", grew>>20)
	}
	restore()
}

// TestHeadroomOutgrown checks, in a process of its own, that a task that
// outgrows its headroom gets the collector's target back with its first
// collection.
func TestHeadroomOutgrown(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	enable(t, true)
	pct := gcPercent()
	restore := Headroom(16 << 20)
	defer restore()
	if got := gcPercent(); got <= pct {
		t.Fatalf("GOGC is %d during the headroom, was %d before", got, pct)
	}
	runtime.GC() // as if the task had allocated past the raised target
	// The cleanup runs on a goroutine of its own after the collection.
	for deadline := time.Now().Add(10 * time.Second); gcPercent() != pct && time.Now().Before(deadline); {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if got := gcPercent(); got != pct {
		t.Errorf("GOGC is %d after a collection during the headroom, want %d back", got, pct)
	}
}

// TestReserveAfterHeadroom checks, in a process of its own, that Reserve
// counts what a headroom mapped before it: a scan that follows a query's
// headroom, once the headroom's ballast is collected, must not have its
// own ballast land in the freed range, where the runtime would clear it
// and make it resident.
func TestReserveAfterHeadroom(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	enable(t, true)
	restore := Headroom(16 << 20)
	restore()
	runtime.GC() // the headroom's ballast goes, as the scan's first allocations would have it
	before := resident(t)
	const n = 48 << 20
	Reserve(n)
	if grew := resident(t) - before; grew > n/4 {
		t.Errorf("Reserve(%d MB) after a headroom made %d MB resident", n>>20, grew>>20)
	}
}

// TestHeadroomKeepsTheCollectorOff checks, in a process of its own, that
// with GOGC=off Headroom leaves the collector off, during and after.
func TestHeadroomKeepsTheCollectorOff(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	enable(t, true)
	pct := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(pct)
	restore := Headroom(16 << 20)
	if got := gcPercent(); got != -1 {
		t.Errorf("GOGC is %d during the headroom, want off (-1)", got)
	}
	restore()
	if got := gcPercent(); got != -1 {
		t.Errorf("GOGC is %d after restore, want off (-1)", got)
	}
}

// TestHeadroomNothingUntilEnabled checks, in a process of its own, that a
// process that has not called Enable keeps its collector as it is.
func TestHeadroomNothingUntilEnabled(t *testing.T) {
	if !ownProcess(t) {
		return
	}
	enable(t, false)
	before, pct := gcCycles(), gcPercent()
	restore := Headroom(64 << 20)
	if got := gcPercent(); got != pct {
		t.Errorf("GOGC is %d after Headroom without Enable, was %d", got, pct)
	}
	if n := gcCycles() - before; n != 0 {
		t.Errorf("Headroom without Enable ran %d collections", n)
	}
	restore()
}

// residentPages counts the resident pages of [lo, lo+n), both
// page-aligned.
func residentPages(t *testing.T, lo, n uintptr) int {
	t.Helper()
	// A vector on the stack: an allocation here could land in the very
	// range looked at, and make a page of it resident.
	var vec [hugePage >> 12]byte
	if n > hugePage {
		t.Fatalf("residentPages looks at most %d bytes", hugePage)
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, lo, n, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore %#x+%d: %v", lo, n, errno)
	}
	count := 0
	for _, v := range vec[:n>>12] {
		count += int(v & 1)
	}
	return count
}

// TestFillSmallPages checks, in a process of its own, that after
// fillSmallPages the heap hands out nothing below a huge page that had no
// page resident, that every huge page below that boundary down to the
// heap's start has one (the filler covers the heap's small pages and no
// more), and that the filler itself made nothing resident.
func TestFillSmallPages(t *testing.T) {
	if syscall.Getpagesize() != 4<<10 {
		t.Skip("fillSmallPages acts only on 4 KB pages")
	}
	if !ownProcess(t) {
		return
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // nothing freed below the boundary meanwhile
	lo := uintptr(unsafe.Pointer(start))
	before := resident(t)
	fillSmallPages()
	b := fillBoundary
	if b%hugePage != 0 || b <= lo {
		t.Fatalf("boundary %#x: want a huge-page boundary above the heap's start %#x", b, lo)
	}
	if n := residentPages(t, b, hugePage); n != 0 {
		t.Errorf("%d pages resident in the huge page at the boundary %#x", n, b)
	}
	grew := resident(t) - before
	for p := (lo + hugePage - 1) &^ (hugePage - 1); p < b; p += hugePage {
		if residentPages(t, p, hugePage) == 0 {
			t.Errorf("huge page %#x below the boundary %#x had nothing resident: filled needlessly", p, b)
		}
	}
	var size int64
	for _, f := range filler {
		size += int64(len(f))
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(f))); a >= b {
			t.Errorf("filler piece at %#x, at or above the boundary %#x", a, b)
		}
	}
	if grew > size/2+256<<10 && !raceEnabled { // the process makes a little resident meanwhile
		t.Errorf("filling %d KB made %d KB resident", size>>10, grew>>10)
	}
	for _, size := range []int{8 << 10, 64 << 10, 1 << 20} {
		x := make([]byte, size)
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(x))); a < b {
			t.Errorf("a %d-byte allocation landed at %#x, below the boundary %#x", size, a, b)
		}
	}
	t.Logf("heap start %#x, boundary %#x, %d filler pieces, %d KB", lo, b, len(filler), size>>10)
}
