package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// cairnAt runs the command tree with the clock fixed at now.
func cairnAt(t *testing.T, now time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Getwd: os.Getwd,
		Now: func() time.Time { return now }}
	code = runEnv(args, env)
	return code, out.String(), errb.String()
}

func readLog(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "governance", "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestNoteSuggestThenKeep: an agent's suggestion is appended with an id of
// its instant; a person's keep refers to it by target; each command leaves
// the build current (it refreshed the artifacts under the same lock).
func TestNoteSuggestThenKeep(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	before := readLog(t, dir)
	at := time.Date(2026, 11, 20, 9, 30, 0, 123e6, time.UTC)
	code, stdout, stderr := cairnAt(t, at, "--base", dir, "note", "suggest", "note:api-curl",
		"API", "examples", "use", "curl.", "--path", "docs/api/**", "--actor", "agent:claude-code",
		"--session", "s-9", "--evidence", "docs/api/push.md")
	if code != 0 {
		t.Fatalf("suggest exited %d: %s", code, stderr)
	}
	id, _, _ := strings.Cut(stdout, "\t")
	if !strings.HasPrefix(id, "20261120T093000.123Z-") || len(id) != len("20261120T093000.123Z-")+6 {
		t.Fatalf("suggest printed %q; want the new op id first", stdout)
	}
	wantLine := `{"op":"` + id + `","at":"2026-11-20T09:30:00.123Z","actor":"agent:claude-code","session":"s-9","kind":"suggest","target":"note:api-curl","text":"API examples use curl.","paths":["docs/api/**"],"evidence":["docs/api/push.md"]}` + "\n"
	if got := readLog(t, dir); got != before+wantLine {
		t.Fatalf("log after suggest ends %q, want the old log and %q", got[len(before):], wantLine)
	}
	if code, stdout, stderr := cairn(t, "--base", dir, "build", "--check"); code != 0 {
		t.Fatalf("the suggest left the build stale: exit %d\n%s%s", code, stdout, stderr)
	}

	code, _, stderr = cairnAt(t, at.Add(time.Hour), "--base", dir, "note", "keep", "note:api-curl", "--actor", "person:marc")
	if code != 0 {
		t.Fatalf("keep exited %d: %s", code, stderr)
	}
	last := lastOp(t, dir)
	if last["kind"] != "keep" || last["ref"] != id || last["target"] != "note:api-curl" || last["actor"] != "person:marc" {
		t.Errorf("keep recorded %v; want a keep by person:marc of %s", last, id)
	}
	if code, stdout, stderr := cairn(t, "--base", dir, "build", "--check"); code != 0 {
		t.Fatalf("the keep left the build stale: exit %d\n%s%s", code, stdout, stderr)
	}
}

func lastOp(t *testing.T, dir string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readLog(t, dir)), "\n")
	var op map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &op); err != nil {
		t.Fatal(err)
	}
	return op
}

// TestNoteRefusals: what cannot be recorded is refused with a reason and
// exit 2, and the log is left byte for byte as it was.
func TestNoteRefusals(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	before := readLog(t, dir)
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"agent keeps", []string{"keep", "note:docs-shell-prompts", "--actor", "agent:codex"}, "an agent cannot keep"},
		{"agent drops", []string{"drop", "note:docs-shell-prompts", "--actor", "agent:codex"}, "an agent cannot drop"},
		{"no actor", []string{"suggest", "note:x", "text"}, "say who records this"},
		{"bad actor", []string{"suggest", "note:x", "text", "--actor", "marc"}, `actor "marc" is neither`},
		{"unknown term", []string{"suggest", "term:no-such-term", "text", "--actor", "agent:codex"}, "names no term in terms.yaml"},
		{"bad target", []string{"suggest", "release-tone", "text", "--actor", "agent:codex"}, "is neither note:<slug> nor term:<id>"},
		{"bad glob", []string{"suggest", "note:x", "text", "--actor", "agent:codex", "--path", "/abs/**"}, "is not relative to the base root"},
		{"bad day", []string{"suggest", "note:x", "text", "--actor", "agent:codex", "--valid-from", "soon"}, "is not a date"},
		{"nothing to keep", []string{"keep", "note:never-suggested", "--actor", "person:marc"}, "neither an operation id nor a target"},
		{"blank text", []string{"suggest", "note:x", "  ", "--actor", "agent:codex"}, "a suggestion needs its text"},
		{"a line break in the actor", []string{"suggest", "note:x", "text", "--actor", "agent:a\n## Injected"}, "holds a line break or control character"},
		{"a line break in the target", []string{"suggest", "note:x\n<!-- /cairn:rules -->", "text", "--actor", "agent:codex"}, "holds a line break or control character"},
		{"keep a keep", []string{"keep", "20261102T153040.120Z-9a03bf", "--actor", "person:marc"}, "is a keep, itself a decision"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cairnAt(t, at, append([]string{"--base", dir, "note"}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.msg)
			}
			if got := readLog(t, dir); got != before {
				t.Errorf("the log changed:\n%s", got[len(before):])
			}
		})
	}
}

