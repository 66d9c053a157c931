package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/notes"
)

// NoteCmd is `cairn note suggest|keep|drop|list`.
type NoteCmd struct {
	Suggest NoteSuggestCmd
	Keep    NoteKeepCmd
	Drop    NoteDropCmd
	List    NoteListCmd
}

// noteWho are the flags every recording subcommand shares.
type noteWho struct {
	Actor   string
	Session string
}

// flags are the flags of noteWho.
func (w *noteWho) flags() []flag {
	return []flag{
		stringFlag("actor", "WHO", "Who records it: person:<name> or agent:<client> (default: $CAIRN_ACTOR).", &w.Actor),
		stringFlag("session", "ID", "The session it was recorded in, to tell observations apart.", &w.Session),
	}
}

func (w noteWho) actor(env *Env) string {
	if w.Actor != "" {
		return w.Actor
	}
	return env.Getenv("CAIRN_ACTOR")
}

// NoteSuggestCmd is `cairn note suggest TARGET TEXT…`.
type NoteSuggestCmd struct {
	Target     string
	Text       []string
	Path       []string
	Axis       map[string]string
	Evidence   []string
	ValidFrom  string
	ValidUntil string
	noteWho
}

// Run records the suggestion and refreshes the rules files.
func (c *NoteSuggestCmd) Run(env *Env) error {
	return recordNote(env, notes.Request{
		Kind: model.OpSuggest, Actor: c.actor(env), Session: c.Session, Target: c.Target,
		Text: strings.Join(c.Text, " "), Paths: c.Path, Axes: c.Axis, Evidence: c.Evidence,
		ValidFrom: c.ValidFrom, ValidUntil: c.ValidUntil,
	})
}

// noteDecision is what `cairn note keep|drop REF` takes.
type noteDecision struct {
	Ref string
	Why []string
	noteWho
}

// args are the arguments of noteDecision.
func (d *noteDecision) args() []arg {
	return []arg{
		stringArg("REF", "The operation id to decide on, or a target (note:<slug>, term:<id>) for its newest suggestion.", false, &d.Ref),
		restArg("WHY", "Why, in a sentence (optional).", true, &d.Why),
	}
}

func (d noteDecision) record(env *Env, kind string) error {
	return recordNote(env, notes.Request{
		Kind: kind, Actor: d.actor(env), Session: d.Session, Ref: d.Ref, Text: strings.Join(d.Why, " "),
	})
}

// NoteKeepCmd is `cairn note keep REF`.
type NoteKeepCmd struct{ noteDecision }

// Run records the keep.
func (c *NoteKeepCmd) Run(env *Env) error { return c.record(env, model.OpKeep) }

// NoteDropCmd is `cairn note drop REF`.
type NoteDropCmd struct{ noteDecision }

// Run records the drop.
func (c *NoteDropCmd) Run(env *Env) error { return c.record(env, model.OpDrop) }

// recordNote appends one operation under the base lock and then refreshes
// the build, which writes the rules files, holding the same lock.
func recordNote(env *Env, req notes.Request) error {
	root, err := env.findBase()
	if err != nil {
		return err
	}
	lock, err := waitForLock(root)
	if err != nil {
		return err
	}
	defer lock.Release()
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer osRoot.Close()
	req.Now = env.now()
	p, err := notes.Prepare(osRoot.FS(), req)
	var derr *diag.Errors
	if errors.As(err, &derr) {
		for _, d := range derr.Diagnostics {
			fmt.Fprintln(env.Stderr, d.String())
		}
		return &exitError{code: 2, msg: "the operation was not recorded; fix what is listed above"}
	}
	if err != nil {
		return err
	}
	if err := artifacts.WriteBaseFile(root, p.Path, p.Data); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s\t%s\t%s\n", p.Op.Op, p.Op.Kind, p.Op.Target)
	asOf, err := asOfDay("", env)
	if err != nil {
		return err
	}
	res, err := buildLocked(root, asOf, false, env.Stderr, nil)
	if err != nil {
		return fmt.Errorf("recorded %s (do not record it again), but the refresh of the artifacts and rules files failed: %w; fix that and run cairn build", p.Op.Op, err)
	}
	fmt.Fprintln(env.Stderr, "cairn: "+res.summary())
	return nil
}

// noteLockWait is how long cairn note waits for a build or another note
// to release the base: agents record observations in parallel, and a
// refused one would be lost unless the agent retried.
const noteLockWait = 10 * time.Second

// waitForLock takes the base lock, waiting up to noteLockWait while
// another cairn holds it.
func waitForLock(root string) (*artifacts.Lock, error) {
	deadline := time.Now().Add(noteLockWait)
	for {
		lock, err := artifacts.AcquireLock(root, "cairn note")
		var busy *artifacts.BusyError
		if err == nil || !errors.As(err, &busy) || time.Now().After(deadline) {
			return lock, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// NoteListCmd is `cairn note list`.
type NoteListCmd struct {
	Target string
	Format string
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
	if c.Format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(ops)
	}
	for _, op := range ops {
		fmt.Fprintf(env.Stdout, "%s\t%s\t%s\t%s\t%s\n", clean(op.Op), clean(op.Kind), clean(op.Actor), clean(op.Target), clean(op.Text))
	}
	return nil
}

// clean keeps a stored value on its line and in its column: the log is
// anyone's to write.
func clean(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
