package memory

import (
	"bufio"
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
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

// hugePagesBuiltIn reports whether the kernel has transparent huge pages
// at all; without them MADV_HUGEPAGE fails and nothing can be advised.
func hugePagesBuiltIn() bool {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil
}

func mapped() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestAdviseMarksTheHeap checks that the mapping holding the heap's first
// chunk, and the one holding memory allocated since, ask for huge pages
// ("hg" in VmFlags) once Advise has run.
func TestAdviseMarksTheHeap(t *testing.T) {
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
	const n = 64 << 20
	before := mapped()
	Reserve(n)
	if got := mapped(); got < before+n/2 {
		t.Errorf("mapped %d bytes before Reserve(%d) and %d after", before, n, got)
	}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if live := s[0].Value.Uint64(); live >= n {
		t.Errorf("%d bytes of objects after Reserve(%d): the ballast was kept", live, n)
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
