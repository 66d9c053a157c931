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
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/model"
)

// gitFormat is one commit of `git log` output: a record separator, then
// the fields below split by unit separators; --name-only -z follows the
// last one with the changed paths, each ending in NUL.
const gitFormat = "%x1e%H%x1f%P%x1f%aI%x1f%ae%x1f%an%x1f%s%x1f%b%x1f%(trailers:only,unfold)%x1f"

// gitFields is how many unit-separated parts a commit has, the paths last.
const gitFields = 9

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

// collectGit reads the repository's commits for every missing day with
// one `git log` and writes a document for each day that has commits. A day
// with none writes nothing: reading it again costs nothing, since the one
// process reads the whole window anyway.
func collectGit(ctx context.Context, in Input, s source) (Result, error) {
	var res Result
	days, present, err := missingDays(in, s)
	res.Present = present
	if err != nil || len(days) == 0 {
		return res, err
	}
	repo := gitRepo(in, s)
	commits, head, err := gitLog(ctx, in, repo, days[0])
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

// gitLog lists HEAD's commits authored from the first day to before
// Today, and HEAD's commit id, "" in a repository with no commit yet.
// git's own --since filters on the committer date, which is never before
// the author date when clocks are sane, so it only bounds the walk; the
// author day decides the document.
func gitLog(ctx context.Context, in Input, repo string, first time.Time) ([]gitCommit, string, error) {
	out, err := runGit(ctx, in, repo, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return nil, "", nil // a repository with no commit yet
		}
		return nil, "", err
	}
	head := strings.TrimSpace(string(out))
	out, err = runGit(ctx, in, repo, "log", "--no-color", "--no-show-signature", "--no-renames", "--name-only", "-z",
		"--format="+gitFormat, "--since="+first.Format(time.RFC3339), head, "--")
	if err != nil {
		return nil, head, err
	}
	var commits []gitCommit
	for _, chunk := range strings.Split(string(out), "\x1e")[1:] {
		c, err := parseCommit(chunk)
		if err != nil {
			return nil, head, err
		}
		if !c.day.Before(first) && c.day.Before(in.Today) {
			commits = append(commits, c)
		}
	}
	return commits, head, nil
}

// maxNewestBytes bounds what newestBefore's git call may print: one date
// and a newline.
const maxNewestBytes = 64

// newestBefore is the author day (UTC) of the newest commit of head
// committed before Today, zero when there is none: one `git log -1`, whose
// walk stops at the first commit it prints. --until passes by the commits
// of the as-of day and after, which no --days can reach.
func newestBefore(ctx context.Context, in Input, repo, head string) (time.Time, error) {
	out, err := runGitCapped(ctx, in, repo, maxNewestBytes, "log", "-1", "--no-color", "--no-show-signature",
		"--format=%aI", "--until="+in.Today.Format(time.RFC3339), head, "--")
	if err != nil {
		return time.Time{}, err
	}
	text := strings.TrimSpace(string(out))
	if text == "" {
		return time.Time{}, nil
	}
	when, err := time.Parse(time.RFC3339, text)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log printed the author date %q, which cairn cannot read: %v", text, err)
	}
	when = when.UTC()
	return time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC), nil
}

// runGit runs one git command in repo and returns its stdout, refusing
// more than maxOutputBytes of it.
func runGit(ctx context.Context, in Input, repo string, args ...string) ([]byte, error) {
	return runGitCapped(ctx, in, repo, maxOutputBytes, args...)
}

// runGitCapped is runGit refusing more than max bytes of stdout: git is
// stopped at the cap, and nothing past it is kept.
func runGitCapped(ctx context.Context, in Input, repo string, max int, args ...string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	cmd.Env = in.Environ
	cmd.WaitDelay = waitDelay
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
			return nil, errors.New("the git collector needs the git binary on PATH; install git")
		}
		return nil, fmt.Errorf("git %s in %s failed (%v)%s; pass --repo PATH or set sources.git.path to a repository", args[0], repo, err, stderr.suffix())
	}
	return stdout.buf, nil
}

// parseCommit reads one commit of gitFormat's output.
func parseCommit(chunk string) (gitCommit, error) {
	parts := strings.SplitN(chunk, "\x1f", gitFields)
	if len(parts) != gitFields {
		return gitCommit{}, fmt.Errorf("git log printed a commit cairn cannot read (%d parts, want %d); is the git binary older than 2.9?", len(parts), gitFields)
	}
	when, err := time.Parse(time.RFC3339, parts[2])
	if err != nil {
		return gitCommit{}, fmt.Errorf("commit %s: author date %q: %v", parts[0], parts[2], err)
	}
	when = when.UTC()
	trailersText := strings.TrimRight(parts[7], "\n")
	c := gitCommit{
		SHA:        parts[0],
		Parents:    strings.Fields(parts[1]),
		Subject:    parts[5],
		Body:       strings.TrimSpace(strings.TrimSuffix(strings.TrimRight(parts[6], "\n"), trailersText)),
		Time:       when.Format(time.RFC3339),
		Author:     personURI(parts[3]),
		AuthorName: parts[4],
		day:        time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC),
	}
	c.Merge = len(c.Parents) > 1
	for _, p := range strings.Split(parts[8], "\x00") {
		if p = strings.TrimLeft(p, "\n"); p != "" {
			c.Paths = append(c.Paths, p)
		}
	}
	for _, t := range strings.Split(trailersText, "\n") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		c.Trailers = append(c.Trailers, t)
		key, value, _ := strings.Cut(t, ":")
		if strings.EqualFold(strings.TrimSpace(key), "co-authored-by") {
			if m := emailIn.FindStringSubmatch(value); m != nil {
				c.CoAuthors = appendNew(c.CoAuthors, personURI(m[1]))
			}
		}
	}
	c.Tickets = ticketsIn(c.Subject + "\n" + parts[6])
	return c, nil
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
