package collect

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// gitWalkSlack is how many commits in a row, in git's walk order, both
// authored and committed before the window, the walk reads before it
// stops. git walks newest committer date first, but reaches a commit only
// through its children, so a commit whose committer clock was far behind
// (a date in 1970) comes out before the window's commits it leads to: the
// slack walks on past it, where `git log --since` stopped there for good.
// A commit of the window that only comes after more than this many older
// ones in a row is missed.
const gitWalkSlack = 1000

// maxCommitBytes bounds one commit object, headers and message: a larger
// one is left out, named.
const maxCommitBytes = 1 << 20

// BadCommit is a commit the git collector could not read and left out; the
// others are collected.
type BadCommit struct {
	SHA     string
	Problem string // what is wrong with it, for a message
}

// gitLog reads the commits of HEAD authored from the first day to before
// Today, the commits it could not read, and HEAD's commit id ("" in a
// repository with no commit yet).
//
// It reads the commit objects as git stores them: `git rev-list HEAD`
// names the commits, newest first, and `git cat-file --batch` prints each
// object after its size in bytes. cairn parses the headers and splits the
// message itself, so no byte of a message can pass for a field boundary,
// as one could in the separated fields of `git log --format`, and a zone
// git takes (+9959) costs nothing: the time is the seconds, the zone only
// how git would show them. The walk has no --since, which stops at the
// first commit committed before it, whatever lies behind; gitWalkSlack
// ends it instead.
func gitLog(ctx context.Context, in Input, repo string, first time.Time) ([]gitCommit, []BadCommit, string, error) {
	out, err := runGit(ctx, in, repo, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return nil, nil, "", nil // a repository with no commit yet
		}
		return nil, nil, "", err
	}
	head := strings.TrimSpace(string(out))
	var commits []gitCommit
	var bad []BadCommit
	kept, old := 0, 0
	err = walkCommits(ctx, in, repo, head, func(obj gitObject) (bool, error) {
		c, committed, problem := parseCommitObject(obj)
		switch {
		case problem != "" && !committed.IsZero() && committed.Before(first):
			// Committed before the window: it is not the window's, and
			// naming it on every run would help no one.
			old++
		case problem != "":
			bad = append(bad, BadCommit{SHA: obj.sha, Problem: problem})
		case committed.Before(first) && c.day.Before(first):
			old++
		default:
			old = 0
			if c.day.Before(first) || !c.day.Before(in.Today) {
				break
			}
			if kept += len(obj.data); kept > maxOutputBytes {
				return true, fmt.Errorf("the commits of the window in %s come to more than %d bytes, the cap of what cairn reads of them; collect fewer days at once (--days)", repo, maxOutputBytes)
			}
			commits = append(commits, c)
		}
		return old >= gitWalkSlack, nil
	})
	if err != nil {
		return nil, nil, head, err
	}
	if err := addPaths(ctx, in, repo, commits); err != nil {
		return nil, nil, head, err
	}
	return commits, bad, head, nil
}

// gitObject is one object `git cat-file --batch` printed: its data, or
// why there is none.
type gitObject struct {
	sha     string
	data    []byte
	missing bool  // not in the repository (a partial clone)
	size    int64 // set when over maxCommitBytes, and data is not read
}

