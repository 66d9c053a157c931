package artifacts

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContentRoundTrip(t *testing.T) {
	files := []ContentFile{{Path: "README.md"}, {Path: "docs/fr/guide.md", Point: "docs-fr"}, {Path: "docs/é.md", Point: "docs"}}
	data, err := EncodeContent(files)
	if err != nil {
		t.Fatal(err)
	}
	want := contentHeader + "README.md\t-\ndocs/fr/guide.md\tdocs-fr\ndocs/é.md\tdocs\n"
	if string(data) != want {
		t.Errorf("EncodeContent = %q, want %q", data, want)
	}
	got, err := DecodeContent(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, got); diff != "" {
		t.Errorf("DecodeContent(EncodeContent(x)) (-want +got):\n%s", diff)
	}
	if again, _ := EncodeContent(got); !bytes.Equal(again, data) {
		t.Errorf("EncodeContent(DecodeContent(b)) != b")
	}
}

func TestContentRefusals(t *testing.T) {
	for name, files := range map[string][]ContentFile{
		"out of order": {{Path: "b.md"}, {Path: "a.md"}},
		"twice":        {{Path: "a.md"}, {Path: "a.md"}},
		"tab in path":  {{Path: "a\tb.md"}},
		"dash point":   {{Path: "a.md", Point: "-"}},
	} {
		if _, err := EncodeContent(files); err == nil {
			t.Errorf("%s: EncodeContent accepted %v", name, files)
		}
	}
	good := contentHeader + "a.md\tdocs\nb.md\t-\n"
	for name, data := range map[string]string{
		"header":       strings.Replace(good, fmt.Sprintf("v%d", FormatVersion), "v9", 1),
		"no point":     contentHeader + "a.md\n",
		"out of order": contentHeader + "b.md\t-\na.md\t-\n",
		"three cells":  contentHeader + "a.md\tx\ty\n",
		"truncated":    good[:len(good)-1],
	} {
		_, err := DecodeContent([]byte(data))
		if err == nil {
			t.Errorf("%s: DecodeContent accepted %q", name, data)
			continue
		}
		asCorrupt(t, err, ContentPath)
	}
}
