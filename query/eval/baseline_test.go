package eval

import (
	"slices"
	"testing"
)

// TestCompare matches questions by what they ask, not by number, and
// lists each expected URI that moved and each question that flipped.
func TestCompare(t *testing.T) {
	prev := Report{K: 5, RankingVersion: 1, Queries: []QueryResult{
		{N: 1, Question: "a", Pass: true, Expected: []Ranked{{URI: "u1", Rank: 1}}},
		{N: 2, Question: "b", Pass: false, Reasons: []string{"expected u2: not delivered"}, Expected: []Ranked{{URI: "u2", Rank: 0}}},
		{N: 3, Question: "c", Pass: true, Expected: []Ranked{{URI: "u3", Rank: 2}, {URI: "u4", Rank: 3}}},
		{N: 4, Question: "gone", Pass: true},
		{N: 5, Question: "c", Pass: true, Expected: []Ranked{{URI: "u3", Rank: 4}}}, // the same question again
	}}
	cur := Report{K: 5, Queries: []QueryResult{
		{N: 1, Question: "new", Pass: true},
		{N: 2, Question: "a", Pass: false, Reasons: []string{"expected u1: rank 7, beyond k=5"}, Expected: []Ranked{{URI: "u1", Rank: 7}}},
		{N: 3, Question: "b", Pass: true, Expected: []Ranked{{URI: "u2", Rank: 3}}},
		{N: 4, Question: "c", Pass: true, Expected: []Ranked{{URI: "u3", Rank: 1}, {URI: "u4", Rank: 3}}},
		{N: 5, Question: "c", Pass: true, Expected: []Ranked{{URI: "u3", Rank: 4}}},
	}}
	d := Compare("prev.json", prev, cur)
	wantMoves := []Move{
		{N: 2, Question: "a", URI: "u1", From: 1, To: 7, Up: false},
		{N: 3, Question: "b", URI: "u2", From: 0, To: 3, Up: true},
		{N: 4, Question: "c", URI: "u3", From: 2, To: 1, Up: true},
	}
	if !slices.Equal(d.Moves, wantMoves) {
		t.Errorf("moves = %+v\nwant    %+v", d.Moves, wantMoves)
	}
	if len(d.NewlyFailing) != 1 || d.NewlyFailing[0].N != 2 || d.NewlyFailing[0].Reasons[0] != "expected u1: rank 7, beyond k=5" {
		t.Errorf("newly failing = %+v", d.NewlyFailing)
	}
	if len(d.NewlyPassing) != 1 || d.NewlyPassing[0].N != 3 {
		t.Errorf("newly passing = %+v", d.NewlyPassing)
	}
	if !slices.Equal(d.Added, []int{1}) || !slices.Equal(d.Removed, []int{4}) || d.RankingVersion != 1 || d.Baseline != "prev.json" {
		t.Errorf("diff = %+v", d)
	}
}
