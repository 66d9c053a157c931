package project

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/model"
)

// TestExactForms covers the exact identifiers of a relation value: the
// value, an entity URI's suffix, and the same for every name of the
// identity it belongs to, canonical first.
func TestExactForms(t *testing.T) {
	ids := NewIdentities(testConfig())
	all := []string{"person:email/marc@x.test", "marc@x.test", "person:github/marc-b", "marc-b", "marc@old.test"}
	cases := []struct {
		value string
		want  []string
	}{
		{"person:email/marc@x.test", all},
		{"person:github/marc-b", all},
		{"marc@old.test", all},
		{"repo:github.com/acme/harbor", []string{"repo:github.com/acme/harbor", "harbor"}},
		{"person:github/ana", []string{"person:github/ana", "ana"}},
		{"https://x.test/people/marc", []string{"https://x.test/people/marc"}},
		{"wiki/people/marc.md", []string{"wiki/people/marc.md"}},
		{"person:marc", []string{"person:marc"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, ids.ExactForms(c.value)); diff != "" {
			t.Errorf("ExactForms(%q) (-want +got):\n%s", c.value, diff)
		}
	}
	if got := NewIdentities(model.Config{}).ExactForms("person:email/marc@x.test"); !cmp.Equal(got, []string{"person:email/marc@x.test", "marc@x.test"}) {
		t.Errorf("without identities: %q", got)
	}
}
