package memory

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// enabled is whether the process has asked for huge pages (Enable).
var enabled atomic.Bool

// Enable lets Advise and Reserve act in this process; until then they do
// nothing. A short-lived process (each cairn command) calls it first. A
// long-lived one should not: Linux's khugepaged collapses a marked range
// into huge pages in the background even where the runtime has handed
// memory back to the kernel, so a server's resident memory would creep
// up to its heap's high-water mark.
func Enable() { enabled.Store(true) }

// madvHugepage is MADV_HUGEPAGE, the same on every Linux architecture Go
// supports.
const madvHugepage = 14

// heapChunk is how the runtime maps its heap: in 4 MB chunks, aligned.
const heapChunk = 4 << 20

// heapWindowGiB is how much address space above the heap's start Advise
// covers, in GiB: the heap's arenas are reserved there, one after the
// other, and a heap larger than this (a build of a few million records)
// is advised only as far. A variable: on 32-bit platforms the constant
// would not compile, and Advise does nothing there.
var heapWindowGiB uintptr = 4

// minReserve is the least Reserve maps ahead: 2,048 small pages, whose
// faults cost a few times what a collection does at the start of a build.
const minReserve = 8 << 20

// overcommitPath holds the kernel's overcommit mode; a variable for tests.
var overcommitPath = "/proc/sys/vm/overcommit_memory"

