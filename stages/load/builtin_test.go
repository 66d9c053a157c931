package load

import "testing"

// TestBuiltinVoices: every starter profile loads with no diagnostic (a
// broken one would panic at first use) and is found by name.
func TestBuiltinVoices(t *testing.T) {
	vs := BuiltinVoices()
	if len(vs) < 3 {
		t.Fatalf("%d built-in voices", len(vs))
	}
	for _, v := range vs {
		if got, ok := BuiltinVoice(v.Name); !ok || got.Description == "" || len(got.Patterns.Prohibited) == 0 {
			t.Errorf("built-in voice %q: %+v", v.Name, got)
		}
	}
	if _, ok := BuiltinVoice("nonesuch"); ok {
		t.Error("an unknown name found a built-in voice")
	}
}
