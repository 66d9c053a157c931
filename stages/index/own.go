package index

import (
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// Own copies the strings ptrs point at into one new string and points
// each at its copy. A projected item's strings are often cut from its
// document's text, and a string keeps all of the text it was cut from
// alive: what outlives projection owns its bytes, so that every document's
// text is freed once its items are projected. One copy for a whole run of
// items costs one allocation, where a copy per string costs one each.
func Own(ptrs []*string) {
	n := 0
	for _, p := range ptrs {
		n += len(*p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range ptrs {
		b.WriteString(*p)
	}
	all := b.String()
	at := 0
	for _, p := range ptrs {
		l := len(*p)
		*p = all[at : at+l]
		at += l
	}
}

// ownRows makes rows own their strings (see Own).
func ownRows(rows []artifacts.Doc) {
	ptrs := make([]*string, 0, 12*len(rows))
	for i := range rows {
		r := &rows[i]
		ptrs = append(ptrs, &r.URI, &r.Kind, &r.Source, &r.Date, &r.Time, &r.ValidFrom, &r.ValidUntil, &r.Digest, &r.URLKey, &r.Title)
		for j := range r.Flags {
			ptrs = append(ptrs, &r.Flags[j])
		}
	}
	Own(ptrs)
}
