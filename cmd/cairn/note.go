package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/cmd/cairn/internal/notes"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// NoteCmd is `cairn note suggest|keep|drop|widen|reset|correct|merge|list`.
type NoteCmd struct {
	Suggest NoteSuggestCmd `cmd:"" help:"Record an observation as a suggestion (anyone; it is not a rule until a person keeps it)."`
	Keep    NoteKeepCmd    `cmd:"" help:"Keep a suggestion: a person's keep makes it a rule or an established note."`
	Drop    NoteDropCmd    `cmd:"" help:"Drop a suggestion or a kept note (a person's decision)."`
	Widen   NoteWidenCmd   `cmd:"" help:"Change where or when a note or term holds: its paths, axes or window (a person's decision)."`
	Reset   NoteResetCmd   `cmd:"" help:"Undo a person's keep or drop: the suggestion is undecided again (a person's decision)."`
	Correct NoteCorrectCmd `cmd:"" help:"Correct a note's or term's wording; a person's correct of an established note replaces its text."`
	Merge   NoteMergeCmd   `cmd:"" help:"Record that a change carrying the note or term was merged, such as a pull request."`
	List    NoteListCmd    `cmd:"" help:"List the operations of the notes log, oldest first."`
}

// noteAmend is what widen, reset, correct and merge take first: what they
// act on.
type noteAmend struct {
	Ref string `arg:"" name:"REF" help:"What it acts on: a target (note:<slug>, term:<id>) or an operation id (see cairn note list)."`
}

// record appends an operation of kind on the amendment's REF, with words
// as its text.
func (a noteAmend) record(env *Env, kind string, words []string, who noteWho, format jsonFormat) error {
	return recordNote(env, notes.Request{Kind: kind, Actor: who.actor(env), Session: who.Session, Ref: a.Ref, Text: strings.Join(words, " ")}, format)
}

