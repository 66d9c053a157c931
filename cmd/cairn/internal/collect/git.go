package collect

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// gitFieldsMap is the fields map of the git collector's documents.
var gitFieldsMap = map[string]model.FieldPaths{
	"id":        {".sha"},
	"title":     {".subject"},
	"body":      {".body"},
	"time":      {".time"},
	"author":    {".author"},
	"co_author": {".co_authors[]"},
	"path":      {".paths[]"},
	"trailer":   {".trailers[]"},
	"ticket":    {".tickets[]"},
	"merge":     {".merge"},
}

// gitSchema declares which of its fields hold entity URIs.
var gitSchema = map[string]model.FieldSpec{
	"author":    {Relation: true, Description: "the commit's author, person:email/<address>"},
	"co_author": {Relation: true, Description: "people named by Co-authored-by trailers"},
	"ticket":    {Relation: true, Description: "tickets the message names: ticket:ABC-123, ticket:#123"},
}

// gitCommit is one record of a git document, in the order its keys are
// written. Empty lists and a false merge are left out.
type gitCommit struct {
	SHA        string   `json:"sha"`
	Parents    []string `json:"parents,omitempty"`
	Subject    string   `json:"subject"`
	Body       string   `json:"body,omitempty"`
	Time       string   `json:"time"`
	Author     string   `json:"author"`
	AuthorName string   `json:"author_name,omitempty"`
	CoAuthors  []string `json:"co_authors,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Trailers   []string `json:"trailers,omitempty"`
	Tickets    []string `json:"tickets,omitempty"`
	Merge      bool     `json:"merge,omitempty"`
	day        time.Time
}

var (
	// ticketKey finds references like ABC-123: a project key of capitals
	// and digits, a dash, a number.
	ticketKey = regexp.MustCompile(`\b([A-Z][A-Z0-9]+-[0-9]+)\b`)
	// ticketNumber finds references like #123 that are not part of a word,
	// an HTML entity (&#123;) or a URL fragment.
	ticketNumber = regexp.MustCompile(`(?:^|[^\w&/#])#([0-9]+)\b`)
	// emailIn finds the address in "Name <address>".
	emailIn = regexp.MustCompile(`<([^<>\s]+@[^<>\s]+)>`)
)

// notTickets are key-shaped words that name a standard or an encoding,
// not a ticket: UTF-8 is not ticket 8 of project UTF.
var notTickets = []string{"AES", "ARM", "CVE", "HTTP", "ISO", "MD", "RFC", "SHA", "SSL", "TLS", "UTF", "X86"}

// collectGit reads the repository's commits for every missing day in one
// walk of its history and writes a document for each day that has commits.
// A day with none writes nothing: reading it again costs nothing, since
// the one walk reads the whole window anyway. A commit it cannot read is
// named in the result and left out; the others are collected.
func collectGit(ctx context.Context, in Input, s source) (Result, error) {
	var res Result
	days, present, err := missingDays(in, s)
	res.Present = present
	if err != nil || len(days) == 0 {
		return res, err
	}
	repo := gitRepo(in, s)
	commits, bad, head, err := gitLog(ctx, in, repo, days[0])
	res.BadCommits = bad
	if err != nil {
		return res, err
	}
	// A whole window without a commit is most often a quiet repository
	// read with too short a window: say where its commits are. A window
	// partly present may hold commits already collected, so it gets no
	// hint.
	if len(commits) == 0 && present == 0 {
		res.Quiet = &Quiet{NoCommit: head == ""}
		if head != "" {
			if res.Quiet.Newest, err = newestBefore(ctx, in, repo, head); err != nil {
				return res, err
			}
		}
	}
	byDay := map[time.Time][]gitCommit{}
	for _, c := range commits {
		byDay[c.day] = append(byDay[c.day], c)
	}
	for _, day := range days {
		cs := byDay[day]
		if len(cs) == 0 {
			res.Empty++
			continue
		}
		slices.SortFunc(cs, func(a, b gitCommit) int {
			return cmp.Or(strings.Compare(a.Time, b.Time), strings.Compare(a.SHA, b.SHA))
		})
		d := document{Source: s.name, Layer: model.LayerEvents, Date: day.Format(time.DateOnly), Schema: gitSchema,
			Fields: gitFieldsMap, Window: dayWindow(day), CollectedAt: in.Now}
		for _, c := range cs {
			d.Records = append(d.Records, marshalRecord(c))
		}
		w, err := write(in, docPath(in.Config, s, day), d)
		if err != nil {
			return res, err
		}
		res.Written = append(res.Written, w)
	}
	return res, nil
}

// gitRepo is the repository to read: --repo, else the source's path
// (from the base), else the base's own repository.
func gitRepo(in Input, s source) string {
	switch {
	case in.Repo != "":
		return in.Repo
	case s.policy.Path != "":
		return filepath.Join(in.Dir, filepath.FromSlash(s.policy.Path))
	}
	return in.Dir
}

// maxNewestBytes bounds what newestBefore's git call may print: one date
// and a newline.
const maxNewestBytes = 64

// newestBefore is the author day (UTC) of the newest commit of head
// committed before Today, zero when there is none: one `git log -1`, whose
// walk stops at the first commit it prints. --until passes by the commits
// of the as-of day and after, which no --days can reach.
func newestBefore(ctx context.Context, in Input, repo, head string) (time.Time, error) {
	out, err := runGitCapped(ctx, in, repo, maxNewestBytes, "", "log", "-1", "--no-color", "--no-show-signature",
		"--format=%at", "--until="+in.Today.Format(time.RFC3339), head, "--")
	if err != nil {
		return time.Time{}, err
	}
	text := strings.TrimSpace(string(out))
	if text == "" {
		return time.Time{}, nil
	}
	// The seconds, not %aI: git prints a zone it took (+9959) in an ISO
	// date that no parser takes back.
	secs, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log printed the author date %q, which cairn cannot read", text)
	}
	when := time.Unix(secs, 0).UTC()
	return time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC), nil
}

