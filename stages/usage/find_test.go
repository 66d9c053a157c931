package usage

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestFindAgreesWithCount: the Finder reports one match per counted use,
// and each match's bytes are the wording the counting rules took.
func TestFindAgreesWithCount(t *testing.T) {
	terms := []model.Term{term("pull request"), term("token"), term("push token"), patterned("whitelist", "whitelist(s|ed|ing)?"),
		patterned("quosock", "(s|es|ed|ing)?"), {ID: "hash", Term: "#SYSTEM"}}
	text := "A pull\n  request, a push token and a token; whitelisted Whitelists quosocks. #system PUSH TOKEN"
	f, err := NewFinder(terms)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	counted := map[string]int{}
	for _, m := range f.Find(text) {
		id := terms[m.Term].ID
		got[id] = append(got[id], text[m.Start:m.End])
		counted[id]++
	}
	want := map[string][]string{
		"pull request": {"pull\n  request"},
		"token":        {"token", "token", "TOKEN"},
		"push token":   {"push token", "PUSH TOKEN"},
		"whitelist":    {"whitelisted", "Whitelists"},
		"quosock":      {"quosocks"},
		"hash":         {"#system"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(countIn(t, terms, text), counted); diff != "" {
		t.Errorf("the Finder and the counts disagree (-count +find):\n%s", diff)
	}
}