// strictCommit reports whether the kernel counts every writable mapping
// against a fixed limit (overcommit mode 2): there, mapping the heap
// ahead could fail a build that would have fitted, so nothing is mapped
// ahead. The file is read with three system calls: os.ReadFile takes
// ten (it sets up the poller for the file), 0.2 ms of a query here.
func strictCommit() bool {
	fd, err := syscall.Open(overcommitPath, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var buf [16]byte
	n, err := syscall.Read(fd, buf[:])
	return err == nil && n > 0 && strings.TrimSpace(string(buf[:n])) == "2"
}

// ballastPiece is the size of the allocations Reserve maps ahead with.
const ballastPiece = 1 << 20

// start is allocated while the packages initialise, when the heap is a
// few hundred kilobytes: its chunk is where the heap begins, since the
// runtime grows the heap upwards from there.
var start = new([16]byte)

// wide is whether the heap is one range growing upwards from start: on
// 32-bit platforms the runtime maps heap wherever the address space has
// room, and nothing is advised.
const wide = unsafe.Sizeof(uintptr(0)) == 8

// Advise asks the kernel to back the heap's untouched pages with huge
// pages: it advises heapWindowGiB of address space from the heap's first
// chunk, over which the runtime grows the heap. The kernel marks the
// mappings the range holds and skips what is not mapped. It costs one system call, a
// few microseconds, and is meant to be called where the heap may have
// grown. (runtime/metrics would say how much is mapped, but its package
// initialisation alone costs every process half a millisecond.)
func Advise() {
	if !wide || !enabled.Load() {
		return
	}
	lo := uintptr(unsafe.Pointer(start)) &^ (heapChunk - 1)
	// Errors say only that part of the range is not mapped (ENOMEM) or
	// that the kernel has no huge pages (EINVAL): either way there is
	// nothing to do.
	syscall.Syscall(syscall.SYS_MADVISE, lo, heapWindowGiB<<30, madvHugepage)
}

// Reserve makes the heap's next n bytes huge-page memory: it maps them
// with an allocation that is never touched, advises the heap, and lets
// the allocation go with a collection, after which the runtime hands the
// mapped range out again. For work that allocates hundreds of
// megabytes (a build, a scan) the collection is cheap; below minReserve
// it costs about what it saves, and Reserve only advises.
func Reserve(n int) {
	// What a headroom mapped is there already, advised: its ballast is
	// freed by the next collection (Reserve's own, or the first once the
	// target is back). Mapping it again would put the new ballast in the
	// freed range, which the runtime clears, making it resident.
	n -= int(headroomMapped.Swap(0))
	gogc, ok := begin(n)
	if !ok {
		return
	}
	// The ballast is allocated in pieces: the runtime clears an allocation
	// whole when any of it lies in memory handed out before, and a single
	// one starting in pages a collection freed would make all of it
	// resident. Pieces fill such holes first (pages already resident) and
	// the rest lands in fresh memory, untouched.
	ballast := make([][]byte, 0, n/ballastPiece+1)
	for size := 0; size < n; size += ballastPiece {
		ballast = append(ballast, make([]byte, ballastPiece))
	}
	Advise()
	runtime.KeepAlive(ballast) // dead from here: the collection frees it
	runtime.GC()
	mappedAhead.Store(true)
	debug.SetGCPercent(gogc)
}

// Headroom prepares a short task that allocates up to about n bytes, such
// as an indexed query, without a collection: it has the runtime map that
// much heap beyond what it has handed out (growFree), advises it, and
// raises the collector's target above what the heap then counts, so that
// the task's allocations land on huge pages and nothing is collected
// while it runs. A collection here costs about 3 ms and 130 page faults
// of the collector's own bookkeeping, whatever the heap's size, which is
// why Reserve's way is not taken. On the 100k benchmark this took the
// queries 2-4 ms below mapping ahead with a collection, which had taken
// them 3-11 ms below mapping nothing ahead.
//
// restore puts the collector's target back: call it when the task ends,
// and before work whose heap grows with its input, such as a scan. Should
// the task outgrow the headroom, its first collection puts the target
// back too. With the collector off (GOGC=off) it stays off.
//
// Only a process's fresh heap is mapped ahead so: once a collection has
// run or anything was mapped ahead, the heap holds free memory the
// runtime would clear if the ballast landed there, and Headroom only
// advises.
func Headroom(n int) (restore func()) {
	var gc debug.GCStats
	if debug.ReadGCStats(&gc); gc.NumGC > 0 || mappedAhead.Load() {
		if enabled.Load() {
			Advise()
		}
		return func() {}
	}
	gogc, ok := begin(n)
	if !ok {
		return func() {}
	}
	ballast := growFree(n)
	headroomMapped.Add(int64(ballast + n))
	mappedAhead.Store(true)
	Advise()
	if gogc < 0 {
		return func() {}
	}
	// The heap counts the ballast until a collection, and the runtime
	// starts one once the heap reaches 70-95% of its target, which is at
	// least 4 MB times GOGC/100 (heapBefore is for what the process
	// holds already).
	raised := max(gogc, (ballast+n+heapBefore)/(minHeapTarget*7/10)*100+100)
	debug.SetGCPercent(raised)
	var once sync.Once
	put := func() { once.Do(func() { debug.SetGCPercent(gogc) }) }
	runtime.AddCleanup(new(sentinel), func(struct{}) { put() }, struct{}{})
	return put
}

// sentinel is an object nothing refers to, whose cleanup runs after the
// first collection that follows Headroom. It holds a pointer, so that it
// is not packed with other small objects and freed only with them.
type sentinel struct{ _ *byte }

// headroomMapped is about how much heap Headroom has mapped in this
// process: its ballast and the free range above it. mappedAhead is
// whether Reserve or Headroom has mapped any.
var (
	headroomMapped atomic.Int64
	mappedAhead    atomic.Bool
)

// heapBefore is about what a command holds when it asks for headroom.
const heapBefore = 4 << 20

// runtimePage is the runtime's unit of heap, which it hands out in whole
// pages of this size.
const runtimePage = 8 << 10

// growFree has the runtime map at least n bytes of heap beyond what it
// has handed out, without a collection, and returns how much it allocated
// to that end. The runtime grows the heap by whole 4 MB chunks: an
// allocation a page larger than a multiple of 4 MB that does not fit in
// the free heap makes it map the next multiple, and leaves 4 MB less a
// page free above the allocation. The next allocation, a chunk larger,
// again does not fit there: it starts where the free heap starts, and the
// heap mapped for it adds another 4 MB less a page to the free heap above
// it. k steps leave 4k MB less k pages free in one range, for an
// allocation of 2k(k+1) MB. It is garbage at once and never touched, so it
// costs address space and no memory, until a collection frees it. (A heap
// with that much free already takes the pieces without mapping more.)
func growFree(n int) (ballast int) {
	for step := 1; step <= (n+heapChunk-1)/heapChunk; step++ {
		piece := step*heapChunk + runtimePage
		runtime.KeepAlive(make([]byte, piece))
		ballast += piece
	}
	return ballast
}

// minHeapTarget is the runtime's least heap target at GOGC=100.
const minHeapTarget = 4 << 20

// begin starts mapping n bytes of heap ahead: it turns the collector off
// (or each few megabytes of ballast would start a collection of its own)
// and takes the heap's small pages out of use (fillSmallPages); it
// returns the GOGC it found, for the caller to set again. ok is false
// when it did neither: the process has not called Enable, n is under
// minReserve or the kernel commits strictly (where it only advises).
func begin(n int) (gogc int, ok bool) {
	if !wide || !enabled.Load() {
		return 0, false
	}
	if n < minReserve || strictCommit() {
		Advise()
		return 0, false
	}
	gogc = debug.SetGCPercent(-1)
	fillSmallPages()
	return gogc, true
}

// hugePage is the size of a transparent huge page where pages are 4 KB.
const hugePage = 2 << 20

// filler holds what fillSmallPages allocated, for the life of the
// process, and fillBoundary the huge-page boundary it filled up to.
var (
	filler       [][]byte
	fillBoundary uintptr
)

// fillSmallPages takes out of use the free heap below the first huge page
// of the heap that nothing has touched yet. The runtime touches the
// heap's first megabyte or two while the process starts, before anything
// could advise it, so those pages are small ones; and it hands out the
// lowest free pages first, so without this a query's first megabyte of
// allocations would land there, one fault per 4 KB page (about 300 of
// them, 3 ms, on the 100k benchmark's question), ahead of the huge pages
// mapped for it. Where the heap starts within a huge page varies from run
// to run (the runtime randomises it), and so did the count of faults.
//
// The filler is allocated from pages never handed out, which the runtime
// does not clear, and is never written: it costs address space and no
// memory. What it cannot cover (holes smaller than a page) stays free.
// It is done once; only on 4 KB pages, where a huge page is 2 MB.
func fillSmallPages() {
	if fillBoundary != 0 || syscall.Getpagesize() != 4<<10 {
		return
	}
	// Allocated first, so that the filler's list takes no memory above
	// the boundary before the heap is advised; at most 4 MB is filled.
	filler = make([][]byte, 0, 64)
	boundary := freshHugePage(uintptr(unsafe.Pointer(start)))
	fillBoundary = boundary
	// Pieces of 64 KB fill the larger holes in a few allocations, then
	// single pages the rest; each size stops at its first piece at or
	// above the boundary, since the runtime found no lower hole for it.
	for _, piece := range [...]int{64 << 10, 8 << 10} {
		for {
			b := make([]byte, piece)
			if uintptr(unsafe.Pointer(unsafe.SliceData(b))) >= boundary || len(filler) == cap(filler) {
				break
			}
			filler = append(filler, b)
		}
	}
}

// freshHugePage returns the first huge-page boundary above from whose
// huge page has no page resident (mincore); an unmapped range counts as
// fresh. It looks at most 16 MB up.
func freshHugePage(from uintptr) uintptr {
	b := (from + hugePage - 1) &^ (hugePage - 1)
	var vec [hugePage >> 12]byte
	for range 8 {
		_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, b, hugePage, uintptr(unsafe.Pointer(&vec[0])))
		if errno != 0 || !anyResident(vec[:]) {
			return b
		}
		b += hugePage
	}
	return b
}

// anyResident reports whether a mincore vector has a resident page.
func anyResident(vec []byte) bool {
	for _, v := range vec {
		if v&1 != 0 {
			return true
		}
	}
	return false
}
