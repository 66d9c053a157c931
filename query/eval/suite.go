package eval

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Suite defaults.
const (
	// DefaultK is the rank an expected URI must reach when a suite names
	// no k: the first five items are what a reader of a pack looks at.
	DefaultK = 5
	// DefaultBudget is a realistic pack budget, the context command's own
	// default: a suite that passes only at a huge budget proves little.
	DefaultBudget = 4096
)

// Suite is a parsed evaluation suite.
type Suite struct {
	// Name is the file's name as given, used in error messages and the
	// report.
	Name    string
	AsOf    time.Time
	K       int
	Budget  int
	Queries []Query
}

// Query is one question of a suite and what its pack must deliver.
type Query struct {
	// N is the question's 1-based position in the suite; Line its line.
	N, Line  int
	Question string
	// Since and Until bound the window, as --since and --until do.
	Since, Until  string
	ExpectedURIs  []string
	ForbiddenURIs []string
	// ExpectedExcerpts and ExpectedReads map expected URIs to fragments,
	// in the order the suite gives them.
	ExpectedExcerpts []Fragments
	ExpectedReads    []Fragments
	// uris are every URI the query names, where it names them, so that a
	// URI the base does not hold is reported at its line.
	uris []uriAt
}

// Fragments are the texts that must all appear, ignoring case, in what
// cairn delivers of one URI.
type Fragments struct {
	URI       string
	Fragments []string
}

type uriAt struct {
	uri       string
	line, col int
}

// Problem is one mistake in a suite, at its line and column.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

// String is the problem as file:line:col: message.
func (p Problem) String() string { return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg) }

// SuiteError is a suite that cannot be run as written: every problem
// found, in file order. The command exits 2.
type SuiteError struct{ Problems []Problem }