// NoteWidenCmd is `cairn note widen REF`.
type NoteWidenCmd struct {
	noteAmend  `embed:""`
	Path       []string          `help:"Where it holds now: a glob of content paths (repeatable)." placeholder:"GLOB" sep:"none"`
	Axis       map[string]string `help:"Where it holds on a typed axis, as axis=value (repeatable)." placeholder:"AXIS=VALUE"`
	ValidFrom  string            `help:"First day it holds (YYYY-MM-DD)." placeholder:"DAY"`
	ValidUntil string            `help:"Last day it holds (YYYY-MM-DD)." placeholder:"DAY"`
	noteWho    `embed:""`
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn note widen --help`.
func (NoteWidenCmd) Help() string {
	return `Example:

    cairn note widen note:tokens-voice --path 'docs/**' --path 'site/**' --actor person:marc`
}

// Run records the widen.
func (c *NoteWidenCmd) Run(env *Env) error {
	return recordNote(env, notes.Request{
		Kind: model.OpWiden, Actor: c.actor(env), Session: c.Session, Ref: c.Ref,
		Paths: c.Path, Axes: c.Axis, ValidFrom: c.ValidFrom, ValidUntil: c.ValidUntil,
	}, c.jsonFormat)
}

// NoteResetCmd is `cairn note reset REF`.
type NoteResetCmd struct {
	noteAmend  `embed:""`
	Why        []string `arg:"" optional:"" name:"WHY" help:"Why, in a sentence (optional)." sep:"none"`
	noteWho    `embed:""`
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn note reset --help`.
func (NoteResetCmd) Help() string {
	return `Example:

    cairn note reset note:tokens-voice "kept too early; the review is next week" --actor person:marc`
}

// Run records the reset.
func (c *NoteResetCmd) Run(env *Env) error {
	return c.record(env, model.OpReset, c.Why, c.noteWho, c.jsonFormat)
}

// NoteCorrectCmd is `cairn note correct REF TEXT…`.
type NoteCorrectCmd struct {
	noteAmend  `embed:""`
	Text       []string `arg:"" name:"TEXT" help:"The corrected wording." sep:"none"`
	noteWho    `embed:""`
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn note correct --help`.
func (NoteCorrectCmd) Help() string {
	return `Example:

    cairn note correct note:tokens-voice "API docs say push token, never key" --actor person:marc`
}

// Run records the correct.
func (c *NoteCorrectCmd) Run(env *Env) error {
	return c.record(env, model.OpCorrect, c.Text, c.noteWho, c.jsonFormat)
}

// NoteMergeCmd is `cairn note merge REF WHERE…`.
type NoteMergeCmd struct {
	noteAmend  `embed:""`
	Where      []string `arg:"" name:"WHERE" help:"Where it was merged, such as #412 or a commit." sep:"none"`
	noteWho    `embed:""`
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn note merge --help`.
func (NoteMergeCmd) Help() string {
	return `Example:

    cairn note merge term:push-token "#412" --actor agent:ci`
}

// Run records the merge.
func (c *NoteMergeCmd) Run(env *Env) error {
	return c.record(env, model.OpMerge, c.Where, c.noteWho, c.jsonFormat)
}

// Help is the detail under the summary of `cairn note --help`.
func (NoteCmd) Help() string {
	return `Example:

    cairn note suggest note:tokens-voice "API docs say token, never key" --path 'docs/api/**' --actor agent:claude
    cairn note keep note:tokens-voice --actor person:marc
    cairn note list --target note:tokens-voice`
}

// noteWho are the flags every recording subcommand shares.
type noteWho struct {
	Actor   string `help:"Who records it: person:<name> or agent:<client> (default: $CAIRN_ACTOR)." placeholder:"WHO"`
	Session string `help:"The session it was recorded in, to tell observations apart." placeholder:"ID"`
}

func (w noteWho) actor(env *Env) string {
	if w.Actor != "" {
		return w.Actor
	}
	return env.Getenv("CAIRN_ACTOR")
}

// NoteSuggestCmd is `cairn note suggest TARGET TEXT…`.
type NoteSuggestCmd struct {
	Target     string            `arg:"" name:"TARGET" help:"What it is about: note:<slug> for a note in prose, term:<id> for a term of terms.yaml."`
	Text       []string          `arg:"" name:"TEXT" help:"The observation, in a sentence or two." sep:"none"`
	Path       []string          `help:"Where it holds: a glob of content paths (repeatable; default everywhere)." placeholder:"GLOB" sep:"none"`
	Axis       map[string]string `help:"Where it holds on a typed axis, as axis=value (repeatable)." placeholder:"AXIS=VALUE"`
	Evidence   []string          `help:"A file or record URI that shows it (repeatable)." placeholder:"URI" sep:"none"`
	ValidFrom  string            `help:"First day it holds (YYYY-MM-DD)." placeholder:"DAY"`
	ValidUntil string            `help:"Last day it holds (YYYY-MM-DD)." placeholder:"DAY"`
	noteWho    `embed:""`
	jsonFormat `embed:""`
}

// Help is the detail under the summary of `cairn note suggest --help`.
func (NoteSuggestCmd) Help() string {
	return `Example:

    cairn note suggest term:api-key "say token in the API docs" --path 'docs/api/**' --axis market=emea --actor agent:claude`
}

// Run records the suggestion and refreshes the rules files.
func (c *NoteSuggestCmd) Run(env *Env) error {
	return recordNote(env, notes.Request{
		Kind: model.OpSuggest, Actor: c.actor(env), Session: c.Session, Target: c.Target,
		Text: strings.Join(c.Text, " "), Paths: c.Path, Axes: c.Axis, Evidence: c.Evidence,
		ValidFrom: c.ValidFrom, ValidUntil: c.ValidUntil,
	}, c.jsonFormat)
}

// noteDecision is what `cairn note keep|drop REF` takes.
type noteDecision struct {
	Ref        string   `arg:"" name:"REF" help:"The operation id to decide on, or a target (note:<slug>, term:<id>) for its newest suggestion."`
	Why        []string `arg:"" optional:"" name:"WHY" help:"Why, in a sentence (optional)." sep:"none"`
	noteWho    `embed:""`
	jsonFormat `embed:""`
}

func (d noteDecision) record(env *Env, kind string) error {
	return recordNote(env, notes.Request{
		Kind: kind, Actor: d.actor(env), Session: d.Session, Ref: d.Ref, Text: strings.Join(d.Why, " "),
	}, d.jsonFormat)
}

// NoteKeepCmd is `cairn note keep REF`.
type NoteKeepCmd struct {
	noteDecision `embed:""`
}

// Help is the detail under the summary of `cairn note keep --help`.
func (NoteKeepCmd) Help() string {
	return `Example:

    cairn note keep note:tokens-voice "agreed in the docs review" --actor person:marc`
}

// Run records the keep.
func (c *NoteKeepCmd) Run(env *Env) error { return c.record(env, model.OpKeep) }

// NoteDropCmd is `cairn note drop REF`.
type NoteDropCmd struct {
	noteDecision `embed:""`
}

// Help is the detail under the summary of `cairn note drop --help`.
func (NoteDropCmd) Help() string {
	return `Example:

    cairn note drop 20261130T101010.000Z-abcdef "the API renamed it" --actor person:marc`
}

// Run records the drop.
func (c *NoteDropCmd) Run(env *Env) error { return c.record(env, model.OpDrop) }

// recordNote appends one operation to the notes log and then refreshes
// the build, which writes the rules files, when no build is running (see
// recordOp). With --format json the operation prints as one object of
// `cairn note list --format json`.
func recordNote(env *Env, req notes.Request, format jsonFormat) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	req.Now = env.now()
	asOf, err := asOfDay("", env)
	if err != nil {
		return err
	}
	rec, err := recordOp(root, req, asOf, env.Stderr)
	var derr *diag.Errors
	if errors.As(err, &derr) {
		for _, d := range derr.Diagnostics {
			fmt.Fprintln(env.Stderr, d.String())
		}
		return &exitError{code: 2, msg: "the operation was not recorded; fix what is listed above"}
	}
	op := rec.op
	switch {
	case op.Op != "" && format.json():
		if err := writeJSON(env.Stdout, op); err != nil {
			return err
		}
	case op.Op != "":
		fmt.Fprint(env.Stdout, noteLine(op))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stderr, "cairn: "+escape.Text(rec.summary()))
	return nil
}

// noteLine is what cairn note prints of a recorded operation, and what the
// context_note tool answers: its id, kind and target.
func noteLine(op model.LogOp) string {
	return fmt.Sprintf("%s\t%s\t%s\n", op.Op, op.Kind, clean(op.Target))
}

// recorded is what recordOp did: the operation appended, and the refresh
// that followed it, or who held the base lock instead.
type recorded struct {
	op        model.LogOp
	refreshed buildResult // the build that followed the append
	// skipped says a build held the base lock, so that none followed;
	// holder is that build's line, "" when it had not written it yet.
	skipped bool
	holder  string
}

// summary is the line cairn note ends with on stderr.
func (r recorded) summary() string {
	if !r.skipped {
		return r.refreshed.summary()
	}
	holder := r.holder
	if holder == "" {
		holder = "holder not written yet"
	}
	return fmt.Sprintf("recorded %s; the rules files were not refreshed, since another cairn holds the base lock (%s): "+
		"the next cairn build picks the note up, and queries read it from the log already", r.op.Op, holder)
}

// recordOp appends one operation to the notes log of the base at root
// under the log's own lock, held only for the append (artifacts.LockLog),
// then refreshes the build if the base lock is free: what cairn note and
// the MCP tool context_note both do. A build that holds the base lock,
// for as long as it runs, never makes a note wait or fail; the refresh is
// then skipped, and the next build reads the note, as every query reads
// the log from the base already. The operation is returned, with its id,
// once it is in the log, even when the refresh fails; a request the log
// refuses comes back as a *diag.Errors or a *notes.RequestError, with
// nothing written.
func recordOp(root string, req notes.Request, asOf time.Time, stderr io.Writer) (recorded, error) {
	op, err := appendOp(root, req)
	if err != nil {
		return recorded{}, err
	}
	rec := recorded{op: op}
	lock, err := artifacts.AcquireLock(root, "cairn note (refreshing the rules files)")
	var busy *artifacts.BusyError
	if errors.As(err, &busy) {
		rec.skipped, rec.holder = true, busy.Holder
		return rec, nil
	}
	if err == nil {
		defer lock.Release()
		rec.refreshed, err = buildLocked(root, asOf, false, stderr, buildWatch{})
	}
	if err != nil {
		return rec, fmt.Errorf("recorded %s (do not record it again), but the refresh of the artifacts and rules files failed: %w; fix that and run cairn build", op.Op, err)
	}
	return rec, nil
}

// appendOp appends one operation to the notes log under the log's lock:
// it reads the log, so that the id follows the newest one, and writes
// and syncs the log's new content, then lets the lock go.
func appendOp(root string, req notes.Request) (model.LogOp, error) {
	lock, err := waitForLogLock(root)
	if err != nil {
		return model.LogOp{}, err
	}
	defer lock.Release()
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return model.LogOp{}, err
	}
	defer osRoot.Close()
	p, err := notes.Prepare(osRoot.FS(), req)
	if err != nil {
		return model.LogOp{}, err
	}
	if err := artifacts.WriteBaseFile(root, p.Path, p.Data); err != nil {
		return model.LogOp{}, err
	}
	return p.Op, nil
}

