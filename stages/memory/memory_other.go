//go:build !linux

package memory

// Enable does nothing outside Linux.
func Enable() {}

// Advise does nothing outside Linux.
func Advise() {}

// Reserve does nothing outside Linux.
func Reserve(n int) {}

// Headroom does nothing outside Linux.
func Headroom(n int) (restore func()) { return func() {} }
