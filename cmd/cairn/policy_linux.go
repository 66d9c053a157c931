package main

import "syscall"

// physicalMemory is the machine's RAM in bytes, 0 if unknown: one system
// call, where reading /proc/meminfo would take several.
func physicalMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
