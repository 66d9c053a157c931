package collect

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// MaxStderrBytes bounds what a failing command's error keeps of its
// stderr: the end, where a traceback says what went wrong.
const MaxStderrBytes = 2048

// maxOutputBytes bounds what cairn reads of a collect command's stdout,
// and of a git call's: the cap of the record document it becomes. A
// variable, so a test can lower it.
var maxOutputBytes = load.MaxDocumentBytes

// waitDelay is how long a killed command's children may hold its pipes
// open before cairn stops waiting for them.
const waitDelay = 2 * time.Second

// collectCommand runs a source's command once per missing day, oldest
// first, and writes each day's document as soon as it is checked. The
// first day that fails stops the source: the days before it stay written.
func collectCommand(ctx context.Context, in Input, s source) (Result, error) {
	var res Result
	fm, err := compileFields(s.policy.Fields)
	if err != nil {
		return res, err
	}
	timeout := DefaultTimeout
	if s.policy.Timeout != "" {
		if timeout, err = time.ParseDuration(s.policy.Timeout); err != nil {
			return res, fmt.Errorf("timeout %q: %w", s.policy.Timeout, err)
		}
	}
	layer := layerOf(s)
	var wins []window
	if layer == "index" {
		exists, fkf, err := existing(in.Dir, docPath(in.Config, s, in.Today))
		if err != nil {
			return res, err
		}
		if fkf || exists && !in.Refresh {
			res.Present = 1
			return res, nil
		}
		wins = []window{{Start: in.Today.AddDate(0, 0, -in.Days), End: in.Today}}
	} else {
		days, present, err := missingDays(in, s)
		if err != nil {
			return res, err
		}
		res.Present = present
		for _, d := range days {
			wins = append(wins, dayWindow(d))
		}
	}
	for _, win := range wins {
		out, err := runCommand(ctx, in, s, win, timeout)
		if err == nil {
			var recs []string
			var offs []int
			if recs, offs, err = parseOutput(out, s.policy); err == nil {
				err = checkRecords(out, recs, offs, fm, layer, win)
			}
			if err == nil {
				d := document{Source: s.name, Layer: layer, Fields: s.policy.Fields, Window: win, CollectedAt: in.Now}
				if s.policy.Placeholders {
					d.Fkf, d.BodyDeclared, d.Schema = true, s.policy.BodyDeclared, mappedSchema(in.Config.Schema, s.policy.Fields)
				}
				if layer != "index" {
					d.Date = win.Start.Format(time.DateOnly)
				}
				for _, r := range recs {
					d.Records = append(d.Records, []byte(r))
				}
				var w Written
				if w, err = write(in, docPath(in.Config, s, win.Start), d); err == nil {
					res.Written = append(res.Written, w)
					continue
				}
			}
		}
		return res, fmt.Errorf("%s: %w", describe(win, layer), err)
	}
	return res, nil
}

// describe names the window a run was for, in an error.
func describe(win window, layer string) string {
	if layer == "index" {
		return "snapshot"
	}
	return win.Start.Format(time.DateOnly)
}

// runCommand runs the command for one window and returns its stdout. The
// window goes both ways a script may read it: appended as
// `--since DAY --until DAY` (until exclusive) and in $CAIRN_SINCE and
// $CAIRN_UNTIL. The command runs in the base folder; a first word with a
// slash is a path from there.
//
// A command from fkf.yaml runs as fkf runs it: the window is filled into
// its placeholders and nothing is appended, and the base's bin folder
// comes first on its PATH, where fkf keeps a base's helpers.
func runCommand(ctx context.Context, in Input, s source, win window, timeout time.Duration) ([]byte, error) {
	since, until := win.Start.Format(time.DateOnly), win.End.Format(time.DateOnly)
	env := append(append([]string(nil), in.Environ...), "CAIRN_SINCE="+since, "CAIRN_UNTIL="+until, "CAIRN_SOURCE="+s.name)
	var argv []string
	if s.policy.Placeholders {
		argv = fillPlaceholders(s.policy.Run, win, in.Dir, envValue(in.Environ, "HOME"))
		env = prependPath(env, filepath.Join(in.Dir, "bin"))
	} else {
		argv = append(append([]string(nil), s.policy.Run...), "--since", since, "--until", until)
	}
	if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(in.Dir, filepath.FromSlash(argv[0]))
	} else if s.policy.Placeholders {
		// exec looks a bare name up on cairn's own PATH; the command's is
		// the one that names the base's bin folder.
		if p, err := lookPath(argv[0], env); err == nil {
			argv[0] = p
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = in.Dir
	cmd.Env = env
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	stdout := cappedBuffer{max: maxOutputBytes, stop: cancel}
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case stdout.over:
		return nil, fmt.Errorf("%s printed more than %d bytes, the cap of a record document, and was stopped; have it print fewer or shorter records, or split the source in two", commandName(s), maxOutputBytes)
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("%s timed out after %s%s; raise its timeout in %s or make it faster", commandName(s), timeout, stderr.suffix(), configOf(s))
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s was stopped: the collection was interrupted", commandName(s))
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s failed (%v)%s", commandName(s), ee.ProcessState, stderr.suffix())
		}
		return nil, fmt.Errorf("cannot run %s: %w; fix run in %s", commandName(s), err, configOf(s))
	}
	return stdout.bytes(), nil
}

