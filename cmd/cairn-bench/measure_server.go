package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverRequests is how many warm context requests one running server
// answers, round-robin over contextQueries.
const serverRequests = 200

// measureContextServer starts `cairn mcp` on the base, as an agent's
// client would, asks each query once to warm it (untimed), then times
// serverRequests context calls over the same queries and reads the
// server's resident memory after them. The latency is the client's round
// trip over stdio: what an agent waits for.
func measureContextServer(b *bench) error {
	if _, err := b.cairn("build", "--quiet"); err != nil {
		return err
	}
	// A binary from before cairn mcp (or a test's stand-in) has no server
	// to measure.
	if help, err := b.cairn("help", "mcp"); err != nil || !strings.Contains(string(help.stdout), "cairn mcp") {
		fmt.Fprintf(b.log, "%s:   skipped: %s has no cairn mcp\n", b.label, b.bin)
		return nil
	}
	cmd := exec.Command(b.bin, "--base", b.base.dir, "mcp")
	cmd.Env = os.Environ()
	if b.cache != "" {
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+b.cache)
	}
	asOf := lastDay(b.base.params).Format(time.DateOnly)
	cmd.Env = append(cmd.Env, "CAIRN_AS_OF="+asOf)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cairn-bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("cairn mcp: %w", err)
	}
	defer cs.Close()
	queries := contextQueries(b.base.params)
	ask := func(q contextQuery) (time.Duration, error) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context", Arguments: map[string]any{
			"query": strings.Join(q.words, " "), "budget": contextBudget,
		}})
		wall := time.Since(start)
		switch {
		case err != nil:
			return 0, fmt.Errorf("context %q: %w", strings.Join(q.words, " "), err)
		case res.IsError || len(res.Content) == 0:
			return 0, fmt.Errorf("context %q answered an error: %+v", strings.Join(q.words, " "), res.Content)
		}
		return wall, nil
	}
	for _, q := range queries {
		if _, err := ask(q); err != nil {
			return err
		}
	}
	ms := make([]float64, 0, serverRequests)
	byQuery := make([][]float64, len(queries))
	for i := range serverRequests {
		wall, err := ask(queries[i%len(queries)])
		if err != nil {
			return err
		}
		ms = append(ms, float64(wall)/float64(time.Millisecond))
		byQuery[i%len(queries)] = append(byQuery[i%len(queries)], ms[i])
	}
	rss := residentKiB(cmd.Process.Pid)
	fmt.Fprintf(b.log, "%s:   %d requests: median %s ms, p99 %s ms, RSS %s MiB\n", b.label, serverRequests,
		formatValue("ms", median(ms)), formatValue("ms", percentile(ms, 99)), formatValue("MiB", float64(rss)/1024))
	// Which query the tail comes from is what a reader of the figures
	// asks next.
	for i, q := range queries {
		fmt.Fprintf(b.log, "%s:     %-40q median %s ms, max %s ms\n", b.label, strings.Join(q.words, " "),
			formatValue("ms", median(byQuery[i])), formatValue("ms", percentile(byQuery[i], 100)))
	}
	b.record(metric{Name: "context_server_ms", Label: "context in a running cairn mcp (median)", Unit: "ms", Value: median(ms), Samples: ms, Target: "<= 5"})
	b.record(metric{Name: "context_server_p99_ms", Label: "context in a running cairn mcp (p99)", Unit: "ms", Value: percentile(ms, 99), Target: "<= 20"})
	b.record(metric{Name: "context_server_rss_mib", Label: "cairn mcp RSS after the requests", Unit: "MiB", Value: float64(rss) / 1024, Target: "<= 150"})
	return nil
}

// residentKiB is a running process's resident set size in KiB, from
// /proc (Linux); 0 where that cannot be read.
func residentKiB(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