// walkCommits calls visit with each commit of head, newest committer date
// first as git walks, until visit says stop, fails, or the history ends.
// `git rev-list` is piped into `git cat-file --batch`; stopping kills both.
func walkCommits(ctx context.Context, in Input, repo, head string, visit func(gitObject) (bool, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	list := gitCommand(ctx, in, repo, "rev-list", head, "--")
	read := gitCommand(ctx, in, repo, "cat-file", "--batch", "--buffer")
	var listErr, readErr tailBuffer
	list.Stderr, read.Stderr = &listErr, &readErr
	shas, err := list.StdoutPipe()
	if err != nil {
		return err
	}
	read.Stdin = shas
	objects, err := read.StdoutPipe()
	if err != nil {
		return err
	}
	if err := list.Start(); err != nil {
		return gitStartError(err)
	}
	if err := read.Start(); err != nil {
		cancel()
		list.Wait()
		return gitStartError(err)
	}
	r := bufio.NewReaderSize(objects, 64<<10)
	stopped := false
	var walkErr error
	for !stopped && walkErr == nil {
		var obj gitObject
		if obj, walkErr = readObject(r); walkErr == nil {
			stopped, walkErr = visit(obj)
		}
	}
	if errors.Is(walkErr, io.EOF) {
		walkErr = nil
	}
	if stopped || walkErr != nil {
		cancel() // nobody reads the rest
	}
	listDone, readDone := list.Wait(), read.Wait()
	switch {
	case walkErr != nil:
		return walkErr
	case stopped:
		return nil
	case listDone != nil:
		return gitFailed("rev-list", repo, listDone, &listErr)
	case readDone != nil:
		return gitFailed("cat-file", repo, readDone, &readErr)
	}
	return nil
}

// readObject reads one object of `git cat-file --batch` output: a line
// "<sha> <type> <size>" (or "<sha> missing"), the data, a newline. It is
// io.EOF at the end of the output.
func readObject(r *bufio.Reader) (gitObject, error) {
	line, err := r.ReadString('\n')
	if err == io.EOF && line == "" {
		return gitObject{}, io.EOF
	}
	if err != nil {
		return gitObject{}, fmt.Errorf("git cat-file stopped in the middle of a line: %w", err)
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" {
		return gitObject{sha: f[0], missing: true}, nil
	}
	if len(f) != 3 || f[1] != "commit" {
		return gitObject{}, fmt.Errorf("git cat-file printed %q where cairn expects a commit's header", strings.TrimSpace(line))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return gitObject{}, fmt.Errorf("git cat-file printed the size %q, which cairn cannot read", f[2])
	}
	obj := gitObject{sha: f[0]}
	if size > maxCommitBytes {
		obj.size = size
		_, err = io.CopyN(io.Discard, r, size+1)
	} else {
		obj.data = make([]byte, size+1)
		_, err = io.ReadFull(r, obj.data)
		obj.data = obj.data[:size]
	}
	if err != nil {
		return gitObject{}, fmt.Errorf("git cat-file stopped in the middle of commit %s: %w", obj.sha, err)
	}
	return obj, nil
}

// parseCommitObject reads a commit object: the headers up to the first
// empty line, then the message. committed is the committer's instant,
// zero when it cannot be read; problem says why the commit cannot be
// collected, "" when it can.
func parseCommitObject(obj gitObject) (c gitCommit, committed time.Time, problem string) {
	switch {
	case obj.missing:
		return c, committed, "the object is missing from the repository"
	case obj.size > 0:
		return c, committed, fmt.Sprintf("the commit is %d bytes, over the %d-byte cap of one commit", obj.size, maxCommitBytes)
	}
	headers, msg, _ := bytes.Cut(obj.data, []byte("\n\n"))
	var author, encoding string
	for _, line := range strings.Split(string(headers), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "parent":
			c.Parents = append(c.Parents, value)
		case "author":
			author = value
		case "committer":
			if _, _, when, err := splitIdent(value); err == nil {
				committed = when
			}
		case "encoding":
			encoding = value
		}
	}
	c.SHA = obj.sha
	c.Merge = len(c.Parents) > 1
	if author == "" {
		return c, committed, "it has no author line"
	}
	name, email, when, err := splitIdent(author)
	if err != nil {
		return c, committed, fmt.Sprintf("its author line %q %v", author, err)
	}
	c.Author, c.AuthorName = personURI(email), decodeText(name, encoding)
	c.Time = when.Format(time.RFC3339)
	c.day = time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC)
	m := splitMessage(decodeText(string(msg), encoding))
	c.Subject, c.Body, c.Trailers = m.subject, m.body, m.trailers
	for _, t := range c.Trailers {
		key, value, _ := strings.Cut(t, ":")
		if strings.EqualFold(key, "co-authored-by") {
			if e := emailIn.FindStringSubmatch(value); e != nil {
				c.CoAuthors = appendNew(c.CoAuthors, personURI(e[1]))
			}
		}
	}
	c.Tickets = ticketsIn(c.Subject + "\n" + m.rawBody)
	return c, committed, ""
}

// splitIdent reads an author or committer line, "Name <email> seconds
// zone", as git does: the address runs from the first < to the next >,
// the date follows the last >. The instant is the seconds since 1970, in
// UTC; the zone is not needed for it and not checked.
func splitIdent(v string) (name, email string, when time.Time, err error) {
	name, rest, ok := strings.Cut(v, "<")
	email, _, ok2 := strings.Cut(rest, ">")
	if !ok || !ok2 {
		return "", "", when, errors.New("has no <address>")
	}
	date := strings.Fields(v[strings.LastIndexByte(v, '>')+1:])
	if len(date) == 0 {
		return "", "", when, errors.New("has no date")
	}
	secs, err := strconv.ParseInt(date[0], 10, 64)
	if err != nil || secs < 0 {
		return "", "", when, fmt.Errorf("has the date %q, which is not seconds since 1970", date[0])
	}
	return strings.TrimSpace(name), email, time.Unix(secs, 0).UTC(), nil
}

// addPaths sets each commit's changed paths, with one `git diff-tree`
// reading the commits' ids. With -z and --raw, every change is a line
// starting with ':' and then its path, so the path is always the word
// after a change line, whatever it looks like, and a commit id is any
// other word. A merge and a commit that changes nothing print nothing.
func addPaths(ctx context.Context, in Input, repo string, commits []gitCommit) error {
	if len(commits) == 0 {
		return nil
	}
	at := map[string]int{}
	var ids strings.Builder
	for i, c := range commits {
		at[c.SHA] = i
		ids.WriteString(c.SHA + "\n")
	}
	out, err := runGitInput(ctx, in, repo, ids.String(), "diff-tree", "--stdin", "-z", "-r", "--raw", "--root", "--no-renames")
	if err != nil {
		return err
	}
	words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	cur := -1
	for i := 0; i < len(words) && words[0] != ""; i++ {
		w := words[i]
		if strings.HasPrefix(w, ":") {
			if cur < 0 || i+1 == len(words) {
				return fmt.Errorf("git diff-tree printed a change cairn cannot read: %q", w)
			}
			i++
			commits[cur].Paths = append(commits[cur].Paths, words[i])
			continue
		}
		n, ok := at[w]
		if !ok {
			return fmt.Errorf("git diff-tree printed %q where cairn expects a commit id", w)
		}
		cur = n
	}
	return nil
}
