package notes

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

const suggestLine = `{"op":"20261102T091512.000Z-4c1d7e","at":"2026-11-02T10:15:12+01:00","actor":"agent:codex","kind":"suggest","target":"note:tone","text":"Short sentences."}` + "\n"

func base(log string) fstest.MapFS {
	return fstest.MapFS{
		"cairn.yaml":            {Data: []byte("content: [\"**/*.md\"]\n")},
		"governance/terms.yaml": {Data: []byte("- id: kb\n  term: kb\n  status: preferred\n")},
		"governance/log.jsonl":  {Data: []byte(log)},
	}
}

// TestNewIDKeepsTheLogInOrder: an id is its instant to the millisecond,
// or one millisecond past the newest id when the clock is behind it.
func TestNewIDKeepsTheLogInOrder(t *testing.T) {
	ops := []model.LogOp{{Op: "20261102T091512.000Z-4c1d7e"}}
	op := model.LogOp{Kind: model.OpSuggest, Target: "note:x"}
	for _, c := range []struct {
		name string
		now  time.Time
		want string
	}{
		{"clock ahead", time.Date(2026, 11, 3, 8, 0, 0, 123456789, time.UTC), "20261103T080000.123Z-"},
		{"clock behind", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "20261102T091512.001Z-"},
		{"same millisecond", time.Date(2026, 11, 2, 9, 15, 12, 0, time.UTC), "20261102T091512.001Z-"},
		{"another zone", time.Date(2026, 11, 3, 9, 0, 0, 0, time.FixedZone("CET", 3600)), "20261103T080000.000Z-"},
	} {
		got := newID(ops, op, c.now)
		if !strings.HasPrefix(got, c.want) || len(got) != len(c.want)+6 || got <= ops[0].Op {
			t.Errorf("%s: id %q, want %s and six hex digits, after %s", c.name, got, c.want, ops[0].Op)
		}
	}
	if a, b := newID(nil, op, time.Unix(0, 0)), newID(nil, model.LogOp{Kind: model.OpSuggest, Target: "note:y"}, time.Unix(0, 0)); a == b {
		t.Errorf("two operations at one instant share the id %s", a)
	}
}

// TestPrepare: a keep names what it decides on, by op id or by target; the
// new log is the old one with one line; refusals come back as such.
func TestPrepare(t *testing.T) {
	now := time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)
	p, err := Prepare(base(suggestLine), Request{Kind: model.OpKeep, Actor: "person:marc", Ref: "note:tone", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if p.Op.Ref != "20261102T091512.000Z-4c1d7e" || p.Op.Target != "note:tone" || p.Path != "governance/log.jsonl" {
		t.Errorf("keep by target: %+v", p.Op)
	}
	if !strings.HasPrefix(string(p.Data), suggestLine) || strings.Count(string(p.Data), "\n") != 2 {
		t.Errorf("new log:\n%s", p.Data)
	}
	for name, c := range map[string]struct {
		req  Request
		want string
	}{
		"agent keeps":  {Request{Kind: model.OpKeep, Actor: "agent:codex", Ref: "note:tone"}, "an agent cannot keep"},
		"unknown ref":  {Request{Kind: model.OpDrop, Actor: "person:marc", Ref: "note:other"}, "neither an operation id nor a target"},
		"unknown term": {Request{Kind: model.OpSuggest, Actor: "agent:codex", Target: "term:nope", Text: "x"}, "names no term"},
		"no actor":     {Request{Kind: model.OpSuggest, Target: "note:x", Text: "x"}, "say who records this"},
		"an odd kind":  {Request{Kind: "rename", Actor: "person:marc", Ref: "note:tone"}, "records suggest, keep, drop, widen, reset, correct and merge"},
		"bad window":   {Request{Kind: model.OpSuggest, Actor: "agent:codex", Target: "note:x", Text: "x", ValidFrom: "2026-12-01", ValidUntil: "2026-01-01"}, "before valid_from"},
		"damaged log":  {Request{Kind: model.OpSuggest, Actor: "agent:codex", Target: "note:x", Text: "x"}, "line is not JSON"},
	} {
		fsys := base(suggestLine)
		if name == "damaged log" {
			fsys = base(suggestLine + "{oops\n")
		}
		c.req.Now = now
		_, err := Prepare(fsys, c.req)
		msg := ""
		var derr *diag.Errors
		if errors.As(err, &derr) {
			for _, d := range derr.Diagnostics {
				msg += d.String() + "\n"
			}
		} else if err != nil {
			msg = err.Error()
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", name, msg, c.want)
		}
	}
}

// TestPrepareAmendments: widen, reset, correct and merge act on a target
// or an operation id, refer to the newest operation on it, and are
// refused with what is missing.
func TestPrepareAmendments(t *testing.T) {
	now := time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)
	p, err := Prepare(base(suggestLine), Request{Kind: model.OpWiden, Actor: "person:marc", Ref: "note:tone", Paths: []string{"docs/**"}, Now: now})
	if err != nil || p.Op.Target != "note:tone" || p.Op.Ref != "20261102T091512.000Z-4c1d7e" || p.Op.Paths[0] != "docs/**" {
		t.Errorf("widen by target: %+v %v", p.Op, err)
	}
	p, err = Prepare(base(suggestLine), Request{Kind: model.OpMerge, Actor: "agent:ci", Ref: "20261102T091512.000Z-4c1d7e", Text: "#412", Now: now})
	if err != nil || p.Op.Target != "note:tone" || p.Op.Text != "#412" {
		t.Errorf("an agent's merge by op id: %+v %v", p.Op, err)
	}
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Kind: model.OpReset, Actor: "agent:codex", Ref: "note:tone"}, "an agent cannot reset"},
		{Request{Kind: model.OpReset, Actor: "person:marc", Ref: "note:other"}, "note:other has no operation in the log for a reset to act on"},
		{Request{Kind: model.OpCorrect, Actor: "person:marc", Ref: "term:kb", Text: "KB"}, "term:kb has no operation in the log for a correct"},
		{Request{Kind: model.OpWiden, Actor: "person:marc", Ref: "note:tone"}, "a widen needs --path"},
		{Request{Kind: model.OpCorrect, Actor: "person:marc", Ref: "note:tone"}, "a correct needs its text"},
		{Request{Kind: model.OpMerge, Actor: "person:marc", Ref: "note:tone"}, "a merge needs its text"},
		{Request{Kind: model.OpMerge, Actor: "person:marc", Ref: "20991231T000000.000Z-000000", Text: "#1"}, "neither a target"},
	} {
		c.req.Now = now
		_, err := Prepare(base(suggestLine), c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want %q", c.req.Kind, c.req.Ref, err, c.want)
		}
	}
}
