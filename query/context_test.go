package query

import (
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/query/rank"
)

// TestContainsLower: the title gate folds ASCII in place and falls back to
// strings.ToLower for other text; both must agree with the plain form.
func TestContainsLower(t *testing.T) {
	for _, c := range []struct {
		s, needle string
		want      bool
	}{
		{"Deploy Pipeline", "deploy", true},
		{"Deploy Pipeline", "pipeline", true},
		{"DEPLOY", "deploy", true},
		{"Deploy", "deploys", false},
		{"", "a", false},
		{"abc", "", true},
		{"a-b_C9", "b_c9", true},
		{"Straße Umzug", "straße", true},
		{"ÉTÉ Plan", "été", true},
		{"Plan", "été", false},
		{"[", "{", false}, // '[' is not 'Z'+1 folded
	} {
		if got := rank.ContainsLower(c.s, c.needle); got != c.want {
			t.Errorf("containsLower(%q, %q) = %v, want %v", c.s, c.needle, got, c.want)
		}
		if plain := strings.Contains(strings.ToLower(c.s), c.needle); plain != c.want {
			t.Errorf("case %q/%q: the table disagrees with strings.ToLower", c.s, c.needle)
		}
	}
}
