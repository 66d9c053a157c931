package index

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

// TestSplicePostingsRefusesBrokenRanges: a previous terms.tsv whose
// offsets do not walk postings.tsv line by line, or a postings.tsv cut
// short under its last term, is corrupt, and the splice says which.
func TestSplicePostingsRefusesBrokenRanges(t *testing.T) {
	dict, post, err := artifacts.EncodePostings([]artifacts.TermPostings{
		{Term: "alpha", Postings: []artifacts.Posting{{Doc: 0, Field: 0, TF: 1}, {Doc: 1, Field: 0, TF: 1}}},
		{Term: "beta", Postings: []artifacts.Posting{{Doc: 0, Field: 0, TF: 1}, {Doc: 1, Field: 0, TF: 1}}},
		{Term: "gamma", Postings: []artifacts.Posting{{Doc: 1, Field: 0, TF: 1}}}, // one item: its row holds it
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &Renumbering{kept: []artifacts.Stretch{{From: 0, N: 2, To: 0}}, olds: 2, Items: 2}
	splice := func(dict, post []byte) error {
		_, _, err := splicePostings(nil, dict, post, nil, &Layout{}, r, []bool{true})
		return err
	}
	if err := splice(dict, post); err != nil {
		t.Fatalf("the whole tables: %v", err)
	}
	last := bytes.LastIndexByte(post[:len(post)-1], '\n') + 1 // where beta's line starts
	for _, c := range []struct {
		name       string
		dict, post []byte
		path, msg  string
	}{
		{"postings cut under the last term", dict, post[:last], artifacts.PostingsPath,
			`the postings of "beta" are not the line of their range; the file is cut short or edited`},
		{"an offset past where the line before ends", bytes.Replace(dict, []byte("beta\t2\t"), []byte("beta\t2\t1"), 1), post, artifacts.PostingsPath,
			`the byte range of "beta" is not the line after the previous term's`},
		{"postings in a row that are not", bytes.Replace(dict, []byte("gamma\t1\t1:0"), []byte("gamma\t1\t1:"), 1), post, artifacts.TermsPath,
			`posting "1:" is not delta[:field][xTF] or ,field[xTF] (the first names its field)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ce *artifacts.CorruptError
			if err := splice(c.dict, c.post); !errors.As(err, &ce) || ce.Path != c.path || ce.Msg != c.msg {
				t.Errorf("got %v, want %s: %s", err, c.path, c.msg)
			}
		})
	}
}
