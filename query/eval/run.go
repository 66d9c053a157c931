package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-kb/cairn/query"
)

// Options are what a run may do besides answering the questions.
type Options struct {
	// ToolVersion goes into each request, as the context command's does.
	ToolVersion string
	// DumpCandidates, when set, receives the candidate window of every
	// question with the projected text of its items, as JSON lines, for
	// cmd/cairn-bench/peers.py to rank the same candidates with other
	// rankers (see candidates.go).
	DumpCandidates io.Writer
}

// Run checks that every URI the suite names exists in the base at root,
// then asks each question in turn in this one process, exactly as
// `cairn context --format json` would (the suite's as_of and budget, the
// question's window), and checks the pack. A URI the base does not hold is
// a *SuiteError; a question cairn refuses (two temporal expressions, a
// budget too small) is a failure of that question with cairn's message.
func Run(ctx context.Context, root string, s Suite, opts Options) (Report, error) {
	r := Report{Suite: s.Name, AsOf: s.AsOf.Format("2006-01-02"), K: s.K, Budget: s.Budget}
	ids, err := checkURIs(ctx, root, s)
	if err != nil {
		return r, err
	}
	var dump *dumper
	if opts.DumpCandidates != nil {
		dump = newDumper(opts.DumpCandidates, s.K)
	}
	for _, q := range s.Queries {
		req := query.Request{
			Words: []string{q.Question}, Budget: s.Budget, Since: q.Since, Until: q.Until,
			AsOf: s.AsOf, Format: query.FormatJSON, ToolVersion: opts.ToolVersion,
		}
		res := QueryResult{N: q.N, Line: q.Line, Question: q.Question, Since: q.Since, Until: q.Until}
		out, err := query.Context(ctx, root, req)
		var pack query.Pack
		switch {
		case err == nil:
			if err := json.Unmarshal(out, &pack); err != nil {
				return r, fmt.Errorf("question %d: the pack does not decode: %w", q.N, err)
			}
			if r.RankingVersion == 0 {
				r.RankingVersion = pack.Receipt.RankingVersion
			}
			res.Warning = pack.Receipt.Warning
		case refused(err):
			res.Reasons = append(res.Reasons, "cairn refused the question: "+err.Error())
		default:
			return r, fmt.Errorf("question %d (%s:%d): %w", q.N, s.Name, q.Line, err)
		}
		reads, err := readAll(ctx, root, q.ExpectedReads)
		if err != nil {
			return r, fmt.Errorf("question %d (%s:%d): %w", q.N, s.Name, q.Line, err)
		}
		check(&res, q, pack.Items, s.K, reads, ids)
		if dump != nil {
			if err := dump.query(ctx, root, req, res); err != nil {
				return r, fmt.Errorf("question %d: dumping its candidates: %w", q.N, err)
			}
		}
		r.Queries = append(r.Queries, res)
	}
	r.total()
	return r, nil
}

// refused reports whether cairn turned a question down as bad input
// (exit 2) rather than failing to read the base.
func refused(err error) bool {
	var coded interface{ ExitCode() int }
	return errors.As(err, &coded) && coded.ExitCode() == 2
}

// checkURIs makes every URI a suite names one the base holds: a misspelt
// URI would otherwise be a miss that no ranking could fix. It returns what
// each is, by URI.
func checkURIs(ctx context.Context, root string, s Suite) (map[string]query.Identity, error) {
	var all []uriAt
	for _, q := range s.Queries {
		all = append(all, q.uris...)
	}
	uris := make([]string, len(all))
	for i, u := range all {
		uris[i] = u.uri
	}
	found, err := query.Identify(ctx, root, uris)
	if err != nil {
		return nil, err
	}
	ids := map[string]query.Identity{}
	var problems []Problem
	for i, id := range found {
		ids[uris[i]] = id
		if !id.Found {
			problems = append(problems, Problem{File: s.Name, Line: all[i].line, Col: all[i].col,
				Msg: fmt.Sprintf("%s is not an item of the base; write a record or page URI as cairn context prints it", all[i].uri)})
		}
	}
	if len(problems) > 0 {
		return nil, &SuiteError{Problems: problems}
	}
	return ids, nil
}

