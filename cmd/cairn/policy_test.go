package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestPolicyBeforeRun: the process policy sees the command about to run,
// after the parse, and nothing when the command line is wrong or asks
// for help.
func TestPolicyBeforeRun(t *testing.T) {
	var got []any
	env, _, _ := quietEnv()
	env.Policy = func(cmd any) { got = append(got, cmd) }
	runEnv([]string{"version"}, env)
	runEnv([]string{"contxt"}, env)
	runEnv([]string{"--help"}, env)
	if len(got) != 1 {
		t.Fatalf("policy called %d times, want once: %v", len(got), got)
	}
	if _, ok := got[0].(*VersionCmd); !ok {
		t.Errorf("policy saw %T, want *VersionCmd", got[0])
	}
}

// server stands for a long-lived command (a future cairn mcp).
type server struct{}

func (server) longLived() {}

// TestProcessPolicy: a short command runs with the collector off and a
// memory limit; a long-lived one, or a process whose environment sets
// GOGC, keeps the runtime's settings.
func TestProcessPolicy(t *testing.T) {
	gogc := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
	})
	reset := func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")

	processPolicy(&BuildCmd{})
	if got := debug.SetGCPercent(100); got != -1 {
		t.Errorf("build: GOGC %d, want the collector off", got)
	}
	if got := debug.SetMemoryLimit(-1); got != memoryLimit() || got >= math.MaxInt64 || got < fallbackLimit/2 {
		t.Errorf("build: memory limit %d, want %d", got, memoryLimit())
	}

	reset()
	processPolicy(server{})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("long-lived: GOGC %d, want the default kept", got)
	}

	reset()
	processPolicy(&McpCmd{}) // what runEnv passes for `cairn mcp`
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("cairn mcp: GOGC %d, want the default kept", got)
	}

	reset()
	t.Setenv("GOGC", "50")
	processPolicy(&BuildCmd{})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GOGC %d, want the runtime's own", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOGC set: memory limit %d, want none", got)
	}
}
