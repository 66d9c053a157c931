package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/receipts"
	"github.com/cairn-kb/cairn/query/render"
)

// Delta packs (--save-receipt, --since-receipt). A saved snapshot holds
// the candidates of a pack, its pool of matched items in rank order up to
// snapshotMaxURIs, as URIs with their semantic digests. A delta pack ranks
// the whole query exactly as a whole pack does, then admits only the
// candidates whose URI the snapshot does not hold or whose digest
// differs: their retrieval-relevant content changed, since the digest
// covers every projected value and nothing else. An edit of a raw field
// the fields map leaves out changes no digest, so it shows nothing.
const (
	// snapshotMaxURIs bounds a snapshot: the candidates ranked below it
	// are left out (receipt.saved_receipt.capped counts them), and a delta
	// against it takes them for new.
	snapshotMaxURIs = 8192
	// maxDeletedDetail bounds the deleted URIs a receipt names;
	// deleted_total counts all.
	maxDeletedDetail = 32
)

// delta is a delta pack's view of its snapshot.
type delta struct {
	snap    *receipts.Snapshot
	known   map[uint64]bool // the snapshot's digests
	changed int             // candidates new or changed since it
	deleted []string        // its URIs the base no longer holds, sorted
	sameOut int             // candidates above the floor left out as unchanged
}

// unchanged reports whether a candidate is in the snapshot as it is now.
func (d *delta) unchanged(s *rank.Scored) bool { return d != nil && d.known[s.Key.Digest] }

// queryKey binds a snapshot to its query: the terms, "last", the window
// as asked (--since, --until, the temporal expression as written), pins
// and --expand. Not the as-of day, the budget or the format: a delta
// answers the same question on a later day, at any size, in any form.
func queryKey(req Request, parsed question.Parsed) string {
	h := render.NewGroupHash()
	h.Add(append([]string{"terms"}, parsed.Terms...)...)
	h.Add("window", req.Since, req.Until, parsed.Temporal, strconv.FormatBool(parsed.Last))
	h.Add(append([]string{"pins"}, req.Pins...)...)
	h.Add("expand", strconv.FormatBool(req.Expand))
	return h.Sum()
}

// SnapshotError is a --since-receipt that cannot be answered: no snapshot
// of that digest is kept for the base, it cannot be read back, or it
// answered another query. A snapshot cannot be rebuilt from its digest,
// so the error gives the command that seeds a new one; exit 2.
type SnapshotError struct {
	Digest  string
	Problem string
	// Seed is the command that saves a snapshot of the query asked.
	Seed string
}

func (e *SnapshotError) Error() string {
	return fmt.Sprintf("--since-receipt %s: %s; a snapshot cannot be rebuilt from its digest: seed one with\n  %s\nthen pass the input_digest its receipt reports to --since-receipt", e.Digest, e.Problem, e.Seed)
}

// ExitCode is 2: the request names a snapshot that cannot be used.
func (e *SnapshotError) ExitCode() int { return 2 }

// receiptStore is the snapshot folder of the base at root.
func receiptStore(req Request, root string) (receipts.Store, error) {
	if req.StateDir == "" {
		return receipts.Store{}, &corpus.UsageError{Msg: "--save-receipt and --since-receipt keep snapshots in $XDG_STATE_HOME/cairn or ~/.local/state/cairn; set XDG_STATE_HOME or HOME to an absolute path"}
	}
	dir, err := receipts.Dir(req.StateDir, root)
	if err != nil {
		return receipts.Store{}, err
	}
	return receipts.Store{Dir: dir}, nil
}

// loadSince reads the snapshot --since-receipt names and checks that it
// answered this query.
func loadSince(store receipts.Store, req Request, parsed question.Parsed) (*receipts.Snapshot, error) {
	fail := func(problem string) error {
		return &SnapshotError{Digest: req.SinceReceipt, Problem: problem, Seed: SeedCommand(req, parsed)}
	}
	snap, err := store.Load(req.SinceReceipt)
	var ce *receipts.CorruptError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail(fmt.Sprintf("no snapshot of it is kept for this base (it was never saved with --save-receipt, or it is older than the %d most recently used)", receipts.Kept))
	case errors.As(err, &ce):
		return nil, fail(fmt.Sprintf("its snapshot %s cannot be read (%s)", ce.Path, ce.Reason))
	case err != nil:
		return nil, err
	case snap.QueryKey != queryKey(req, parsed):
		return nil, fail(fmt.Sprintf("it was saved for another query (%s); a snapshot answers only the terms, window, pins and --expand it was saved with", strconv.Quote(snap.Query)))
	}
	return &snap, nil
}

