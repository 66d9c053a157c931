package main

import (
	"context"
	"errors"
	"github.com/cairn-kb/cairn/artifacts"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/query"
)

// ContextCmd is `cairn context QUERY…`.
type ContextCmd struct {
	Query        []string `arg:"" optional:"" name:"QUERY" help:"The question or identifiers to find context for." sep:"none"`
	Budget       int      `help:"Token budget of the whole delivered pack (⌈bytes/4⌉, receipt and notice included)." default:"${budget}" placeholder:"TOKENS"`
	Since        string   `help:"First day of dated evidence (YYYY-MM-DD)." placeholder:"DAY"`
	Until        string   `help:"Last day of dated evidence (YYYY-MM-DD); alone it means the 30 days ending there." placeholder:"DAY"`
	AsOf         string   `help:"The day every date rule is evaluated at (default: $CAIRN_AS_OF, else today, UTC)." placeholder:"DAY"`
	Pin          []string `help:"Include this wiki or project page first (repeatable; exact URI)." placeholder:"URI" sep:"none"`
	Expand       bool     `help:"Join items that share an entity with the strongest candidates."`
	Explain      bool     `help:"Show every item's reasons with their points."`
	Format       string   `help:"Output format: text (the default), json or jsonl; with --at or --profile, text (Markdown, also named markdown) or json." placeholder:"FORMAT" values:"text,json,jsonl,markdown"`
	At           string   `help:"Answer what applies at this path instead: its point, voice, terms, notes and suggestions." placeholder:"PATH"`
	Profile      string   `help:"Answer what this voice profile holds, with no project point behind it." placeholder:"NAME"`
	Comments     bool     `help:"With --at: answer for the code comments written at the path, the voice's limits for comments first."`
	SaveReceipt  bool     `help:"Save this pack's snapshot (candidate URIs and digests) under its input_digest, for --since-receipt."`
	SinceReceipt string   `help:"Deliver only what is new or changed since the snapshot of this input_digest, and what was deleted." placeholder:"DIGEST"`
}

// Help is the detail under the summary of `cairn context --help`.
func (ContextCmd) Help() string {
	return `Examples:

    cairn context "why did the arm64 nightly time out"
    cairn context --budget 1200 --since 2026-11-01 --explain HAR-151
    cairn context --at docs/api/tokens.md    # the voice, terms and notes in force there
    cairn context --save-receipt "arm64 nightly"    # then, later:
    cairn context --since-receipt DIGEST "arm64 nightly"`
}

// Run answers the query and prints the pack, or the by-location answer.
func (c *ContextCmd) Run(env *Env) error {
	if c.At != "" || c.Profile != "" {
		return c.runAt(env)
	}
	if c.Comments {
		return usageError("--comments answers for the code comments at a path; use it with --at PATH")
	}
	if c.Format == "" {
		c.Format = query.FormatText
	}
	if len(c.Query) == 0 {
		return usageError("give a query: cairn context \"what changed in retention\"")
	}
	root, asOf, err := baseAndDay(env, c.AsOf)
	if err != nil {
		return err
	}
	req := query.Request{
		Words: c.Query, Budget: c.Budget, Since: c.Since, Until: c.Until, AsOf: asOf,
		Pins: c.Pin, Expand: c.Expand, Explain: c.Explain, Format: c.Format, ToolVersion: Version,
		SaveReceipt: c.SaveReceipt, SinceReceipt: c.SinceReceipt,
	}
	if c.SaveReceipt || c.SinceReceipt != "" {
		req.StateDir = stateDir(env)
	}
	if c.SaveReceipt {
		// A save writes machine state keyed by this base, so it takes the
		// base's writer lock, failing at once while a build or another
		// writer holds it, as fkf's --save-receipt does. A plain context
		// and a delta only read, and take no lock.
		lock, err := artifacts.AcquireLock(root, "cairn context --save-receipt")
		if err != nil {
			return err
		}
		defer lock.Release()
	}
	out, err := query.Context(context.Background(), root, req)
	var se *query.SnapshotError
	if errors.As(err, &se) {
		// The command that seeds a snapshot names the base and the day as
		// this one did.
		if c.AsOf != "" {
			se.Seed = strings.Replace(se.Seed, "--save-receipt", "--save-receipt --as-of "+query.ShellWord(c.AsOf), 1)
		}
		if env.Base != "" {
			se.Seed = strings.Replace(se.Seed, "cairn context", "cairn --base "+query.ShellWord(env.Base)+" context", 1)
		}
	}
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}

// stateDir is cairn's machine-local state folder, where receipt
// snapshots live: $XDG_STATE_HOME/cairn, else ~/.local/state/cairn; ""
// when neither is set, which the query refuses. A relative
// XDG_STATE_HOME is ignored, as the XDG rules say.
func stateDir(env *Env) string {
	if d := env.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "cairn")
	}
	if h := env.Getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "cairn")
	}
	return ""
}

// baseAndDay finds the base and the day a command evaluates dates at.
func baseAndDay(env *Env, flag string) (string, time.Time, error) {
	root, err := env.findBase()
	if err != nil {
		return "", time.Time{}, err
	}
	asOf, err := asOfDay(flag, env)
	return root, asOf, err
}

// asOfDay resolves the as-of day: the flag, then $CAIRN_AS_OF, then today
// in UTC. This is the one place a query reads the clock.
func asOfDay(flag string, env *Env) (time.Time, error) {
	v := flag
	from := "--as-of"
	if v == "" {
		v, from = env.Getenv("CAIRN_AS_OF"), "$CAIRN_AS_OF"
	}
	if v == "" {
		now := time.Now().UTC()
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, usageError("%s %q is not a day; write YYYY-MM-DD", from, v)
	}
	return t, nil
}

// runAt answers --at PATH or --profile NAME. A relative path is taken from
// the working directory when that lies inside the base, as a shell user
// means it, and from the base root otherwise (cairn --base DIR from
// elsewhere).
func (c *ContextCmd) runAt(env *Env) error {
	if len(c.Query) > 0 {
		return usageError("--at and --profile answer for a place, not a query; drop the query words or the flag")
	}
	if c.At != "" && c.Profile != "" {
		return usageError("ask about one thing: --at PATH or --profile NAME")
	}
	root, asOf, err := baseAndDay(env, c.AsOf)
	var none *noBaseError
	if c.Profile != "" && errors.As(err, &none) {
		// Outside any base, --profile answers the built-in profiles.
		root = ""
		if asOf, err = asOfDay(c.AsOf, env); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	// A by-location answer's text is Markdown, for a model and a person
	// alike: text, the name every command gives its default, asks for it.
	format := c.Format
	if format == "" || format == formatText {
		format = query.FormatMarkdown
	}
	at := c.At
	if at != "" && !filepath.IsAbs(at) {
		wd, err := env.Getwd()
		if err != nil {
			return err
		}
		at = filepath.Join(root, at)
		// Compared with links resolved: a shell may stand in the base
		// through a link to it.
		if rel, err := filepath.Rel(resolved(root), resolved(wd)); err == nil && filepath.IsLocal(rel) {
			at = filepath.Join(root, rel, c.At)
		}
	}
	out, err := query.At(context.Background(), root, query.AtRequest{
		Path: at, Profile: c.Profile, Format: format, Explain: c.Explain, Comments: c.Comments, AsOf: asOf,
	})
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}

// resolved is p with its links resolved, or p when that fails.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
