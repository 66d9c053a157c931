package check

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// Severities of a finding. A voice pattern's own severity is one of them
// (load refuses any other).
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Input is what a check reads.
type Input struct {
	// FS is the base root; only Files are read of its content.
	FS fs.FS
	// Governance is the base's governance, as load.ReadGovernance reads it.
	Governance load.Governance
	// Files are the content files to check, base-relative (Select).
	Files []string
	// AsOf is the instant every window is evaluated at.
	AsOf time.Time
}

// Output is what a check found.
type Output struct {
	// Findings are sorted by file, line, column, rule and message.
	Findings []Finding
	// Rules describes every rule a finding names, sorted by id.
	Rules []Rule
	// Checked counts the files checked; Bytes their size.
	Checked int
	Bytes   int64
	// Suppressed counts the findings left out where they were meant: by a
	// file's cairn-disable directives or cairn.yaml's check.ignore.
	Suppressed int
	// Diagnostics are the files that could not be read or decoded, and
	// the frontmatter mistakes the build would refuse: bad input, which a
	// caller reports beside the findings.
	Diagnostics []diag.Diagnostic
}

// Finding is one place where a file breaks a rule in force there.
type Finding struct {
	File string `json:"file"`
	// Line and Column are where the match starts; EndLine and EndColumn
	// where it ends (exclusive), in runes, 1-based.
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Rule      string `json:"rule"`
	// Match is the wording found, white space runs written as one space;
	// empty for a missing required pattern.
	Match string `json:"match,omitempty"`
}

// String renders the finding as cairn prints it: file:line:col: severity:
// message [rule].
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", f.File, f.Line, f.Column, f.Severity, f.Message, f.Rule)
}

// Rule describes one rule findings name: what SARIF lists in the tool's
// rules and a reader looks a rule id up in.
type Rule struct {
	ID string `json:"id"`
	// Short is the rule as the rules files word it; Note is the stored
	// note beside it, as a plain line.
	Short    string `json:"short"`
	Note     string `json:"note,omitempty"`
	Severity string `json:"severity"`
}

// Errors counts the findings of error severity: a check with any fails.
func (o Output) Errors() int {
	n := 0
	for _, f := range o.Findings {
		if f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// Run checks every file of in.Files. Files are checked in parallel, each
// read once and let go; the output does not depend on the order they are
// checked in.
func Run(ctx context.Context, in Input) (Output, error) {
	g := in.Governance
	c := &checker{
		fsys: in.FS,
		resolver: govern.New(govern.Governance{
			DefaultVoice: g.Config.Governance.DefaultVoice, Points: g.Config.Governance.Points,
			Axes: g.Config.Governance.Axes, Voices: g.Voices, Terms: g.Terms, Log: g.Log,
		}),
		points:  map[string]bool{},
		asOf:    in.AsOf,
		sets:    map[string]*ruleset{},
		ignores: g.Config.Check.Ignore,
	}
	for _, p := range g.Config.Governance.Points {
		c.points[p.Name] = true
	}
	w, err := newWordings(c.resolver, g.Terms)
	if err != nil {
		return Output{}, err
	}
	c.wordings = w
	results := make([]fileResult, len(in.Files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(in.Files)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(in.Files) {
					return
				}
				results[i] = c.file(in.Files[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	var out Output
	var ds diag.List
	rules := map[string]Rule{}
	for _, r := range results {
		out.Findings = append(out.Findings, r.findings...)
		ds.Merge(r.diagnostics)
		if r.read {
			out.Checked++
			out.Bytes += r.bytes
		}
		out.Suppressed += r.suppressed
		for _, rule := range r.rules {
			rules[rule.ID] = rule
		}
	}
	sortFindings(out.Findings)
	out.Findings = slices.Compact(out.Findings)
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		out.Rules = append(out.Rules, rules[id])
	}
	out.Diagnostics = ds.Sorted()
	return out, nil
}

// sortFindings orders findings by file, position, rule and message, which
// together are unique once duplicates are dropped.
func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
			strings.Compare(a.Rule, b.Rule), cmp.Compare(a.EndLine, b.EndLine), cmp.Compare(a.EndColumn, b.EndColumn),
			strings.Compare(a.Message, b.Message), strings.Compare(a.Severity, b.Severity), strings.Compare(a.Match, b.Match))
	})
}

// checker holds what every file's check shares: the resolver, and the
// rule sets compiled so far, one per place key (files at the same point
// under the same scopes share one).
type checker struct {
	fsys     fs.FS
	resolver *govern.Resolver
	points   map[string]bool
	asOf     time.Time
	mu       sync.Mutex
	sets     map[string]*ruleset
	wordings *wordings
	ignores  []model.CheckIgnore
}

// fileResult is one file's share of the output.
type fileResult struct {
	findings    []Finding
	rules       []Rule
	diagnostics []diag.Diagnostic
	read        bool
	bytes       int64
	suppressed  int
}

// file checks one content file.
func (c *checker) file(p string) fileResult {
	f, bodyLine, ds, ok := load.ReadContent(c.fsys, p)
	r := fileResult{diagnostics: ds}
	if !ok {
		return r
	}
	r.read, r.bytes = true, int64(len(f.Text))
	point := f.Point
	if point != "" && !c.points[point] {
		var list diag.List
		list.Errorf(p, 2, 1, "unknown-point", "point %q is not declared in cairn.yaml governance.points; declare it or fix the name (checked at the point its path resolves to)", point)
		r.diagnostics = append(r.diagnostics, list.Sorted()...)
		point = ""
	}
	place := govern.Place{Path: p, Point: point}
	set, err := c.ruleset(place)
	if err != nil {
		var list diag.List
		list.Errorf(p, 0, 0, "check", "%v", err)
		r.diagnostics = append(r.diagnostics, list.Sorted()...)
		return r
	}
	masked := maskCode(f.Text, bodyLine)
	findings, rules := set.check(c.wordings, p, f.Text, masked, bodyLine)
	// What the file's directives and cairn.yaml's check.ignore leave out
	// is counted, never shown; a rule only left-out findings name is not
	// listed.
	sup := suppressions(masked)
	ignored := ignoredRules(c.ignores, p)
	named := map[string]bool{}
	for _, fd := range findings {
		if sup.leaves(fd.Line, fd.Rule) || slices.ContainsFunc(ignored, func(sel string) bool { return selects(sel, fd.Rule) }) {
			r.suppressed++
			continue
		}
		r.findings = append(r.findings, fd)
		named[fd.Rule] = true
	}
	for _, rule := range rules {
		if named[rule.ID] {
			r.rules = append(r.rules, rule)
		}
	}
	return r
}

// ruleset returns the compiled rules at place, compiling them once per
// place key.
func (c *checker) ruleset(place govern.Place) (*ruleset, error) {
	key := c.resolver.PlaceKey(place)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sets[key]; ok {
		return s, nil
	}
	s, err := compile(c.resolver.At(place, c.asOf), c.wordings)
	if err != nil {
		return nil, err
	}
	c.sets[key] = s
	return s, nil
}

// display is a matched wording as a message shows it: runs of white space
// as one space.
func display(s string) string { return strings.Join(strings.Fields(s), " ") }

// quoted is stored or found wording inside quotes, as a plain fragment.
func quoted(s string) string {
	return `"` + strings.ReplaceAll(govern.Plain(display(s)), `"`, `'`) + `"`
}

// termSeverity is the severity of a discouraged term's finding: a
// forbidden wording fails the check, a deprecated one warns.
func termSeverity(t model.Term) string {
	if t.Status == model.StatusForbidden {
		return SeverityError
	}
	return SeverityWarning
}