// readAll reads each URI of a question's expected_reads as `cairn read
// URI` prints it, in text: what a reader of the answer sees.
func readAll(ctx context.Context, root string, reads []Fragments) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range reads {
		if _, done := out[f.URI]; done {
			continue
		}
		text, err := query.Read(ctx, root, query.ReadRequest{URI: f.URI, Format: query.FormatText})
		if err != nil {
			return nil, fmt.Errorf("reading %s for expected_reads: %w", f.URI, err)
		}
		out[f.URI] = string(text)
	}
	return out, nil
}

// check fills a result from the pack's items and the reads of its
// expected_reads, and decides whether the question passed. The reasons
// come in the suite's order: expected URIs, excerpts, reads, forbidden
// URIs.
func check(res *QueryResult, q Query, items []query.PackItem, k int, reads map[string]string, ids map[string]query.Identity) {
	rank := map[string]int{}
	excerpt := map[string]string{}
	for i, it := range items {
		if _, ok := rank[it.URI]; !ok {
			rank[it.URI] = i + 1
			excerpt[it.URI] = it.Excerpt
		}
		if i < k {
			res.Top = append(res.Top, it.URI)
		}
	}
	res.Delivered = len(items)
	res.Expected, res.Forbidden, res.Excerpts = []Ranked{}, []Ranked{}, []ExcerptResult{}
	if res.Top == nil {
		res.Top = []string{}
	}
	for _, u := range q.ExpectedURIs {
		r := rank[u]
		res.Expected = append(res.Expected, Ranked{URI: u, Rank: r, Kind: ids[u].Kind, Source: ids[u].Source})
		if r > 0 && (res.FirstRelevantRank == 0 || r < res.FirstRelevantRank) {
			res.FirstRelevantRank = r
		}
		switch {
		case r == 0:
			res.Reasons = append(res.Reasons, fmt.Sprintf("expected %s: not delivered", u))
		case r > k:
			res.Reasons = append(res.Reasons, fmt.Sprintf("expected %s: rank %d, beyond k=%d", u, r, k))
		}
	}
	for _, f := range q.ExpectedExcerpts {
		e := ExcerptResult{URI: f.URI, Fragments: f.Fragments, Missing: []string{}}
		text, delivered := excerpt[f.URI]
		low := strings.ToLower(text)
		for _, frag := range f.Fragments {
			if !delivered || !strings.Contains(low, strings.ToLower(frag)) {
				e.Missing = append(e.Missing, frag)
			}
		}
		e.Pass = len(e.Missing) == 0
		switch {
		case !delivered:
			res.Reasons = append(res.Reasons, fmt.Sprintf("excerpt of %s: not delivered, so none of its %d fragment(s) can be checked", f.URI, len(f.Fragments)))
		case !e.Pass:
			res.Reasons = append(res.Reasons, fmt.Sprintf("excerpt of %s lacks %s", f.URI, quoteAll(e.Missing)))
		}
		res.Excerpts = append(res.Excerpts, e)
	}
	res.Reads = []ExcerptResult{}
	for _, f := range q.ExpectedReads {
		// Case does not count, as in excerpts; the read is always there,
		// whatever the pack delivered.
		e := ExcerptResult{URI: f.URI, Fragments: f.Fragments, Missing: []string{}}
		low := strings.ToLower(reads[f.URI])
		for _, frag := range f.Fragments {
			if !strings.Contains(low, strings.ToLower(frag)) {
				e.Missing = append(e.Missing, frag)
			}
		}
		if e.Pass = len(e.Missing) == 0; !e.Pass {
			res.Reasons = append(res.Reasons, fmt.Sprintf("read of %s lacks %s", f.URI, quoteAll(e.Missing)))
		}
		res.Reads = append(res.Reads, e)
	}
	for _, u := range q.ForbiddenURIs {
		r := rank[u]
		res.Forbidden = append(res.Forbidden, Ranked{URI: u, Rank: r, Kind: ids[u].Kind, Source: ids[u].Source})
		if r > 0 {
			res.Reasons = append(res.Reasons, fmt.Sprintf("forbidden %s: delivered at rank %d", u, r))
		}
	}
	if res.Reasons == nil {
		res.Reasons = []string{}
	}
	res.Pass = len(res.Reasons) == 0
}

func quoteAll(fs []string) string {
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = fmt.Sprintf("%q", f)
	}
	return strings.Join(q, ", ")
}