// runGit runs one git command in repo and returns its stdout, refusing
// more than maxOutputBytes of it.
func runGit(ctx context.Context, in Input, repo string, args ...string) ([]byte, error) {
	return runGitCapped(ctx, in, repo, maxOutputBytes, "", args...)
}

// runGitInput is runGit with stdin.
func runGitInput(ctx context.Context, in Input, repo, stdin string, args ...string) ([]byte, error) {
	return runGitCapped(ctx, in, repo, maxOutputBytes, stdin, args...)
}

// runGitCapped is runGit refusing more than max bytes of stdout: git is
// stopped at the cap, and nothing past it is kept.
func runGitCapped(ctx context.Context, in Input, repo string, max int, stdin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(ctx, in, repo, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	stdout := cappedBuffer{max: max, stop: cancel}
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stdout.over {
		return nil, fmt.Errorf("git %s in %s printed more than %d bytes, the cap of what cairn reads of it, and was stopped; collect fewer days at once (--days)", args[0], repo, max)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && args[0] == "rev-parse" && ee.ExitCode() == 1 {
			return nil, err
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, gitStartError(err)
		}
		return nil, gitFailed(args[0], repo, err, &stderr)
	}
	return stdout.bytes(), nil
}

// gitCommand is one git command in repo, in the collection's environment.
func gitCommand(ctx context.Context, in Input, repo string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	cmd.Env = in.Environ
	cmd.WaitDelay = waitDelay
	return cmd
}

// gitStartError is the error of a git that could not start.
func gitStartError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return errors.New("the git collector needs the git binary on PATH; install git")
	}
	return fmt.Errorf("cannot run git: %w", err)
}

// gitFailed is the error of a git command that failed, with the end of
// its stderr.
func gitFailed(command, repo string, err error, stderr *tailBuffer) error {
	return fmt.Errorf("git %s in %s failed (%v)%s; pass --repo PATH or set sources.git.path to a repository", command, repo, err, stderr.suffix())
}

// personURI is an author's entity URI; addresses are compared without case.
func personURI(email string) string {
	return "person:email/" + strings.ToLower(strings.TrimSpace(email))
}

// ticketsIn lists the ticket references of a message, in order, once each.
func ticketsIn(msg string) []string {
	var out []string
	type ref struct {
		at  int
		uri string
	}
	var refs []ref
	for _, m := range ticketKey.FindAllStringSubmatchIndex(msg, -1) {
		key := msg[m[2]:m[3]]
		if !slices.Contains(notTickets, key[:strings.IndexByte(key, '-')]) {
			refs = append(refs, ref{m[2], "ticket:" + key})
		}
	}
	for _, m := range ticketNumber.FindAllStringSubmatchIndex(msg, -1) {
		refs = append(refs, ref{m[2], "ticket:#" + msg[m[2]:m[3]]})
	}
	slices.SortStableFunc(refs, func(a, b ref) int { return a.at - b.at })
	for _, r := range refs {
		out = appendNew(out, r.uri)
	}
	return out
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// marshalRecord encodes a record compactly, with <, > and & as they are.
func marshalRecord(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings, lists and booleans always encode
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