// configOf names the file a source's command is declared in.
func configOf(s source) string {
	if s.policy.Placeholders {
		return load.FkfConfigFile
	}
	return load.ConfigFile
}

func commandName(s source) string {
	return fmt.Sprintf("the command %q", strings.Join(s.policy.Run, " "))
}

// errOverCap stops the copy of a command's output at its cap.
var errOverCap = errors.New("output over its cap")

// cappedBuffer keeps a command's stdout, up to max bytes. The write that
// would pass max keeps none of it, marks the buffer over and fails, which
// ends exec's copy from the command's pipe; stop, when set, then ends the
// command, whose further output nobody reads. So cairn holds at most max
// bytes, however much the command prints.
//
// It has a Write and no ReadFrom on purpose: io.Copy prefers a
// destination's ReadFrom, and one promoted from an embedded bytes.Buffer
// would read the whole output past the cap. exec's own copy is kept,
// rather than a read of cmd.StdoutPipe through an io.LimitReader, because
// exec bounds it with WaitDelay: a grandchild holding the pipe open cannot
// keep it waiting.
//
// The bytes are kept in blocks of outputBlock, never copied while the
// command runs: a slice grown by append would hold its old and new
// arrays at once and leave the old ones to the collector, about four
// times the cap at its peak. bytes joins them once, at the end.
type cappedBuffer struct {
	blocks [][]byte
	n      int // bytes kept
	max    int
	over   bool
	stop   func()
}

// outputBlock is the size of a cappedBuffer's blocks.
const outputBlock = 1 << 20

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if len(p) > b.max-b.n {
		b.over = true
		if b.stop != nil {
			b.stop()
		}
		return 0, errOverCap
	}
	for rest := p; len(rest) > 0; {
		if len(b.blocks) == 0 || len(b.blocks[len(b.blocks)-1]) == cap(b.blocks[len(b.blocks)-1]) {
			b.blocks = append(b.blocks, make([]byte, 0, outputBlock))
		}
		last := &b.blocks[len(b.blocks)-1]
		k := min(len(rest), cap(*last)-len(*last))
		*last = append(*last, rest[:k]...)
		rest = rest[k:]
	}
	b.n += len(p)
	return len(p), nil
}

// bytes joins the kept output, letting the blocks go as it copies them.
func (b *cappedBuffer) bytes() []byte {
	out := make([]byte, 0, b.n)
	for i, blk := range b.blocks {
		out = append(out, blk...)
		b.blocks[i] = nil
	}
	b.blocks = nil
	return out
}

// tailBuffer keeps the last MaxStderrBytes written to it.
type tailBuffer struct {
	buf     []byte
	dropped bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if n := len(b.buf) - MaxStderrBytes; n > 0 {
		b.buf = append(b.buf[:0], b.buf[n:]...)
		b.dropped = true
	}
	return len(p), nil
}

// suffix is the kept stderr, for the end of an error message.
func (b *tailBuffer) suffix() string {
	text := strings.TrimSpace(string(b.buf))
	if text == "" {
		return ""
	}
	if b.dropped {
		text = "…" + text
	}
	return "; its stderr:\n" + text
}

// mappedSchema is the part of the root schema an fkf document stores: the
// declarations of the fields its source maps, without weights, which stay
// the configuration's.
func mappedSchema(schema map[string]model.FieldSpec, fields map[string]model.FieldPaths) map[string]model.FieldSpec {
	out := map[string]model.FieldSpec{}
	for f := range fields {
		if spec, ok := schema[f]; ok {
			spec.Weight = 0
			out[f] = spec
		}
	}
	return out
}
