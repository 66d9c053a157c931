package project

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/model"
)

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
