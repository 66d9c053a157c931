package artifacts

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// goodKeyLine is a docs.key line of a base of three fields: offset 0x56,
// chrono 0, day 2026-11-02, source 0, half-life 14, flags created, record,
// id and dated, title group 0, title terms 0xfedcba98, no URL
// group, own id 0xdeadbeef, own URI 1, digest 0x0123456789abcdef, norms 2,
// 0 and 4.
const goodKeyLine = "0000002m" + "000000" + "0jaa7e" + "0000" + "000e" + "701" + "000000" + "3vdpeko" +
	"------" + "3farfnf" + "0000001" + "028q5cu4qnjff" + "204\n"

func TestDecodeKeyRejects(t *testing.T) {
	col := func(name, v string) string { // goodKeyLine with the named column replaced
		for _, c := range keyColumnNames {
			if c.name == name {
				if len(v) != c.to-c.at {
					t.Fatalf("%q is not as wide as column %s", v, name)
				}
				return goodKeyLine[:c.at] + v + goodKeyLine[c.to:]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	cases := []struct{ name, line, msg string }{
		{"short", goodKeyLine[1:], "line is 80 bytes, want 81 ending with LF"},
		{"no LF", strings.TrimSuffix(goodKeyLine, "\n") + "0", "line is 81 bytes, want 81 ending with LF"},
		{"column shifted", "0" + goodKeyLine[:len(goodKeyLine)-2] + "\n", `column ugroup "o-----" is not what docs.key holds there`},
		{"upper-case digit", col("tterms", "3VDPEKO"), `column tterms "3VDPEKO" is not what docs.key holds there`},
		{"hash past 32 bits", col("tterms", "4000000"), `column tterms "4000000" is not what docs.key holds there`},
		{"offset not base 32", col("offset", "0000002w"), `column offset "0000002w" is not what docs.key holds there`},
		{"hash past 64 bits", col("digest", "g000000000000"), `column digest "g000000000000" is not what docs.key holds there`},
		{"chrono not base 32", col("chrono", "00000w"), `column chrono "00000w" is not what docs.key holds there`},
		{"day not a day", col("day", "0jaa/e"), `column day "0jaa/e" is not what docs.key holds there`},
		{"day of zeros", col("day", "000000"), `column day "000000" is not what docs.key holds there`},
		{"day past 9999", col("day", "2vvvvv"), `column day "2vvvvv" is not what docs.key holds there`},
		{"an unknown flag", col("flags", "g00"), `column flags "g00" is not what docs.key holds there`},
		{"seven dashes for a group", col("tgroup", "------") + "-", "line is 82 bytes, want 81 ending with LF"},
		{"half a dash group", col("ugroup", "---000"), `column ugroup "---000" is not what docs.key holds there`},
		{"a tab for a digit", col("source", "00\t0"), `column source "00\t0" is not what docs.key holds there`},
		{"norm past 31", goodKeyLine[:len(goodKeyLine)-4] + "20w\n", `norm 'w' is not a length class 0-9a-v`},
		{"norm as dash", goodKeyLine[:len(goodKeyLine)-4] + "2-4\n", `norm '-' is not a length class 0-9a-v`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var kd KeyDecoder
			_, err := kd.Decode(9, []byte(c.line), 3)
			ce := asCorrupt(t, err, DocsKeyPath)
			if ce.Line != 9 || ce.Msg != c.msg {
				t.Errorf("got line %d %q, want line 9 %q", ce.Line, ce.Msg, c.msg)
			}
		})
	}
	var kd KeyDecoder
	k, err := kd.Decode(2, []byte(goodKeyLine), 3)
	if err != nil {
		t.Fatalf("the good line does not decode: %v", err)
	}
	if k.Offset != 0x56 || k.Day != 20261102 || k.HalfLife != 14 || k.Flags != KeyCreated|KeyRecord|KeyID|KeyDated ||
		k.TitleGroup != 0 || k.URLGroup != -1 || k.OwnID != 0xdeadbeef || !bytes.Equal(k.Norms, []byte{2, 0, 4}) {
		t.Errorf("the good line decodes to %+v", k)
	}
	if _, err := kd.Decode(2, []byte(goodKeyLine), 4); err == nil {
		t.Error("a line of three fields decodes as one of four")
	}
}

// TestKeyDecoderKeepsNorms: norms are copied out of the line, which a
// reader reuses for the next batch.
func TestKeyDecoderKeepsNorms(t *testing.T) {
	var kd KeyDecoder
	line := []byte(goodKeyLine)
	k, err := kd.Decode(2, line, 3)
	if err != nil {
		t.Fatal(err)
	}
	copy(line[len(line)-4:], "vvv")
	if !bytes.Equal(k.Norms, []byte{2, 0, 4}) {
		t.Errorf("norms changed with the line: %v", k.Norms)
	}
}

func TestKeyOffsetRejects(t *testing.T) {
	for _, line := range []string{"", "0000002", "0000002w0000000", "000000 m0000000", "-0000002m0000000"} {
		if _, err := KeyOffset([]byte(line)); err == nil {
			t.Errorf("KeyOffset(%q) accepted", line)
		} else {
			asCorrupt(t, err, DocsKeyPath)
		}
	}
}

func TestEncodeDocsRefusesBadKeys(t *testing.T) {
	rows := sampleDocs[:1]
	good := keysOf(rows, 3)
	for name, change := range map[string]func(k *Key){
		"norms of another width": func(k *Key) { k.Norms = k.Norms[:2] },
		"norm past 31":           func(k *Key) { k.Norms[0] = 32 },
		"rank past MaxItems":     func(k *Key) { k.Chrono = MaxItems },
		"group past MaxItems":    func(k *Key) { k.URLGroup = MaxItems },
		"source past MaxSources": func(k *Key) { k.Source = MaxSources },
	} {
		k := good[0]
		k.Norms = bytes.Clone(k.Norms)
		change(&k)
		if _, _, err := EncodeDocs(rows, []Key{k}, 3); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, _, err := EncodeDocs(rows, nil, 3); err == nil {
		t.Error("rows without keys: accepted")
	}
}

// FuzzDecodeKey: whatever decodes encodes back to the same line, and
// whatever does not is a CorruptError at the given line.
func FuzzDecodeKey(f *testing.F) {
	_, key := encodeDocs(f, sampleDocs, sampleFieldCount)
	width := KeyWidth(sampleFieldCount)
	for i := width; i < len(key); i += width {
		f.Add(key[i : i+width])
	}
	f.Add([]byte(goodKeyLine))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, fields := range []int{0, 3, sampleFieldCount} {
			var kd KeyDecoder
			k, err := kd.Decode(5, line, fields)
			if err != nil {
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Path != DocsKeyPath || ce.Line != 5 {
					t.Fatalf("error %v (%T), want a *CorruptError on %s:5", err, err, DocsKeyPath)
				}
				continue
			}
			again, err := appendKey(nil, &k, fields)
			if err != nil || !bytes.Equal(again, line) {
				t.Fatalf("%q decodes to %+v, which encodes to %q, %v", line, k, again, err)
			}
		}
	})
}

// BenchmarkDecodeKey decodes the key of a base of 37 fields, as a query
// does for each of its candidates.
func BenchmarkDecodeKey(b *testing.B) {
	rows := sampleDocs[:1]
	_, key := encodeDocs(b, rows, 37)
	line := key[KeyWidth(37):]
	var kd KeyDecoder
	for b.Loop() {
		if _, err := kd.Decode(2, line, 37); err != nil {
			b.Fatal(err)
		}
	}
}

// hexReference is parseHex by the standard library, which also takes
// upper-case digits and a sign: docs.key holds only lower-case digits.
func hexReference(c []byte) (uint64, bool) {
	if len(c) == 0 {
		return 0, true
	}
	for _, b := range c {
		if !('0' <= b && b <= '9' || 'a' <= b && b <= 'f') {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(string(c), 16, 64)
	return v, err == nil
}

// TestParseHexAgrees checks the key decoder's hex reader against the
// standard library's: every byte value at every place of 4-, 8-, 12- and
// 16-digit columns, over valid digits around it.
func TestParseHexAgrees(t *testing.T) {
	for _, base := range []string{"1c01", "0123abcd", "ffffffff", "00000000", "9a9a9a9a0f0f", "0123456789abcdef", "fedcba9876543210"} {
		for at := range len(base) {
			for b := range 256 {
				c := []byte(base)
				c[at] = byte(b)
				gv, gok := parseHex(c)
				wv, wok := hexReference(c)
				if gok != wok || gok && gv != wv {
					t.Fatalf("%q: parseHex = %#x, %v; strconv = %#x, %v", c, gv, gok, wv, wok)
				}
			}
		}
	}
}

func FuzzParseHex(f *testing.F) {
	for _, s := range []string{"0123abcd", "0123456789abcdef", "000000000056", "1c00", "G0000000", "0000000:", "+1", "ABCD"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, c []byte) {
		if len(c) > 16 {
			c = c[:16]
		}
		gv, gok := parseHex(c)
		wv, wok := hexReference(c)
		if gok != wok || gok && gv != wv {
			t.Fatalf("%q: parseHex = %#x, %v; strconv = %#x, %v", c, gv, gok, wv, wok)
		}
	})
}

// TestKeyPlaceColumns: the columns a sweep reads by position are the
// source and title terms a key was encoded with.
func TestKeyPlaceColumns(t *testing.T) {
	k := Key{Offset: 77, Chrono: 3, Day: 20261102, Source: 0x2a, HalfLife: 9, Flags: KeyRecord, TitleGroup: -1,
		TitleTerms: 0x89abcdef, URLGroup: 4, Norms: []byte{1, 0}}
	line, err := AppendKey(nil, &k, 2)
	if err != nil {
		t.Fatal(err)
	}
	src, terms := KeyPlaceColumns(line)
	if string(src) != "001a" || string(src) != string(KeySourceColumn(0x2a)) ||
		string(terms) != "24qnjff" || string(terms) != string(KeyTitleTermsColumn(k.TitleTerms)) {
		t.Errorf("columns %q and %q of %q", src, terms, line)
	}
}
