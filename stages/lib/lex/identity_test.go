package lex

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// testConfig is a configuration with one identity of three names.
func testConfig() model.Config {
	return model.Config{
		Identities: map[string]model.Identity{
			"marc": {Canonical: "person:email/marc@x.test", Aliases: []string{"person:github/marc-b", "marc@old.test"}},
		},
	}.WithDefaults()
}

// TestExactForms covers the exact identifiers of a relation value: the
// value, an entity URI's identity (after the scheme) and suffix (after the
// last slash), and the same for every name of the identity it belongs to,
// sorted.
func TestExactForms(t *testing.T) {
	ids := NewIdentities(testConfig())
	all := []string{"email/marc@x.test", "github/marc-b", "marc-b", "marc@old.test", "marc@x.test", "person:email/marc@x.test", "person:github/marc-b"}
	cases := []struct {
		value string
		want  []string
	}{
		{"person:email/marc@x.test", all},
		{"person:github/marc-b", all},
		{"marc@old.test", all},
		{"repo:github.com/acme/harbor", []string{"github.com/acme/harbor", "harbor", "repo:github.com/acme/harbor"}},
		{"person:github/ana", []string{"ana", "github/ana", "person:github/ana"}},
		{"ticket:HAR-142", []string{"HAR-142", "ticket:HAR-142"}},
		{"https://x.test/people/marc", []string{"https://x.test/people/marc"}},
		{"wiki/people/marc.md", []string{"wiki/people/marc.md"}},
		{"person:marc", []string{"marc", "person:marc"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, ids.ExactForms(c.value)); diff != "" {
			t.Errorf("ExactForms(%q) (-want +got):\n%s", c.value, diff)
		}
	}
	if got := NewIdentities(model.Config{}).ExactForms("person:email/marc@x.test"); !cmp.Equal(got, []string{"email/marc@x.test", "marc@x.test", "person:email/marc@x.test"}) {
		t.Errorf("without identities: %q", got)
	}
}

// TestNames covers the identities a query term names: a term that is an
// exact form (name, identity or suffix, case folded) of any name of an
// identity names all of that identity's names; a form two identities
// share names both.
func TestNames(t *testing.T) {
	cfg := testConfig()
	cfg.Identities["ana"] = model.Identity{Canonical: "person:github/ana", Aliases: []string{"person:email/ana@x.test", "person:email/Shared@Team.test"}}
	cfg.Identities["bo"] = model.Identity{Canonical: "person:email/bo@y.test", Aliases: []string{"person:email/shared@team.test"}}
	ids := NewIdentities(cfg)
	marc := []string{"marc@old.test", "person:email/marc@x.test", "person:github/marc-b"}
	ana := []string{"person:email/Shared@Team.test", "person:email/ana@x.test", "person:github/ana"}
	bo := []string{"person:email/bo@y.test", "person:email/shared@team.test"}
	for _, c := range []struct {
		term string
		want []string
	}{
		{"marc@x.test", marc},
		{"email/marc@x.test", marc},
		{"marc-b", marc},
		{"person:github/marc-b", marc},
		{"marc@old.test", marc},
		{"ana", ana},
		{"shared@team.test", append(append([]string{}, ana...), bo...)},
		{"bo@y.test", bo},
		{"marc", nil},
		{"x.test", nil},
		{"Marc-B", nil}, // terms come folded; an unfolded one is no form
	} {
		got := ids.Names(c.term)
		want := append([]string{}, c.want...)
		slices.Sort(want)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Names(%q) (-want +got):\n%s", c.term, diff)
		}
	}
}

func TestEntitySuffix(t *testing.T) {
	cases := []struct{ in, want string }{
		{"person:email/marc@x.test", "marc@x.test"},
		{"repo:github.com/acme/harbor", "harbor"},
		{"person:github/marc-b", "marc-b"},
		{"tag:ci/arm64", "arm64"},
		{"person:marc", ""},
		{"repo:github.com/acme/", ""},
		{"https://x.test/a", ""},
		{"http://x.test/a", ""},
		{"file://host/a/b", ""},
		{"mailto:marc@x.test", ""},
		{":x/y", ""},
		{"wiki/a.md", ""},
		{"marc@x.test", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := EntitySuffix(c.in); got != c.want {
			t.Errorf("EntitySuffix(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