// Error lists the problems, one a line.
func (e *SuiteError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// ExitCode is 2: the suite is invalid input, nothing was evaluated.
func (e *SuiteError) ExitCode() int { return 2 }

// parser collects a suite's problems as it walks the YAML nodes.
type parser struct {
	name     string
	problems []Problem
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.problems = append(p.problems, Problem{File: p.name, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// suiteKeys and queryKeys are the keys a suite and a query may hold.
var (
	suiteKeys = []string{"as_of", "k", "budget", "queries"}
	queryKeys = []string{"question", "since", "until", "expected_uris", "expected", "forbidden_uris", "expected_excerpts", "expected_reads"}
)

// ParseSuite parses a suite strictly: an unknown or repeated key, a value
// of the wrong type, a missing question, an empty fragment or a fragment
// for a URI the query does not expect is a *SuiteError naming its line.
// Whether the URIs exist is checked against the base by Run.
//
// `expected` is accepted as another name of `expected_uris` (the real-data
// suites use it); a query may not give both.
func ParseSuite(name string, data []byte) (Suite, error) {
	p := &parser{name: name}
	s := Suite{Name: name, K: DefaultK, Budget: DefaultBudget}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return s, &SuiteError{Problems: []Problem{syntaxProblem(name, err)}}
	}
	if len(doc.Content) == 0 {
		return s, &SuiteError{Problems: []Problem{{File: name, Line: 1, Col: 1, Msg: "the suite is empty; give as_of, k, budget and queries"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "the suite must be a mapping with as_of, k, budget and queries")
		return s, p.err()
	}
	seen := p.keys(root, suiteKeys, "suite")
	if n, ok := seen["as_of"]; ok {
		if t, ok := p.day(n, "as_of"); ok {
			s.AsOf = t
		}
	} else {
		p.errorf(root, "the suite has no as_of: give the day the questions are asked on, YYYY-MM-DD")
	}
	if n, ok := seen["k"]; ok {
		s.K, _ = p.positive(n, "k")
	}
	if n, ok := seen["budget"]; ok {
		s.Budget, _ = p.positive(n, "budget")
	}
	n, ok := seen["queries"]
	switch {
	case !ok:
		p.errorf(root, "the suite has no queries")
	case n.Kind != yaml.SequenceNode:
		p.errorf(n, "queries must be a list of questions, each a mapping with a question")
	case len(n.Content) == 0:
		p.errorf(n, "queries is empty; give at least one question")
	default:
		for i, qn := range n.Content {
			s.Queries = append(s.Queries, p.query(qn, i+1))
		}
	}
	return s, p.err()
}

func (p *parser) err() error {
	if len(p.problems) == 0 {
		return nil
	}
	slices.SortStableFunc(p.problems, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return &SuiteError{Problems: p.problems}
}

// keys checks a mapping's keys against the allowed ones and returns the
// value node of each key given once.
func (p *parser) keys(m *yaml.Node, allowed []string, what string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
			p.errorf(k, "a %s key must be a plain name", what)
		case !slices.Contains(allowed, k.Value):
			p.errorf(k, "unknown %s key %q; the keys are %s", what, k.Value, strings.Join(allowed, ", "))
		case out[k.Value] != nil:
			p.errorf(k, "%s key %q is given twice", what, k.Value)
		default:
			out[k.Value] = v
		}
	}
	return out
}

func (p *parser) query(n *yaml.Node, num int) Query {
	q := Query{N: num, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "query %d must be a mapping with a question", num)
		return q
	}
	seen := p.keys(n, queryKeys, "query")
	if v, ok := seen["question"]; !ok {
		p.errorf(n, "query %d has no question", num)
	} else if s, ok := p.text(v, "question"); ok {
		if strings.TrimSpace(s) == "" {
			p.errorf(v, "query %d: the question is empty", num)
		}
		q.Question = s
	}
	for _, b := range []struct {
		key string
		dst *string
	}{{"since", &q.Since}, {"until", &q.Until}} {
		if v, ok := seen[b.key]; ok {
			if _, ok := p.day(v, b.key); ok {
				*b.dst = v.Value
			}
		}
	}
	if q.Since != "" && q.Until != "" && q.Since > q.Until {
		p.errorf(seen["since"], "query %d: since %s is after until %s", num, q.Since, q.Until)
	}
	expected, alias := seen["expected_uris"], seen["expected"]
	if expected != nil && alias != nil {
		p.errorf(alias, "query %d gives both expected_uris and expected (its other name); keep one", num)
	} else if expected == nil {
		expected = alias
	}
	if expected != nil {
		q.ExpectedURIs = p.uriList(expected, "expected_uris", &q)
	}
	if v, ok := seen["forbidden_uris"]; ok {
		q.ForbiddenURIs = p.uriList(v, "forbidden_uris", &q)
		for i, u := range q.ForbiddenURIs {
			if slices.Contains(q.ExpectedURIs, u) {
				p.errorf(v.Content[i], "query %d: %s is both expected and forbidden", num, u)
			}
		}
	}
	if v, ok := seen["expected_excerpts"]; ok {
		q.ExpectedExcerpts = p.fragments(v, "expected_excerpts", q.ExpectedURIs, num)
	}
	if v, ok := seen["expected_reads"]; ok {
		q.ExpectedReads = p.fragments(v, "expected_reads", q.ExpectedURIs, num)
	}
	if len(q.ExpectedURIs) == 0 && len(q.ForbiddenURIs) == 0 && q.Question != "" {
		p.errorf(n, "query %d checks nothing; give expected_uris or forbidden_uris", num)
	}
	return q
}

// uriList reads a list of distinct, non-empty URIs and notes where each is.
func (p *parser) uriList(n *yaml.Node, key string, q *Query) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list of URIs", key)
		return nil
	}
	var out []string
	for _, v := range n.Content {
		u, ok := p.text(v, key)
		switch {
		case !ok:
			continue
		case strings.TrimSpace(u) == "":
			p.errorf(v, "%s holds an empty URI", key)
			continue
		case slices.Contains(out, u):
			p.errorf(v, "%s names %s twice", key, u)
			continue
		}
		out = append(out, u)
		q.uris = append(q.uris, uriAt{uri: u, line: v.Line, col: v.Column})
	}
	return out
}

// fragments reads a mapping of expected URIs to non-empty fragment lists.
func (p *parser) fragments(n *yaml.Node, key string, expected []string, num int) []Fragments {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must map expected URIs to lists of text fragments", key)
		return nil
	}
	var out []Fragments
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		uri, ok := p.text(k, key+" key")
		if !ok {
			continue
		}
		if slices.ContainsFunc(out, func(f Fragments) bool { return f.URI == uri }) {
			p.errorf(k, "%s names %s twice", key, uri)
			continue
		}
		if !slices.Contains(expected, uri) {
			p.errorf(k, "query %d: %s checks %s, which is not in its expected_uris", num, key, uri)
		}
		f := Fragments{URI: uri}
		if v.Kind != yaml.SequenceNode {
			p.errorf(v, "%s of %s must be a list of text fragments", key, uri)
			continue
		}
		if len(v.Content) == 0 {
			p.errorf(v, "%s of %s is an empty list; give the fragments it must hold", key, uri)
		}
		for _, fn := range v.Content {
			s, ok := p.text(fn, key+" fragment")
			if !ok {
				continue
			}
			if strings.TrimSpace(s) == "" {
				p.errorf(fn, "%s of %s holds an empty fragment, which every text contains; remove it or write the words to find", key, uri)
				continue
			}
			f.Fragments = append(f.Fragments, s)
		}
		out = append(out, f)
	}
	return out
}

// text reads a scalar as a string: a question such as `yes` or `2026`
// is text, whatever YAML would make of it unquoted.
func (p *parser) text(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, "%s must be text, not %s", what, kindName(n))
		return "", false
	}
	return n.Value, true
}

var dayPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func (p *parser) day(n *yaml.Node, what string) (time.Time, bool) {
	if n.Kind == yaml.ScalarNode && dayPattern.MatchString(n.Value) {
		if t, err := time.Parse(time.DateOnly, n.Value); err == nil {
			return t, true
		}
	}
	p.errorf(n, "%s must be a day, YYYY-MM-DD, not %s", what, describe(n))
	return time.Time{}, false
}

func (p *parser) positive(n *yaml.Node, what string) (int, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.Atoi(n.Value); err == nil && v > 0 {
			return v, true
		}
	}
	p.errorf(n, "%s must be a positive whole number, not %s", what, describe(n))
	return 0, false
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return kindName(n)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing (null)"
	}
	return strconv.Quote(n.Value)
}

// yamlLine finds the line yaml's own syntax errors name.
var yamlLine = regexp.MustCompile(`line (\d+)`)

func syntaxProblem(name string, err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
	}
	return Problem{File: name, Line: line, Col: 1, Msg: "the suite is not valid YAML: " + msg}
}
