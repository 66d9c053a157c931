package rank

import (
	"slices"
	"strings"
	"testing"
)

// passagesBySplitting is passages as first written: every line split out,
// every paragraph joined, the sentences trimmed in a second pass. The
// passages of an excerpt must not change with how they are cut.
func passagesBySplitting(text string) []string {
	var paras, cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "#") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") || strings.HasPrefix(t, "|"):
			flush()
			cur = []string{t}
			if strings.HasPrefix(t, "#") {
				flush()
			}
		default:
			cur = append(cur, t)
		}
	}
	flush()
	var out []string
	for _, para := range paras {
		start := 0
		for i := 0; i < len(para); i++ {
			if (para[i] == '.' || para[i] == '!' || para[i] == '?' || para[i] == ';') && (i+1 == len(para) || para[i+1] == ' ') {
				if p := strings.TrimSpace(para[start : i+1]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
		if p := strings.TrimSpace(para[start:]); p != "" {
			out = append(out, p)
		}
	}
	for i, p := range out {
		out[i] = strings.TrimSpace(strings.TrimLeft(p, "#>-*+| "))
	}
	return slices.DeleteFunc(out, func(p string) bool { return p == "" })
}

var passageTexts = []string{
	"",
	"\n\n",
	"One sentence.",
	"First. Second! Third? Fourth; fifth",
	"A wrapped\nparagraph that goes on.\nAnd on. Done.\n\nNext paragraph.",
	"# Heading\nBody under it. More.\n## Sub\n- item one\n- item two. Still two.\n* star\n+ plus\n> quote\n| a | b |\ntrailing",
	"  indented line  \n\ttabbed.  \n",
	"v1.2 is out. Use it.\nend.",
	"#\n-\n- \n>>> \n. . .",
	"no terminator\nstill none",
}

func TestPassagesKeepTheirCut(t *testing.T) {
	scratch := []string{"left over"}
	for _, text := range passageTexts {
		scratch = passages(text, scratch[:0])
		if want := passagesBySplitting(text); !slices.Equal(scratch, want) {
			t.Errorf("passages(%q) = %q, want %q", text, scratch, want)
		}
	}
}

func FuzzPassages(f *testing.F) {
	for _, text := range passageTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := passages(text, nil), passagesBySplitting(text); !slices.Equal(got, want) {
			t.Fatalf("passages(%q) = %q, want %q", text, got, want)
		}
	})
}
