package load

import (
	"bytes"
	"errors"
	"io/fs"
	"path"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// LogFile returns where a base keeps its operation log.
func LogFile(cfg model.Config) string {
	return path.Join(cfg.Layers.Governance, "log.jsonl")
}

// Log is the operation log as `cairn note` reads it before appending.
type Log struct {
	Config model.Config
	// Path is the log's base-relative path; Data its bytes (nil when the
	// base has no log yet).
	Path string
	Data []byte
	Ops  []model.LogOp
	// Diagnostics are every mistake of the configuration, the terms store
	// and the log, sorted.
	Diagnostics []diag.Diagnostic
	terms       []model.Term // what term targets must name
}

// ReadLog reads the configuration, the terms store (which term targets
// must name) and the operation log, checked as a build checks them.
func ReadLog(fsys fs.FS) (Log, error) {
	var ds diag.List
	cfg, _, _, ok := loadConfig(fsys, &ds)
	lg := Log{Config: cfg, Path: LogFile(cfg)}
	if !ok {
		lg.Diagnostics = ds.Sorted()
		return lg, nil
	}
	lg.terms = loadTerms(fsys, path.Join(cfg.Layers.Governance, "terms.yaml"), cfg, &ds)
	data, err := ReadCapped(fsys, lg.Path, MaxGovernanceBytes)
	var big *tooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.As(err, &big):
		ds.Errorf(lg.Path, 0, 0, "too-large", "%v", big)
	case err != nil:
		return lg, err
	default:
		lg.Data = data
		// Data stays the file's bytes, which an append writes back.
		lg.Ops = parseLog(lg.Path, bytes.TrimPrefix(data, []byte(bom)), cfg, lg.terms, &ds)
	}
	lg.Diagnostics = ds.Sorted()
	return lg, nil
}

// Appended returns the log's bytes with line (one JSON object and its LF)
// appended, the log's own last line ended first if it was not.
func (lg Log) Appended(line []byte) []byte {
	data := append([]byte{}, lg.Data...)
	if n := len(data); n > 0 && data[n-1] != '\n' {
		data = append(data, '\n')
	}
	return append(data, line...)
}

// CheckAppended checks the log as it would read with line appended, and
// returns the mistakes found on the new line: what `cairn note` must
// refuse before it writes.
func (lg Log) CheckAppended(line []byte) []diag.Diagnostic {
	data := lg.Appended(line)
	var ds diag.List
	parseLog(lg.Path, data, lg.Config, lg.terms, &ds)
	last := bytes.Count(data, []byte{'\n'}) // the new line's number
	var out []diag.Diagnostic
	for _, d := range ds.Sorted() {
		if d.Line == last {
			out = append(out, d)
		}
	}
	return out
}