// SeedCommand is the command that saves a snapshot of a request's query:
// the query with its window, pins and --expand, and --save-receipt.
func SeedCommand(req Request, parsed question.Parsed) string {
	b := []string{"cairn", "context", "--save-receipt"}
	if req.Since != "" {
		b = append(b, "--since", ShellWord(req.Since))
	}
	if req.Until != "" {
		b = append(b, "--until", ShellWord(req.Until))
	}
	for _, p := range req.Pins {
		b = append(b, "--pin", ShellWord(p))
	}
	if req.Expand {
		b = append(b, "--expand")
	}
	if strings.HasPrefix(parsed.Text, "-") {
		b = append(b, "--")
	}
	return strings.Join(append(b, ShellWord(parsed.Text)), " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// ShellWord writes s as one word of a POSIX shell, quoted only when it
// needs to be.
func ShellWord(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// prepareDelta compares the ranked pool with the snapshot of a delta
// pack, leaving out the pins it holds unchanged, and makes the snapshot
// --save-receipt saves.
func (e *engine) prepareDelta(pins []*rank.Scored) ([]*rank.Scored, error) {
	if e.req.SaveReceipt {
		if err := e.makeSnapshot(); err != nil {
			return nil, err
		}
	}
	if e.since == nil {
		return pins, nil
	}
	d := &delta{snap: e.since, known: make(map[uint64]bool, len(e.since.Entries))}
	for _, en := range e.since.Entries {
		d.known[en.Digest] = true
	}
	present := make(map[uint64]bool, len(e.Pool))
	for _, s := range e.Pool {
		present[s.Key.Digest] = true
		if !d.known[s.Key.Digest] {
			d.changed++
		}
	}
	// A URI of the snapshot whose item is no candidate now may have left
	// the window or stopped matching, or be gone: only the base can say.
	for _, en := range e.since.Entries {
		if present[en.Digest] {
			continue
		}
		ok, err := e.exists(en.URI)
		if err != nil {
			return nil, err
		}
		if !ok {
			d.deleted = append(d.deleted, en.URI)
		}
	}
	e.delta = d
	return slices.DeleteFunc(pins, d.unchanged), nil
}

// exists reports whether the base holds an item of that URI.
func (e *engine) exists(uri string) (bool, error) {
	ord, err := e.Corpus.Search(uri)
	if err != nil || ord >= e.Corpus.Len() {
		return false, err
	}
	row, err := e.Corpus.Row(ord)
	return err == nil && row.URI == uri, err
}

// makeSnapshot is the snapshot of the pack: its candidates in rank order,
// the first snapshotMaxURIs of them, with their digests, by URI.
func (e *engine) makeSnapshot() error {
	kept := e.Pool[:min(len(e.Pool), snapshotMaxURIs)]
	ords := make([]int, len(kept))
	digest := make(map[int]uint64, len(kept))
	for i, s := range kept {
		ords[i] = s.Ord
		digest[s.Ord] = s.Key.Digest
	}
	slices.Sort(ords) // ordinal order is URI order
	rows, err := e.Corpus.Rows(ords)
	if err != nil {
		return err
	}
	snap := &receipts.Snapshot{Digest: e.digest, QueryKey: queryKey(e.req, e.Parsed), Query: e.Parsed.Text, Candidates: len(e.Pool),
		Entries: make([]receipts.Entry, len(rows))}
	for i, row := range rows {
		snap.Entries[i] = receipts.Entry{URI: row.URI, Digest: digest[ords[i]]}
	}
	e.snapshot = snap
	return nil
}

// deltaReceipt fills the receipt's delta and snapshot fields.
func (e *engine) deltaReceipt(r *Receipt) {
	r.Deleted = []string{}
	if d := e.delta; d != nil {
		r.SinceReceipt = d.snap.Digest
		r.Changed = d.changed
		r.Deleted = slices.Clone(d.deleted[:min(len(d.deleted), maxDeletedDetail)])
		r.DeletedTotal = len(d.deleted)
	}
	if s := e.snapshot; s != nil {
		r.SavedReceipt = &SavedReceipt{URIs: len(s.Entries), Capped: s.Candidates - len(s.Entries)}
	}
}

// deltaNotes are the text receipt's notes of a delta pack and a saved
// snapshot.
func deltaNotes(r *Receipt) []string {
	var notes []string
	if r.SinceReceipt != "" {
		notes = append(notes, fmt.Sprintf("since_receipt=%s changed=%d deleted=%d", r.SinceReceipt, r.Changed, r.DeletedTotal))
		for _, u := range r.Deleted {
			notes = append(notes, "deleted="+u)
		}
	}
	if s := r.SavedReceipt; s != nil {
		note := fmt.Sprintf("saved_receipt=%s (%d uris)", r.InputDigest, s.URIs)
		if s.Capped > 0 {
			note = fmt.Sprintf("saved_receipt=%s (%d uris; capped, %d lower-ranked candidates left out)", r.InputDigest, s.URIs, s.Capped)
		}
		notes = append(notes, note)
	}
	return notes
}
