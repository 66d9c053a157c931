package stages

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/load"
)

// TestRulesOnlyKeepsTheIndexAsBuilt edits the demo base's corpus (a record
// changed, a record document added, a page removed) and its terms, then
// refreshes the rules files alone. The rules files must carry the new term
// and the index and graph stay as they were, with the manifest recording
// the corpus inputs that index was built from: the old stamp of the
// edited document, no stamp for the new one, the removed page's. The next
// build must then splice exactly those three units and end where a whole
// build of the same files does.
func TestRulesOnlyKeepsTheIndexAsBuilt(t *testing.T) {
	defer func(share int64) { spliceShare = share }(spliceShare)
	spliceShare = 1 // the demo base is small: three units are a large share
	m := loadMemBase(t, "../golden/demo/base")
	m.build(t, false)
	before := m.prev

	const doc, added = "events/2026-11-02/tickets.json", "events/2026-11-10/notes.json"
	edited := bytes.Replace(m.fs[doc].Data, []byte("a leaked token should not expose the rest"), []byte("a leaked token should never expose the rest"), 1)
	if bytes.Equal(edited, m.fs[doc].Data) {
		t.Fatal("the demo record to edit is not there")
	}
	m.fs[doc] = &fstest.MapFile{Data: edited}
	m.fs[added] = &fstest.MapFile{Data: []byte(`{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at"},
 "records": [{"id": "n1", "t": "a note of the tenth", "at": "2026-11-10T09:00:00Z"}]}`)}
	_, pages := m.units()
	removed := pages[0]
	delete(m.fs, removed)
	terms := m.fs["governance/terms.yaml"]
	m.fs["governance/terms.yaml"] = &fstest.MapFile{Data: append(slices.Clone(terms.Data),
		"- id: quokka\n  term: quokka\n  status: forbidden\n  replacement: wallaby\n"...)}

	out, err := m.run(false, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{StageGovernance, StageUsage, StageRules}; !slices.Equal(out.Ran, want) {
		t.Errorf("ran %v, want %v", out.Ran, want)
	}
	if want := []string{StageIndex, StageGraph}; !slices.Equal(out.Stale, want) || !slices.Equal(out.Skipped, want) {
		t.Errorf("kept %v with %v stale, want %v both", out.Skipped, out.Stale, want)
	}
	var agents []byte
	for _, f := range out.Plan.Files {
		if f.Path == "AGENTS.md" {
			agents = f.Data
		}
		for _, name := range []string{StageIndex, StageGraph} {
			if st, _ := before.Stage(name); slices.Contains(st.Outputs, f.Path) {
				t.Errorf("%s was written; the %s stage was to be kept", f.Path, name)
			}
		}
	}
	if !bytes.Contains(agents, []byte(`Write "wallaby", not "quokka".`)) {
		t.Errorf("AGENTS.md was not refreshed with the new term:\n%s", agents)
	}
	m.sync(t, out)
	for _, name := range []string{StageIndex, StageGraph} {
		was, _ := before.Stage(name)
		if now, _ := m.prev.Stage(name); now.Key != was.Key || !slices.Equal(now.Outputs, was.Outputs) {
			t.Errorf("the manifest records %s as %+v, the build that made it recorded %+v", name, now, was)
		}
	}
	stamp := func(m *artifacts.Manifest, p string) string {
		in, ok := m.Input(p)
		if !ok {
			return "absent"
		}
		return in.XXHash
	}
	for _, p := range []string{doc, added, removed} {
		if got, want := stamp(m.prev, p), stamp(before, p); got != want {
			t.Errorf("the manifest stamps %s %s, want %s: what the kept index was built from", p, got, want)
		}
	}
	if stamp(m.prev, "governance/terms.yaml") == stamp(before, "governance/terms.yaml") {
		t.Error("the manifest kept the old stamp of terms.yaml, which the rules files were made from anew")
	}

	next := m.build(t, false)
	if next.Spliced != 3 || !slices.Equal(next.Ran, []string{StageIndex, StageGraph}) {
		t.Errorf("the build after the refresh ran %v and spliced %d units; want index and graph, with the 3 changed", next.Ran, next.Spliced)
	}
	m.sameAsWhole(t, "a build after --rules-only")
}

// TestRulesOnlyRefusals: a refresh of the rules files alone needs an
// index to keep, intact, and made with the configuration as it is now;
// each refusal names what is missing and writes nothing.
func TestRulesOnlyRefusals(t *testing.T) {
	fresh := func(t *testing.T) *memBase {
		m := loadMemBase(t, "../golden/demo/base")
		m.build(t, false)
		return m
	}
	for _, tc := range []struct {
		name, want string
		edit       func(m *memBase)
	}{
		{"never built", "there is no previous build whose index it could keep", func(m *memBase) { m.prev = nil }},
		{"configuration edited", "cairn.yaml changed since the last build, and the index depends on it", func(m *memBase) {
			m.fs["cairn.yaml"] = &fstest.MapFile{Data: append(slices.Clone(m.fs["cairn.yaml"].Data), "\n# edited\n"...)}
		}},
		{"index damaged", "is not as the last build wrote it", func(m *memBase) {
			st, _ := m.prev.Stage(StageIndex)
			delete(m.fs, st.Outputs[0])
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fresh(t)
			tc.edit(m)
			_, err := m.run(false, true)
			var kept *load.KeptCorpusError
			if !errors.As(err, &kept) || !strings.Contains(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), "; run cairn build") {
				t.Fatalf("got %v, want a KeptCorpusError saying %q and what to run", err, tc.want)
			}
		})
	}
}
