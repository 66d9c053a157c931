//go:build !linux

package memory

// Advise does nothing outside Linux.
func Advise() {}

// Reserve does nothing outside Linux.
func Reserve(n int) {}
