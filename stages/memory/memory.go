// Package memory backs cairn's heap with transparent huge pages where the
// kernel offers them on request.
//
// A process touching a fresh page of memory takes a page fault, and on
// the virtual machines cairn is measured on a fault costs 9-17 µs: an
// indexed query at 100k records took about 1,250 of them on its heap, a
// quarter of its time, and a scan 48,000, half of its time. A 2 MB huge
// page is one fault for 512 pages (about 0.3 µs a page, most of it the
// kernel clearing the memory). Linux gives huge pages to memory that asks
// for them when its setting is "madvise", the default of several
// distributions; with "always" the advice changes nothing, with "never"
// the kernel ignores it. Elsewhere these functions do nothing.
//
// The advice holds for the address ranges mapped when it is given: the Go
// runtime maps its heap 4 MB at a time as it grows, and a range mapped
// later needs advice again. Memory touched before the advice stays on
// small pages.
//
// Reserve and Headroom give work that is about to allocate a heap that is
// already mapped and advised: a build or a scan (mapped with a ballast
// and a collection that frees it), and an indexed query (mapped beyond a
// ballast left for later, since a collection costs a short task more than
// a tenth of its time).
//
// A process opts in with Enable: a command that runs once and exits gains,
// a server would not (see Enable).
package memory
