// Package notes makes the operations `cairn note` appends to the notes log
// (governance/log.jsonl, SPEC §6.5): a suggestion anyone may record; the
// keep or drop by which a person decides on one; a person's widen (where
// or when it holds) and reset (back to undecided); and the correct and
// merge anyone may record about one. It reads the log
// through an fs.FS and returns the line to append; writing it is the
// caller's, under the log's own lock (artifacts.LockLog), so that ids
// stay in order.
//
// An operation id is the instant it was recorded, in UTC to the
// millisecond, and six hex digits of a hash of the operation: ids sort in
// time order, and the log itself carries them, so every machine that holds
// the log sees the same ids.
package notes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// Request is one operation to record.
type Request struct {
	Kind    string // model.OpSuggest, OpKeep, OpDrop, OpWiden, OpReset, OpCorrect or OpMerge
	Actor   string // person:<name> or agent:<client>
	Session string
	// Target is what a suggestion is about: note:<slug> or term:<id>.
	Target string
	Text   string
	// Ref is what a keep or drop decides on: an operation id, or a target,
	// which stands for the newest suggestion on it. For widen, reset,
	// correct and merge it is a target or an operation id (resolveTarget).
	Ref        string
	Paths      []string
	Axes       map[string]string
	Evidence   []string
	ValidFrom  string
	ValidUntil string
	// Now is when the operation is recorded; the caller reads the clock.
	Now time.Time
}

// Prepared is an operation ready to append.
type Prepared struct {
	Op model.LogOp
	// Path is the log's base-relative path and Data its whole new content.
	Path string
	Data []byte
}

// RequestError is a request that cannot be recorded as asked.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// ExitCode makes a refused request exit 2, like any invalid input.
func (e *RequestError) ExitCode() int { return 2 }

// idTimeLayout is the time part of an operation id.
const idTimeLayout = "20060102T150405.000Z"

// atLayout is how an operation's at is written: RFC 3339, UTC, to the
// millisecond like its id.
const atLayout = "2006-01-02T15:04:05.000Z07:00"

// Prepare checks a request against the base's log and returns the
// operation and the log's new content. A log that already has mistakes is
// refused (with them) rather than appended to; so is an operation the
// build would refuse.
func Prepare(fsys fs.FS, req Request) (Prepared, error) {
	lg, err := load.ReadLog(fsys)
	if err != nil {
		return Prepared{}, err
	}
	if errs := diag.ErrorsOnly(lg.Diagnostics); len(errs) > 0 {
		return Prepared{}, &diag.Errors{Diagnostics: errs}
	}
	op := model.LogOp{
		Actor: req.Actor, Session: req.Session, Kind: req.Kind, Text: req.Text,
		Paths: req.Paths, Axes: req.Axes, Evidence: req.Evidence,
		ValidFrom: req.ValidFrom, ValidUntil: req.ValidUntil,
	}
	if err := checkActor(req); err != nil {
		return Prepared{}, err
	}
	// Names, sessions, evidence and globs are one-line identifiers: a line
	// break or control character in one would reach answers and listings.
	for _, v := range append([]string{req.Actor, req.Session, req.Target, req.Ref}, append(req.Evidence, req.Paths...)...) {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return Prepared{}, &RequestError{Msg: fmt.Sprintf("%q holds a line break or control character; actors, sessions, targets, evidence and paths are one-line names", v)}
		}
	}
	if req.Kind == model.OpSuggest && strings.TrimSpace(req.Text) == "" {
		return Prepared{}, &RequestError{Msg: "say what you noticed: a suggestion needs its text"}
	}
	switch req.Kind {
	case model.OpSuggest:
		op.Target = req.Target
	case model.OpKeep, model.OpDrop:
		ref, err := resolve(lg.Ops, req.Ref)
		if err != nil {
			return Prepared{}, err
		}
		op.Target, op.Ref = ref.Target, ref.Op
	case model.OpWiden, model.OpReset, model.OpCorrect, model.OpMerge:
		if err := checkAmend(req); err != nil {
			return Prepared{}, err
		}
		if op.Target, op.Ref, err = resolveTarget(lg.Ops, req.Ref, req.Kind); err != nil {
			return Prepared{}, err
		}
	default:
		return Prepared{}, &RequestError{Msg: fmt.Sprintf("cairn note records suggest, keep, drop, widen, reset, correct and merge, not %q", req.Kind)}
	}
	op.Op, op.At = newID(lg.Ops, op, req.Now), req.Now.UTC().Format(atLayout)
	line, err := encode(op)
	if err != nil {
		return Prepared{}, err
	}
	if ds := lg.CheckAppended(line); len(ds) > 0 {
		return Prepared{}, &diag.Errors{Diagnostics: ds}
	}
	return Prepared{Op: op, Path: lg.Path, Data: lg.Appended(line)}, nil
}