// TestNoteIDsStayInOrder: a clock behind the newest operation (another
// machine, a skewed clock) still gets an id after it, so the log stays in
// increasing id order; and a log without a final LF gets one first.
func TestNoteIDsStayInOrder(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	logPath := filepath.Join(dir, "governance", "log.jsonl")
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, bytes.TrimRight(data, "\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newest := lastOp(t, dir)["op"].(string)
	code, stdout, stderr := cairnAt(t, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "--base", dir,
		"note", "suggest", "note:late", "A", "late", "clock.", "--actor", "agent:codex")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	id, _, _ := strings.Cut(stdout, "\t")
	if id <= newest || id[:len("20060102T150405.000Z")] != bumpMilli(t, newest) {
		t.Errorf("id %s after newest %s; want one millisecond past it", id, newest)
	}
	if got := readLog(t, dir); !strings.HasPrefix(got, string(bytes.TrimRight(data, "\n"))+"\n{") {
		t.Errorf("the old last line was not ended before the new one:\n%s", got[len(got)-400:])
	}
}

func bumpMilli(t *testing.T, id string) string {
	t.Helper()
	const layout = "20060102T150405.000Z"
	ts, err := time.Parse(layout, id[:len(layout)])
	if err != nil {
		t.Fatal(err)
	}
	return ts.Add(time.Millisecond).Format(layout)
}

// TestNoteList lists the log oldest first, or one target's operations, as
// text or JSON.
func TestNoteList(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	code, stdout, stderr := cairn(t, "--base", dir, "note", "list", "--target", "note:docs-shell-prompts")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "20261102T091512.000Z-4c1d7e\tsuggest\tagent:claude-code\tnote:docs-shell-prompts\tShell examples in the docs have no leading $ prompt, so they paste and run as written.\n" +
		"20261102T153040.120Z-9a03bf\tkeep\tperson:marc\tnote:docs-shell-prompts\t\n"
	if stdout != want {
		t.Errorf("list --target:\n%s\nwant:\n%s", stdout, want)
	}
	code, stdout, _ = cairn(t, "--base", dir, "note", "list", "--format", "json")
	var ops []map[string]any
	if err := json.Unmarshal([]byte(stdout), &ops); code != 0 || err != nil || len(ops) < 5 {
		t.Fatalf("list --format json: exit %d, %v, %d operations", code, err, len(ops))
	}
	for i := 1; i < len(ops); i++ {
		if ops[i]["op"].(string) <= ops[i-1]["op"].(string) {
			t.Errorf("operations out of order at %d", i)
		}
	}
}

// TestNoteRefusesADamagedLog: a log with a mistake is not appended to; the
// mistake is reported, and fixing it is the user's first step.
func TestNoteRefusesADamagedLog(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	damaged := readLog(t, dir) + "not json\n"
	if err := os.WriteFile(filepath.Join(dir, "governance", "log.jsonl"), []byte(damaged), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cairnAt(t, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), "--base", dir,
		"note", "suggest", "note:x", "text", "--actor", "agent:codex")
	if code != 2 || !strings.Contains(stderr, "governance/log.jsonl:10:2: error: line is not JSON") {
		t.Errorf("exit %d, stderr %q; want 2 naming the damaged line", code, stderr)
	}
	if got := readLog(t, dir); got != damaged {
		t.Errorf("the log changed")
	}
}

// TestNoteReachesTheRulesFilesOnlyWhenKept: an agent's suggestion shows in
// the by-location answer as a suggestion and never in the rules files; a
// person's keep puts it in the rules files in the same command.
func TestNoteReachesTheRulesFilesOnlyWhenKept(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	const text = "Error messages name the flag to change."
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	if code, _, stderr := cairnAt(t, at, "--base", dir, "note", "suggest", "note:error-flags", text,
		"--path", "docs/**", "--actor", "agent:claude-code", "--session", "s-1"); code != 0 {
		t.Fatalf("suggest exited %d: %s", code, stderr)
	}
	rules := func() string {
		data, err := os.ReadFile(filepath.Join(dir, "docs", "AGENTS.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if strings.Contains(rules(), text) {
		t.Fatalf("an agent's suggestion reached docs/AGENTS.md:\n%s", rules())
	}
	answer := runContext(t, dir, "--at", "docs/getting-started.md", "--as-of", "2026-11-20")
	suggested := answer[strings.Index(answer, "## Suggested, not yet established"):]
	if !strings.Contains(suggested, "note:error-flags (note, suggested): "+text) {
		t.Fatalf("the suggestion is not among the answer's suggestions:\n%s", answer)
	}
	if code, _, stderr := cairnAt(t, at.Add(time.Hour), "--base", dir, "note", "keep", "note:error-flags", "--actor", "person:marc"); code != 0 {
		t.Fatalf("keep exited %d: %s", code, stderr)
	}
	if !strings.Contains(rules(), "- "+text) {
		t.Fatalf("the kept note is not in docs/AGENTS.md after the keep:\n%s", rules())
	}
	answer = runContext(t, dir, "--at", "docs/getting-started.md", "--as-of", "2026-11-20")
	kept := answer[strings.Index(answer, "## Notes a person kept"):]
	if !strings.Contains(kept[:strings.Index(kept, "\n\n")], text) || strings.Contains(answer, "note:error-flags (note") {
		t.Errorf("after the keep the note should be kept, not suggested:\n%s", answer)
	}
}

// TestNoteWhileABuildRuns: a build holds the base lock, as a long one
// does for many seconds; a note is recorded at once all the same, says
// that the next build picks it up, and a query and then the next build
// both have it.
func TestNoteWhileABuildRuns(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	lock, err := artifacts.AcquireLock(dir, "cairn build")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	const text = "Recorded while a build ran."
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	code, stdout, stderr := cairnAt(t, at, "--base", dir, "note", "suggest", "note:during-build", text,
		"--path", "docs/**", "--actor", "agent:codex")
	if code != 0 {
		t.Fatalf("a note during a build exited %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "note:during-build") || !strings.Contains(readLog(t, dir), `"target":"note:during-build"`) {
		t.Fatalf("the note is not in the log; stdout %q", stdout)
	}
	if !strings.Contains(stderr, "the next cairn build") || strings.Contains(stderr, "building") {
		t.Errorf("stderr %q; want it to say the next build picks the note up, and not that the note is building", stderr)
	}
	if code, _, stderr := cairnAt(t, at.Add(time.Minute), "--base", dir, "note", "keep", "note:during-build", "--actor", "person:marc"); code != 0 {
		t.Fatalf("a keep during a build exited %d: %s", code, stderr)
	}
	// A query reads the governance from the base, not from the build.
	answer := runContext(t, dir, "--at", "docs/getting-started.md", "--as-of", "2026-11-20")
	if !strings.Contains(answer, text) {
		t.Errorf("the by-location answer lacks the note kept during the build:\n%s", answer)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, dir)
	rules, err := os.ReadFile(filepath.Join(dir, "docs", "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rules), "- "+text) {
		t.Errorf("the next build left the kept note out of docs/AGENTS.md:\n%s", rules)
	}
}

// TestNotesInParallel: twenty notes recorded at once all land, each once
// and in id order, whether a build holds the base lock meanwhile or not;
// none is refused, and the next build is current with all of them.
func TestNotesInParallel(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	const n = 20
	round := func(name string, minute int) {
		codes := make([]int, n)
		errs := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				codes[i], _, errs[i] = cairnAt(t, time.Date(2026, 11, 20, 9, minute, i, 0, time.UTC), "--base", dir,
					"note", "suggest", fmt.Sprintf("note:%s-%d", name, i), "Seen", "in", "parallel.", "--actor", "agent:codex")
			})
		}
		wg.Wait()
		for i, c := range codes {
			if c != 0 {
				t.Errorf("%s: note %d exited %d: %s", name, i, c, errs[i])
			}
		}
		if got := strings.Count(readLog(t, dir), `"target":"note:`+name+`-`); got != n {
			t.Errorf("%s: %d of %d notes in the log", name, got, n)
		}
	}
	lock, err := artifacts.AcquireLock(dir, "cairn build")
	if err != nil {
		t.Fatal(err)
	}
	round("during-build", 0)
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	round("base-free", 1)
	code, stdout, stderr := cairn(t, "--base", dir, "note", "list", "--format", "json")
	var ops []map[string]any
	if err := json.Unmarshal([]byte(stdout), &ops); code != 0 || err != nil {
		t.Fatalf("note list: exit %d, %v: %s", code, err, stderr)
	}
	for i := 1; i < len(ops); i++ {
		if ops[i]["op"].(string) <= ops[i-1]["op"].(string) {
			t.Errorf("operations out of order at %d: %s after %s", i, ops[i]["op"], ops[i-1]["op"])
		}
	}
	mustBuild(t, dir)
	if code, stdout, stderr := cairn(t, "--base", dir, "build", "--check"); code != 0 {
		t.Errorf("the build after the notes is not current: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestNoteAmendments: after a keep, a person's correct replaces the kept
// note's text in the rules files, a widen moves it to the folders it
// names, a reset takes it out of them and back among the suggestions, and
// a merge is recorded by anyone; an agent may not widen or reset, and a
// widen that says neither where nor when is refused.
func TestNoteAmendments(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	step := 0
	note := func(args ...string) (int, string) {
		t.Helper()
		step++
		code, _, stderr := cairnAt(t, at.Add(time.Duration(step)*time.Minute), append([]string{"--base", dir, "note"}, args...)...)
		return code, stderr
	}
	must := func(args ...string) {
		t.Helper()
		if code, stderr := note(args...); code != 0 {
			t.Fatalf("cairn note %v exited %d: %s", args, code, stderr)
		}
	}
	rulesAt := func(folder string) string {
		data, _ := os.ReadFile(filepath.Join(dir, folder, "AGENTS.md"))
		return string(data)
	}
	const first, corrected = "Error messages name the flag.", "Error messages name the flag to change and its default."
	must("suggest", "note:error-flags", first, "--path", "docs/**", "--actor", "agent:claude-code")
	must("keep", "note:error-flags", "--actor", "person:marc")
	must("correct", "note:error-flags", corrected, "--actor", "person:marc")
	if r := rulesAt("docs"); !strings.Contains(r, "- "+corrected) || strings.Contains(r, first+"\n") {
		t.Fatalf("the correct did not replace the kept text in docs/AGENTS.md:\n%s", r)
	}
	if code, stderr := note("widen", "note:error-flags", "--path", "blog/**", "--actor", "agent:claude-code"); code != 2 || !strings.Contains(stderr, "an agent cannot widen") {
		t.Errorf("an agent's widen: exit %d, %s", code, stderr)
	}
	if code, stderr := note("widen", "note:error-flags", "--actor", "person:marc"); code != 2 || !strings.Contains(stderr, "a widen needs --path") {
		t.Errorf("a widen saying nothing: exit %d, %s", code, stderr)
	}
	must("widen", "note:error-flags", "--path", "blog/**", "--actor", "person:marc")
	if r := rulesAt("blog"); !strings.Contains(r, "- "+corrected) {
		t.Errorf("after the widen to blog/ the note is not in blog/AGENTS.md:\n%s", r)
	}
	if r := rulesAt("docs"); strings.Contains(r, corrected) {
		t.Errorf("after the widen to blog/ the note is still in docs/AGENTS.md:\n%s", r)
	}
	must("merge", "note:error-flags", "#412", "--actor", "agent:ci")
	must("reset", "note:error-flags", "the wording is under review", "--actor", "person:marc")
	if r := rulesAt("blog"); strings.Contains(r, corrected) {
		t.Errorf("after the reset the note is still a rule in blog/AGENTS.md:\n%s", r)
	}
	answer := runContext(t, dir, "--at", "docs/getting-started.md", "--as-of", "2026-11-20")
	if !strings.Contains(answer, "note:error-flags (note, suggested)") {
		t.Errorf("after the reset the note is not among the suggestions again:\n%s", answer)
	}
	log := readLog(t, dir)
	for _, kind := range []string{`"kind":"correct"`, `"kind":"widen"`, `"kind":"merge"`, `"kind":"reset"`} {
		if !strings.Contains(log, kind) {
			t.Errorf("the log lacks a %s operation:\n%s", kind, log)
		}
	}
}
