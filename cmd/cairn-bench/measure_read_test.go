package main

import (
	"strings"
	"testing"
)

// fakeRead is the part of a stand-in cairn that answers `read` ($3, the
// URI $4): a record for a URI with #id, an entity otherwise, with the
// index state it sees.
const fakeRead = `if [ "$3" = read ]; then
  state=missing; [ -d "$2/.cairn" ] && state=used
  kind=entity; case "$4" in *"#"*) kind=record ;; esac
  case " $* " in
  *" --format json "*) printf '{"kind":"%s","index":{"state":"%s"}}\n' "$kind" "$state" ;;
  *) echo "$kind $4" ;;
  esac
  exit 0
fi
`

func TestReadMeasurements(t *testing.T) {
	b := contextBench(t, fakeContext+fakeRead+fakeBuild)
	if err := measureRead(b); err != nil {
		t.Fatal(err)
	}
	got := map[string]metric{}
	for _, m := range b.metrics {
		got[m.Name] = m
	}
	for _, name := range []string{"read_record_ms", "read_hub_ms"} {
		if m := got[name]; len(m.Samples) != b.runs || m.Target != "<= 30" {
			t.Errorf("%s: %d samples, target %q; want %d and <= 30", name, len(m.Samples), m.Target, b.runs)
		}
	}
	if m, ok := got["read_peak_rss_mib"]; !ok || m.Target != "<= 50" {
		t.Errorf("read_peak_rss_mib: %+v", m)
	}
	targets, err := b.readTargets()
	if err != nil {
		t.Fatal(err)
	}
	if targets[0].uri != "events/2026-11-02/tickets.json#ABC-100" || !strings.HasPrefix(targets[1].uri, "repo:") || targets[1].uri != newWorld(b.base.params).repos[0].URI {
		t.Errorf("targets %+v", targets)
	}
}

func TestReadFailures(t *testing.T) {
	stale := contextBench(t, fakeContext+`if [ "$3" = read ]; then echo '{"kind":"record","index":{"state":"stale","reason":"inputs changed"}}'; exit 0; fi
`+fakeBuild)
	if err := measureRead(stale); err == nil || !strings.Contains(err.Error(), "did not use the artifacts") {
		t.Errorf("a read that scanned after a build gave %v", err)
	}
	wrong := contextBench(t, fakeContext+`if [ "$3" = read ]; then echo '{"kind":"wiki","index":{"state":"used"}}'; exit 0; fi
`+fakeBuild)
	if err := measureRead(wrong); err == nil || !strings.Contains(err.Error(), "want a record") {
		t.Errorf("a read of the wrong kind gave %v", err)
	}
}
