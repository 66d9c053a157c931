package query

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/pack"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/tables"
)

// benchBase is the base the query benchmarks read: $CAIRN_BENCH_BASE (a
// built synthetic base, see cmd/cairn-bench), else the built demo base.
func benchBase(b *testing.B) (string, time.Time) {
	if dir := os.Getenv("CAIRN_BENCH_BASE"); dir != "" {
		asOf, err := time.Parse(time.DateOnly, os.Getenv("CAIRN_BENCH_AS_OF"))
		if err != nil {
			b.Fatalf("CAIRN_BENCH_AS_OF: %v; give the base's last day", err)
		}
		return dir, asOf
	}
	return querytest.BuiltDemo(b), time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
}

// BenchmarkContext answers a question from the artifacts, in process: the
// cost of a query without the cost of starting one.
func BenchmarkContext(b *testing.B) {
	dir, asOf := benchBase(b)
	words := strings.Fields(os.Getenv("CAIRN_BENCH_QUERY"))
	if len(words) == 0 {
		words = strings.Fields("what changed in certificate renewal")
	}
	req := pack.Request{Words: words, Budget: pack.DefaultBudget, AsOf: asOf, Format: render.FormatText, ToolVersion: "bench"}
	for b.Loop() {
		if _, err := pack.Context(context.Background(), dir, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen decides whether the artifacts are current.
func BenchmarkOpen(b *testing.B) {
	dir, _ := benchBase(b)
	for b.Loop() {
		ix, err := corpus.Open(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		if ix.State != corpus.StateUsed {
			b.Fatalf("state %s: %s", ix.State, ix.Reason)
		}
	}
}

// BenchmarkTermsWith sweeps terms.tsv for the dictionary terms holding an
// identifier-shaped query term ($CAIRN_BENCH_TERM, else a ticket id).
func BenchmarkTermsWith(b *testing.B) {
	dir, _ := benchBase(b)
	r, err := tables.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	term := os.Getenv("CAIRN_BENCH_TERM")
	if term == "" {
		term = "web-100"
	}
	for b.Loop() {
		if _, err := r.TermsWith(term); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSession answers warm requests in one long-lived session, as
// cairn mcp does: $CAIRN_BENCH_QUERIES (queries separated by "|") round
// robin, else the default question.
func BenchmarkSession(b *testing.B) {
	dir, asOf := benchBase(b)
	queries := strings.Split(os.Getenv("CAIRN_BENCH_QUERIES"), "|")
	if os.Getenv("CAIRN_BENCH_QUERIES") == "" {
		queries = []string{"what changed in certificate renewal"}
	}
	s := NewSession(dir)
	defer s.Close()
	ask := func(i int) {
		req := pack.Request{Words: strings.Fields(queries[i%len(queries)]), Budget: pack.DefaultBudget, AsOf: asOf, Format: render.FormatText, ToolVersion: "bench"}
		if _, err := s.Context(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	for i := range queries {
		ask(i)
	}
	i := 0
	for b.Loop() {
		ask(i)
		i++
	}
}
