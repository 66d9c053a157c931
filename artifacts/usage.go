package artifacts

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// TermUsage is one term's section of usage.tsv: how often the content files
// use the term in all, and how often each file that uses it does.
type TermUsage struct {
	Term  string // the term's id in the terms store
	Total int    // the sum of the counts in Uses
	Uses  []Use  // the files that use the term, most uses first, then by path
}

// Use is how often one content file uses a term.
type Use struct {
	Path  string // base-relative
	Count int    // at least 1
}

// UsageTotalPath is the path column of a term's totals row: ".", the base
// root, which is never a content file (the walk skips every dot name).
const UsageTotalPath = "."

var usageHeader = header(usageName, "term", "path", "count")

// maxUsageCount bounds every count and total, so that each is at most 18
// digits and a sum of them cannot overflow; where int has 32 bits, the
// bound is the largest int.
const maxUsageCount = min(999_999_999_999_999_999, math.MaxInt)

// compareUses orders a term's uses as usage.tsv holds them: most uses
// first, then by path, so that a reader's top N are its first N rows.
func compareUses(a, b Use) int {
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	return strings.Compare(a.Path, b.Path)
}

// SortUsage puts terms in usage.tsv's order, in place: by id, and each
// term's uses most first, then by path.
func SortUsage(terms []TermUsage) {
	slices.SortFunc(terms, func(a, b TermUsage) int { return strings.Compare(a.Term, b.Term) })
	for _, t := range terms {
		slices.SortFunc(t.Uses, compareUses)
	}
}

// usageSorted reports whether terms are in SortUsage's order already.
func usageSorted(terms []TermUsage) bool {
	if !slices.IsSortedFunc(terms, func(a, b TermUsage) int { return strings.Compare(a.Term, b.Term) }) {
		return false
	}
	for _, t := range terms {
		if !slices.IsSortedFunc(t.Uses, compareUses) {
			return false
		}
	}
	return true
}

// EncodeUsage renders usage.tsv in SortUsage's order, leaving terms as
// they are. It refuses what its decoder would reject (an id or path a row
// cannot carry, a repeated id or path, a count below 1, a Total that is
// not the sum of the counts) instead of writing it.
func EncodeUsage(terms []TermUsage) ([]byte, error) {
	if !usageSorted(terms) {
		terms = slices.Clone(terms)
		for i := range terms {
			terms[i].Uses = slices.Clone(terms[i].Uses)
		}
		SortUsage(terms)
	}
	size := len(usageHeader)
	seen := map[string]bool{}
	for i, t := range terms {
		if t.Term == "" || strings.ContainsAny(t.Term, "\t\n\r") {
			return nil, fmt.Errorf("%s: term id %q is empty or holds a tab or line break", UsagePath, t.Term)
		}
		if i > 0 && terms[i-1].Term == t.Term {
			return nil, fmt.Errorf("%s: term id %q appears twice", UsagePath, t.Term)
		}
		clear(seen)
		sum := 0
		for _, u := range t.Uses {
			if u.Path == "" || u.Path == UsageTotalPath || strings.ContainsAny(u.Path, "\t\n\r") {
				return nil, fmt.Errorf("%s: term %q: path %q is not a content file path", UsagePath, t.Term, u.Path)
			}
			if u.Count < 1 {
				return nil, fmt.Errorf("%s: term %q: %s has count %d; a use row counts at least 1", UsagePath, t.Term, u.Path, u.Count)
			}
			if seen[u.Path] {
				return nil, fmt.Errorf("%s: term %q: path %s appears twice", UsagePath, t.Term, u.Path)
			}
			seen[u.Path] = true
			if u.Count > maxUsageCount-sum {
				return nil, fmt.Errorf("%s: term %q: the counts add up to more than %d", UsagePath, t.Term, maxUsageCount)
			}
			sum += u.Count
			size += len(t.Term) + len(u.Path) + 12
		}
		if sum != t.Total {
			return nil, fmt.Errorf("%s: term %q: total %d is not the sum of its counts, %d", UsagePath, t.Term, t.Total, sum)
		}
		size += len(t.Term) + 14
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(usageHeader)
	row := func(term, path string, count int) {
		b.WriteString(term)
		b.WriteByte('\t')
		b.WriteString(path)
		b.WriteByte('\t')
		b.WriteString(strconv.Itoa(count))
		b.WriteByte('\n')
	}
	for _, t := range terms {
		row(t.Term, UsageTotalPath, t.Total)
		for _, u := range t.Uses {
			row(t.Term, u.Path, u.Count)
		}
	}
	return b.Bytes(), nil
}

// usageRow is one decoded line of usage.tsv.
type usageRow struct {
	term, path string
	count      int
}

// decodeUsageRow parses one line (without LF) of usage.tsv; n is its line
// number, for errors.
func decodeUsageRow(n int, line []byte) (usageRow, error) {
	cols := strings.Split(string(line), "\t")
	if len(cols) != 3 || cols[0] == "" || cols[1] == "" {
		return usageRow{}, &CorruptError{Path: UsagePath, Line: n, Msg: "row is not term TAB path TAB count"}
	}
	if strings.ContainsRune(cols[0], '\r') || strings.ContainsRune(cols[1], '\r') {
		return usageRow{}, &CorruptError{Path: UsagePath, Line: n, Msg: "the row holds a CR, which no term id or path written by cairn does"}
	}
	count, ok := parseCount(cols[2])
	if !ok {
		return usageRow{}, &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("count %q is not a decimal count", cols[2])}
	}
	return usageRow{term: cols[0], path: cols[1], count: count}, nil
}

