package main

import (
	"slices"
	"strings"
	"testing"
)

// fakeSearch is the part of a stand-in cairn that answers `search`: a
// JSON answer with the index state it sees, when asked.
const fakeSearch = `if [ "$3" = search ]; then
  state=missing; [ -d "$2/.cairn" ] && state=used
  case " $* " in
  *" --format json "*) printf '{"groups":[{"name":"records","count":1}],"index":{"state":"%s"}}\n' "$state" ;;
  *) echo "search; index=$state" ;;
  esac
  exit 0
fi
`

func TestSearchQueries(t *testing.T) {
	qs := searchQueries(genParams{Records: 100000, Days: 10, Seed: 1})
	if len(qs) != 2 || qs[0].kind != "rare" || qs[1].kind != "common" {
		t.Fatalf("want a rare and a common search, got %+v", qs)
	}
	if !strings.Contains(qs[0].words[0], "-") || len(qs[0].extra) != 0 {
		t.Errorf("the rare search is not a plain ticket key: %+v", qs[0])
	}
	if !slices.Equal(qs[1].extra, []string{"--count"}) {
		t.Errorf("the common search must count only: %+v", qs[1])
	}
}

func TestMeasureSearch(t *testing.T) {
	b := contextBench(t, fakeSearch+fakeBuild)
	if err := measureSearch(b); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range b.metrics {
		names = append(names, m.Name)
	}
	want := []string{"search_rare_ms", "search_rare_peak_rss_mib", "search_common_ms", "search_common_peak_rss_mib"}
	if !slices.Equal(names, want) {
		t.Errorf("metrics %v, want %v", names, want)
	}
}
