//go:build !linux

package main

// physicalMemory is unknown here; memoryLimit falls back to a fixed limit.
func physicalMemory() uint64 { return 0 }