// parseCount reads a count written by strconv.Itoa: decimal digits with no
// sign and no leading zero, so that every count has one spelling.
func parseCount(s string) (int, bool) {
	if s == "" || len(s) > len(strconv.Itoa(maxUsageCount)) || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// usageSection checks the rows of one term's section as they come and
// reports the first thing out of order.
type usageSection struct {
	term      string
	totalLine int // line of the totals row
	total     int
	sum       int
	last      Use             // the previous use row; Count 0 before the first
	paths     map[string]bool // the paths of the section so far
}

// start begins a section at its totals row, which must name a term after
// the previous section's.
func (s *usageSection) start(n int, r usageRow, prev string) error {
	if r.path != UsageTotalPath {
		return &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q starts without its totals row (path %s)", r.term, UsageTotalPath)}
	}
	if prev != "" && r.term <= prev {
		return &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q does not sort after %q", r.term, prev)}
	}
	paths := s.paths
	if paths == nil {
		paths = map[string]bool{}
	}
	clear(paths)
	*s = usageSection{term: r.term, totalLine: n, total: r.count, paths: paths}
	return nil
}

// add takes one use row of the section.
func (s *usageSection) add(n int, r usageRow) (Use, error) {
	u := Use{Path: r.path, Count: r.count}
	switch {
	case r.path == UsageTotalPath:
		return u, &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q has a second totals row", r.term)}
	case r.count < 1:
		return u, &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q: %s has count 0; files that do not use a term have no row", r.term, r.path)}
	case s.paths[r.path]:
		return u, &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q: %s has a second row", r.term, r.path)}
	case s.last.Count > 0 && compareUses(s.last, u) >= 0:
		return u, &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q: %s does not sort after %s (most uses first, then by path)", r.term, r.path, s.last.Path)}
	case r.count > maxUsageCount-s.sum:
		return u, &CorruptError{Path: UsagePath, Line: n, Msg: fmt.Sprintf("term %q: the counts add up to more than %d", r.term, maxUsageCount)}
	}
	s.paths[r.path] = true
	s.last = u
	s.sum += r.count
	return u, nil
}

// end checks the section's total against its rows.
func (s *usageSection) end() error {
	if s.sum != s.total {
		return &CorruptError{Path: UsagePath, Line: s.totalLine, Msg: fmt.Sprintf("term %q: total %d but its rows add up to %d; the file is truncated or edited", s.term, s.total, s.sum)}
	}
	return nil
}

// DecodeUsage parses usage.tsv and checks its order and every term's total.
func DecodeUsage(data []byte) ([]TermUsage, error) {
	body, err := splitHeader(UsagePath, data, usageHeader)
	if err != nil {
		return nil, err
	}
	var out []TermUsage
	var sec usageSection
	err = lines(UsagePath, body, func(n int, line []byte) error {
		r, err := decodeUsageRow(n, line)
		if err != nil {
			return err
		}
		if len(out) > 0 && r.term == sec.term {
			u, err := sec.add(n, r)
			if err != nil {
				return err
			}
			t := &out[len(out)-1]
			t.Uses = append(t.Uses, u)
			return nil
		}
		if len(out) > 0 {
			if err := sec.end(); err != nil {
				return err
			}
		}
		if err := sec.start(n, r, sec.term); err != nil {
			return err
		}
		out = append(out, TermUsage{Term: r.term, Total: r.count})
		return nil
	})
	if err == nil && len(out) > 0 {
		err = sec.end()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UsageSummary is what a reader asks of usage.tsv about one term.
type UsageSummary struct {
	Total int   // uses over every content file
	Files int   // content files that use the term
	Top   []Use // the files that use it most, by count then path
}

// LookupUsage finds one term in usage.tsv without decoding the rest: a
// binary search over the rows, which are sorted by term id, then a read of
// that term's section, of which it keeps the first limit uses (all of them
// when limit < 0). found is false when the term has no section: it was not
// in the terms store when the file was built.
func LookupUsage(data []byte, term string, limit int) (sum UsageSummary, found bool, err error) {
	body, err := splitHeader(UsagePath, data, usageHeader)
	if err != nil {
		return sum, false, err
	}
	// lo and hi are line starts; the first line whose term does not sort
	// before term lies in [lo, hi]. Line numbers are counted only for an
	// error, so that a lookup reads O(log n) lines of a well-formed file.
	lo, hi := 0, len(body)
	for lo < hi {
		m := bytes.LastIndexByte(body[:lo+(hi-lo)/2], '\n') + 1
		end := bytes.IndexByte(body[m:], '\n')
		if end < 0 {
			return sum, false, &CorruptError{Path: UsagePath, Line: 2 + bytes.Count(body[:m], []byte{'\n'}), Msg: "last line has no LF; the file is truncated"}
		}
		if t, _, _ := bytes.Cut(body[m:m+end], []byte{'\t'}); string(t) < term {
			lo = m + end + 1
		} else {
			hi = m
		}
	}
	var sec usageSection
	err = lines(UsagePath, body[lo:], func(n int, line []byte) error {
		r, err := decodeUsageRow(n, line)
		if err != nil {
			return err
		}
		if r.term != term {
			return errStop
		}
		if !found {
			found = true
			return sec.start(n, r, "")
		}
		u, err := sec.add(n, r)
		if err != nil {
			return err
		}
		sum.Files++
		if limit < 0 || len(sum.Top) < limit {
			sum.Top = append(sum.Top, u)
		}
		return nil
	})
	if err == errStop {
		err = nil
	}
	if err == nil && found {
		err = sec.end()
	}
	if err != nil {
		// lines numbered body[lo:] as if it started the body.
		if ce, ok := err.(*CorruptError); ok {
			ce.Line += bytes.Count(body[:lo], []byte{'\n'})
		}
		return UsageSummary{}, false, err
	}
	sum.Total = sec.total
	return sum, found, nil
}

// errStop ends a walk over lines early without an error.
var errStop = errors.New("stop")
