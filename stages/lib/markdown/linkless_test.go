package markdown

import (
	"reflect"
	"strings"
	"testing"

	"github.com/yuin/goldmark/parser"
)

// fullReader is goldmark's default parser: every paragraph parsed inline.
var fullReader = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// readFull is Read with fullReader.
func readFull(t testing.TB, src string) Doc {
	t.Helper()
	saved := reader
	reader = fullReader
	defer func() { reader = saved }()
	return Read(src)
}

// linklessCases are texts whose block structure depends on a paragraph
// around a linkless one: setext underlines, link reference definitions,
// list items that a blank line or two follows, lazy continuation lines,
// and links, images and autolinks beside prose that has none.
var linklessCases = []string{
	"Plain prose.\n\nA [link](a.md) and ![an image](b.png).\n",
	"Title\n=====\n\nSub title\n---------\n",
	"Two lines\nof a heading\n---\n",
	"[ref]: https://example.test/ref\n\nUses [ref] and [the ref][ref].\n",
	"[ref]: https://example.test/ref\nTitle\n===\n",
	"- foo\n\n\n    [x](y)\n",
	"- foo\n\n\n    # h\n",
	"- foo\n\n  bar\n\n  baz <https://example.test/auto>\n",
	"1. one\n\n\n   two\n2. three [t](t.md)\n",
	"> quoted\nlazy line\n> # in the quote\n\n> [q](q.md)\n",
	"- a\n-\n\n  after an empty item [e](e.md)\n",
	"prose `[not a link](x)` and <span>html</span>\n\n    indented [code](c)\n",
	"para\n***\npara two\n- - -\n",
	"* item\n\n  para\n  ---\n",
}

// TestLinklessReadsAsTheFullParse: skipping the inline parse of linkless
// paragraphs changes no heading and no link, whatever contains them.
func TestLinklessReadsAsTheFullParse(t *testing.T) {
	for _, c := range linklessCases {
		indented := "  " + strings.ReplaceAll(c, "\n", "\n  ")
		for _, src := range []string{
			c,
			c + "\n===\n",
			"x\n" + c + "\n---\n",
			"> " + strings.ReplaceAll(c, "\n", "\n> "),
			"- " + indented,
			"- a\n\n\n" + indented,
			"1. a\n\n" + indented + "\n\n- b\n",
		} {
			if got, want := Read(src), readFull(t, src); !reflect.DeepEqual(got, want) {
				t.Errorf("%q:\n got %+v\nwant %+v", src, got, want)
			}
		}
	}
}

// FuzzLinkless looks for a text that Read reads differently from the
// full parse; go test runs the cases above, go test -fuzz explores.
func FuzzLinkless(f *testing.F) {
	for _, c := range linklessCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := Read(src), readFull(t, src); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", src, got, want)
		}
	})
}
