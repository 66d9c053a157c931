package fieldpath

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// toAny converts a Value to what encoding/json with UseNumber produces, so
// that the two decoders can be compared.
func toAny(v *Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Str == "true"
	case Number:
		return json.Number(v.Str)
	case String:
		return v.Str
	case Array:
		out := make([]any, len(v.Items))
		for i := range v.Items {
			out[i] = toAny(&v.Items[i])
		}
		return out
	}
	out := map[string]any{}
	for i, k := range v.Keys {
		out[k] = toAny(&v.Items[i])
	}
	return out
}

func stdDecode(s string) (any, error) {
	if !json.Valid([]byte(s)) {
		var v any
		return nil, json.Unmarshal([]byte(s), &v)
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{"a": 1, "b": [true, false, null, -0.5e+3, "x"], "c": {"d": "é\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t"}}`,
		`[]`, `{}`, `""`, `0`, `-12345678901234567890`, `"\ud800"`, `"\udc00\u0041"`, "\"bad \xff utf8\"",
		` { "dup": 1, "dup": 2 } `, `[[[]]]`, `{"k":"v","k2":[1,{"z":null}]}`,
	} {
		got, err := ParseJSON(s)
		want, werr := stdDecode(s)
		if (err != nil) != (werr != nil) {
			t.Errorf("%s: ParseJSON err %v, encoding/json err %v", s, err, werr)
			continue
		}
		if err == nil && !reflect.DeepEqual(toAny(&got), want) {
			t.Errorf("%s: got %#v, want %#v", s, toAny(&got), want)
		}
	}
}

func TestParseJSONRejects(t *testing.T) {
	for _, s := range []string{``, `{`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `01`, `1.`, `-`, `tru`, `"abc`, "\"a\x01\"", `"\x"`, `"\u12"`, `{} {}`, `{"a":1}x`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if _, err := ParseJSON(s); err == nil {
			t.Errorf("ParseJSON(%q) accepted invalid JSON", s)
		}
	}
}

// FuzzParseJSON checks that ParseJSON accepts exactly what encoding/json
// accepts (within the nesting bound) and decodes it the same way.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `"\u00e9"`, `[true,false]`, `-1.5e-3`, `{"x":"\ud83d\ude00"}`} {
		f.Add(s)
	}
	var dec Decoder
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseJSON(s)
		want, werr := stdDecode(s)
		again, aerr := dec.Parse(s)
		if (err == nil) != (aerr == nil) || err == nil && !reflect.DeepEqual(toAny(&got), toAny(&again)) {
			t.Fatalf("%q: Decoder.Parse disagrees with ParseJSON", s)
		}
		if err == nil && werr != nil {
			t.Fatalf("ParseJSON accepted %q, encoding/json says %v", s, werr)
		}
		if err != nil && werr == nil && !strings.Contains(err.Error(), "deeply") {
			t.Fatalf("ParseJSON rejected %q (%v), encoding/json accepts it", s, err)
		}
		if err == nil && !reflect.DeepEqual(toAny(&got), want) {
			t.Fatalf("%q: got %#v, want %#v", s, toAny(&got), want)
		}
	})
}

// FuzzSkipValue checks that SkipValue accepts exactly the inputs ParseJSON
// accepts and ends where the value ends.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\n",{"c":null}]}  `, `"\u00e9"`, `[true,false]`, `-1.5e-3`, `{"x":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, perr := ParseJSON(s)
		_, end, serr := SkipValue(s, 0)
		if serr == nil {
			rest := strings.TrimLeft(s[end:], " \t\r\n")
			if (rest == "") != (perr == nil) {
				t.Fatalf("%q: SkipValue ends at %d (rest %q), ParseJSON err %v", s, end, rest, perr)
			}
		} else if perr == nil {
			t.Fatalf("%q: SkipValue rejects (%v) what ParseJSON accepts", s, serr)
		}
	})
}