// checkActor enforces who may do what: anyone suggests; only a person
// decides, since a keep is what makes a rule of a suggestion.
func checkActor(req Request) error {
	who, name, _ := strings.Cut(req.Actor, ":")
	switch {
	case req.Actor == "":
		return &RequestError{Msg: "say who records this: --actor person:<name> or agent:<client> (or set CAIRN_ACTOR)"}
	case (who != "person" && who != "agent") || strings.TrimSpace(name) == "":
		return &RequestError{Msg: fmt.Sprintf("actor %q is neither person:<name> nor agent:<client>; write it like person:marc or agent:claude-code", req.Actor)}
	case who == "agent" && req.Kind != model.OpSuggest && req.Kind != model.OpCorrect && req.Kind != model.OpMerge:
		return &RequestError{Msg: fmt.Sprintf("an agent cannot %s: only a person decides on a suggestion; record what you noticed with cairn note suggest", req.Kind)}
	}
	return nil
}

// checkAmend checks what widen, reset, correct and merge need besides
// their target: a widen says where or when, a correct the wording, a
// merge where it was merged.
func checkAmend(req Request) error {
	switch {
	case req.Kind == model.OpWiden && len(req.Paths) == 0 && len(req.Axes) == 0 && req.ValidFrom == "" && req.ValidUntil == "":
		return &RequestError{Msg: "say where or when it holds now: a widen needs --path, --axis, --valid-from or --valid-until"}
	case req.Kind == model.OpCorrect && strings.TrimSpace(req.Text) == "":
		return &RequestError{Msg: "give the corrected wording: a correct needs its text"}
	case req.Kind == model.OpMerge && strings.TrimSpace(req.Text) == "":
		return &RequestError{Msg: "say where it was merged, such as a pull request (#412): a merge needs its text"}
	}
	return nil
}

// resolveTarget finds what widen, reset, correct and merge act on: a
// target named (note:<slug>, term:<id>), whose newest operation is the
// ref, or an operation id, whose target it is. Every one of them refers to
// an earlier operation, so a target the log holds nothing about is
// refused.
func resolveTarget(ops []model.LogOp, ref, kind string) (target, refOp string, err error) {
	if ref == "" {
		return "", "", &RequestError{Msg: "name what it is about: a target such as note:release-tone or term:api-key, or an operation id (see cairn note list)"}
	}
	// An operation id holds no colon; a target is note: or term: and a name.
	if scheme, name, ok := strings.Cut(ref, ":"); ok && (scheme == "note" || scheme == "term") && name != "" {
		for i := len(ops) - 1; i >= 0; i-- {
			if ops[i].Target == ref {
				return ref, ops[i].Op, nil
			}
		}
		return "", "", &RequestError{Msg: fmt.Sprintf("%s has no operation in the log for a %s to act on; record it first with cairn note suggest (see cairn note list)", ref, kind)}
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Op == ref {
			return ops[i].Target, ref, nil
		}
	}
	return "", "", &RequestError{Msg: fmt.Sprintf("%s is neither a target (note:<slug>, term:<id>) nor an operation id of the log; see cairn note list", ref)}
}

// resolve finds the operation a keep or drop decides on: the one with
// that id, or the newest suggestion on that target.
func resolve(ops []model.LogOp, ref string) (model.LogOp, error) {
	if ref == "" {
		return model.LogOp{}, &RequestError{Msg: "name what to decide on: an operation id (see cairn note list) or a target such as note:release-tone"}
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Op != ref {
			continue
		}
		if k := ops[i].Kind; k == model.OpKeep || k == model.OpDrop {
			return model.LogOp{}, &RequestError{Msg: fmt.Sprintf("%s is a %s, itself a decision; keep or drop the suggestion it decided on (%s)", ref, k, ops[i].Ref)}
		}
		return ops[i], nil
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Target == ref && ops[i].Kind == model.OpSuggest {
			return ops[i], nil
		}
	}
	return model.LogOp{}, &RequestError{Msg: fmt.Sprintf("%s is neither an operation id nor a target with a suggestion in the log; see cairn note list", ref)}
}

// newID makes the operation's id: now to the millisecond, or one
// millisecond past the newest id in the log when the clock is behind it,
// so that ids stay increasing; then six hex digits of the operation.
func newID(ops []model.LogOp, op model.LogOp, now time.Time) string {
	t := now.UTC().Truncate(time.Millisecond)
	for _, o := range ops {
		if last, err := time.Parse(idTimeLayout, o.Op[:min(len(o.Op), len(idTimeLayout))]); err == nil && !t.After(last) {
			t = last.Add(time.Millisecond)
		}
	}
	body, _ := json.Marshal(op) // the id and at are not set yet
	return fmt.Sprintf("%s-%06x", t.Format(idTimeLayout), xxhash.Sum64(body)>>40)
}

// encode writes one operation as a log line: compact JSON, the keys in
// model.LogOp's order, no HTML escaping, LF-terminated.
func encode(op model.LogOp) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(op); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
