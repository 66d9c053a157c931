package collect

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// commandInput is a collection of one command source over one day.
func commandInput(t *testing.T, run []string, timeout string) Input {
	t.Helper()
	cfg := model.Config{Sources: map[string]model.SourcePolicy{"feed": {Run: run, Timeout: timeout,
		Fields: map[string]model.FieldPaths{"id": {".id"}, "title": {".t"}, "time": {".at"}}}}}.WithDefaults()
	return Input{Dir: t.TempDir(), Config: cfg, Sources: []string{"feed"}, Today: benchToday, Days: 1,
		Now: benchToday, Environ: os.Environ()}
}

// TestCommandOutputCap: a command printing more than the cap is refused
// by a message naming the cap, and cairn stops reading at the cap.
func TestCommandOutputCap(t *testing.T) {
	defer func(max int) { maxOutputBytes = max }(maxOutputBytes)
	maxOutputBytes = 1 << 20
	in := commandInput(t, []string{"sh", "-c", "yes '[{}]' | head -c 3000000"}, "")
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("printed more than %d bytes", 1<<20)
	if got := out.Results[0].Err; got == nil || !strings.Contains(got.Error(), want) {
		t.Errorf("a command printing 3 MB past a 1 MiB cap gave %v, want an error saying %q", got, want)
	}
}

// TestCommandOutputEndless: a command that never stops printing is
// stopped at the cap, long before its timeout.
func TestCommandOutputEndless(t *testing.T) {
	defer func(max int) { maxOutputBytes = max }(maxOutputBytes)
	maxOutputBytes = 1 << 20
	in := commandInput(t, []string{"sh", "-c", "yes '[{}]'"}, "60s")
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Results[0].Err; got == nil || !strings.Contains(got.Error(), "printed more than 1048576 bytes") {
		t.Errorf("an endless command gave %v, want the cap's error", got)
	}
}
