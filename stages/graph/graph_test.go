package graph

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// randomNodes makes n nodes in URI order with random stamps (times,
// dates, none, and equal ones) and links, and identities whose aliases
// sort before, between and after the nodes, one of them an item's URI.
func randomNodes(r *rand.Rand, n int) ([]Node, model.Config) {
	stamps := []string{"", "2026-01-02", "2026-01-02T10:00:00Z", "2026-01-02T10:00:00.5Z", "2026-01-03", "2025-12-31T23:59:59Z"}
	kinds := []string{"tag", "link", "rel:owner", "rel:url", "supersedes"}
	dsts := []string{"person:ana", "person:bo", "tag:ops", "wiki/a.md", "https://x.test/1", "n/03#x"}
	nodes := make([]Node, n)
	for i := range nodes {
		nd := Node{URI: fmt.Sprintf("n/%02d#x", i), At: stamps[r.IntN(len(stamps))]}
		for range r.IntN(4) {
			nd.Links = append(nd.Links, artifacts.Link{Kind: kinds[r.IntN(len(kinds))], Node: dsts[r.IntN(len(dsts))]})
		}
		slices.SortFunc(nd.Links, project.CompareLinks)
		nd.Links = slices.Compact(nd.Links)
		nodes[i] = nd
	}
	cfg := model.Config{Identities: map[string]model.Identity{
		"ana": {Canonical: "person:ana", Aliases: []string{"ana@x.test", "a-ana", "person:ana"}},
		"bo":  {Canonical: "person:bo", Aliases: []string{"zz-bo", "n/05#x", "n/07#x"}},
	}}
	return nodes, cfg
}

// TestSpilledRunsBuildTheSameTables: the tables Run writes from nodes
// spilled in runs, cut anywhere, to a scratch file on disk or in memory,
// are byte for byte
// those it writes from the nodes in memory, and those NewTables holds.
func TestSpilledRunsBuildTheSameTables(t *testing.T) {
	spool, err := artifacts.NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Discard()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		nodes, cfg := randomNodes(r, 1+r.IntN(30))
		want, err := Run(context.Background(), Input{Config: cfg, Nodes: nodes})
		if err != nil {
			t.Fatal(err)
		}
		tables, err := NewTables(context.Background(), Input{Config: cfg, Nodes: nodes})
		if err != nil {
			t.Fatal(err)
		}
		src, _ := artifacts.EncodeEdges(tables.BySrc)
		dst, _ := artifacts.EncodeEdgesDst(tables.ByDst)
		if string(src) != string(want.Files[0].Data) || string(dst) != string(want.Files[1].Data) || tables.Edges != want.Edges {
			t.Fatalf("seed %d: NewTables holds other tables than Run writes", seed)
		}
		for _, sp := range []*artifacts.Spool{nil, spool} {
			sc := sp.Scratch(artifacts.EdgesPath)
			var runs []NodeRun
			for rest := nodes; len(rest) > 0; {
				k := 1 + r.IntN(len(rest))
				run, err := SpillNodes(sc, rest[:k])
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, run)
				rest = rest[k:]
			}
			links, counted := 0, 0 // what sizes the inbound table
			for _, n := range nodes {
				links += len(n.Links)
			}
			for _, run := range runs {
				counted += run.links
			}
			if counted != links {
				t.Errorf("seed %d: the runs count %d links of %d", seed, counted, links)
			}
			got, err := Run(context.Background(), Input{Config: cfg, Runs: runs})
			sc.Remove()
			if err != nil {
				t.Fatal(err)
			}
			for i := range want.Files {
				if g := string(got.Files[i].Data); g != string(want.Files[i].Data) {
					t.Errorf("seed %d, %d runs: %s differs\n got %q\nwant %q", seed, len(runs), want.Files[i].Path, g, want.Files[i].Data)
				}
			}
		}
	}
}

// TestNewestSourceFirst pins the order of a destination's inbound edges
// on a small case: newest stamp first, a fraction of a second newer than
// none, the empty stamp of an alias and an undated item last, ties by
// kind then ordinal.
func TestNewestSourceFirst(t *testing.T) {
	nodes := []Node{
		{URI: "a", At: "2026-01-02T10:00:00Z", Links: []artifacts.Link{{Kind: "tag", Node: "d"}}},
		{URI: "b", At: "2026-01-02T10:00:00.5Z", Links: []artifacts.Link{{Kind: "tag", Node: "d"}}},
		{URI: "c", At: "", Links: []artifacts.Link{{Kind: "link", Node: "d"}}},
		{URI: "e", At: "2026-01-02T10:00:00Z", Links: []artifacts.Link{{Kind: "link", Node: "d"}, {Kind: "tag", Node: "d"}}},
	}
	cfg := model.Config{Identities: map[string]model.Identity{"d": {Canonical: "d", Aliases: []string{"dd"}}}}
	tables, err := NewTables(context.Background(), Input{Config: cfg, Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(tables.ByDst)
	want := "[{d [{tag #1} {link #3} {tag #0} {tag #3} {link #2} {same-as dd}]}]"
	if got != want {
		t.Errorf("inbound order\n got %s\nwant %s", got, want)
	}
}

// TestDamagedNodeRunIsAnError: a run that cannot be read back as written
// fails the build with an error.
func TestDamagedNodeRunIsAnError(t *testing.T) {
	nodes, cfg := randomNodes(rand.New(rand.NewPCG(1, 2)), 10)
	sc := (*artifacts.Spool)(nil).Scratch(artifacts.EdgesPath)
	run, err := SpillNodes(sc, nodes)
	if err != nil {
		t.Fatal(err)
	}
	var whole strings.Builder
	if err := readSection(sc, run.at, &whole); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []string{whole.String()[:whole.Len()/2], whole.String() + "x", strings.Repeat("\xff", whole.Len())} {
		damaged := (*artifacts.Spool)(nil).Scratch(artifacts.EdgesPath)
		at, _ := damaged.Append([]byte(cut))
		bad := NodeRun{scratch: damaged, at: at, nodes: run.nodes}
		if _, err := Run(context.Background(), Input{Config: cfg, Runs: []NodeRun{bad}}); err == nil || !strings.Contains(err.Error(), "reading back a run of nodes") {
			t.Errorf("a damaged run of %d bytes: %v", len(cut), err)
		}
	}
}

func readSection(sc *artifacts.Scratch, at artifacts.ScratchSection, b *strings.Builder) error {
	_, err := io.Copy(b, sc.Section(at))
	return err
}