// noteLockWait is how long cairn note waits for other notes to release
// the log's lock. Each holds it for one append, milliseconds, so only a
// crowd of notes at once waits at all; a note refused would be lost
// unless the agent retried.
const noteLockWait = 10 * time.Second

// noteLockPoll is how often a waiting note tries the log's lock again.
const noteLockPoll = 5 * time.Millisecond

// waitForLogLock takes the log's lock, waiting up to noteLockWait while
// another note holds it.
func waitForLogLock(root string) (*artifacts.FileLock, error) {
	deadline := time.Now().Add(noteLockWait)
	for {
		lock, err := artifacts.LockLog(root, "cairn note")
		var busy *artifacts.FileBusyError
		if err == nil || !errors.As(err, &busy) || time.Now().After(deadline) {
			return lock, err
		}
		time.Sleep(noteLockPoll)
	}
}

// NoteListCmd is `cairn note list`.
type NoteListCmd struct {
	Target string `help:"Only the operations on this target." placeholder:"TARGET"`
	Format string `help:"Output format: text or json." enum:"text,json" default:"text" placeholder:"FORMAT"`
}

// Help is the detail under the summary of `cairn note list --help`.
func (NoteListCmd) Help() string {
	return `Example:

    cairn note list --target note:tokens-voice --format json`
}

// Run prints the log's operations, oldest first.
func (c *NoteListCmd) Run(env *Env) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer osRoot.Close()
	lg, err := load.ReadLog(osRoot.FS())
	if err != nil {
		return err
	}
	for _, d := range lg.Diagnostics {
		fmt.Fprintln(env.Stderr, d.String())
	}
	ops := []model.LogOp{}
	for _, op := range lg.Ops {
		if c.Target == "" || op.Target == c.Target {
			ops = append(ops, op)
		}
	}
	if c.Format == formatJSON {
		return writeJSON(env.Stdout, ops)
	}
	for _, op := range ops {
		fmt.Fprintf(env.Stdout, "%s\t%s\t%s\t%s\t%s\n", clean(op.Op), clean(op.Kind), clean(op.Actor), clean(op.Target), clean(op.Text))
	}
	return nil
}

// clean keeps a stored value on its line and in its column, and keeps it
// from acting on the terminal of the person who reviews it: the log is
// anyone's to write, an agent's suggestion included.
func clean(s string) string {
	return strings.Join(strings.Fields(escape.Line(s)), " ")
}
