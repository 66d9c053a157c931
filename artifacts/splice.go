package artifacts

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// DocLine is one docs.tsv row as a build that splices the index reads it:
// the row's bytes, to copy, and the columns a docs.key's ranks and groups
// are made from, as written (a dash is "").
type DocLine struct {
	Line                                   string // the row, LF included
	URI, Source, Date, Time, URLKey, Title string
}

// ScanDocs splits a whole docs.tsv into its rows without decoding them;
// origins are its record documents'. The strings share data, but for a
// record's URI and time, which its document completes.
func ScanDocs(data string, origins Origins) ([]DocLine, error) {
	i := strings.IndexByte(data, '\n')
	if i < 0 || data[:i+1] != docsHeader {
		return nil, &CorruptError{Path: DocsPath, Line: 1, Msg: fmt.Sprintf("header is not %q", strings.TrimSuffix(docsHeader, "\n"))}
	}
	text := data[i+1:]
	out := make([]DocLine, 0, strings.Count(text, "\n"))
	var cols [docsColumns]string
	for n := 2; len(text) > 0; n++ {
		end := strings.IndexByte(text, '\n')
		if end < 0 {
			return nil, &CorruptError{Path: DocsPath, Line: n, Msg: "row does not end with LF"}
		}
		line := text[:end]
		k := 0
		for k < len(cols)-1 {
			i := strings.IndexByte(line, '\t')
			if i < 0 {
				break
			}
			cols[k], line = line[:i], line[i+1:]
			k++
		}
		if k != len(cols)-1 || strings.IndexByte(line, '\t') >= 0 || cols[0] == "" {
			return nil, &CorruptError{Path: DocsPath, Line: n, Msg: fmt.Sprintf("row has not %d columns", len(cols))}
		}
		cols[len(cols)-1] = line
		d := DocLine{Line: text[:end+1], URI: cols[0], Source: undash(cols[2]), Date: undash(cols[3]),
			Time: undash(cols[4]), URLKey: undash(cols[8]), Title: undash(cols[9])}
		if cols[7] != "-" { // a record: its path, source and date are its document's
			doc, uri, time, err := origins.record(n, d.URI, d.Time)
			if err != nil {
				return nil, err
			}
			d.URI, d.Time, d.Source, d.Date = uri, time, doc.Source, doc.Date
		}
		out = append(out, d)
		text = text[end+1:]
	}
	return out, nil
}

// EncodeDocRow appends d's docs.tsv row to b.
func EncodeDocRow(b []byte, d Doc) []byte {
	buf := bytes.NewBuffer(b)
	writeDocRow(buf, &d)
	return buf.Bytes()
}

// PatchKey rewrites, in a copy of a docs.key line appended to b, the
// columns that depend on the other rows of the base: the row's offset,
// its newest-first rank, its source's rank and its title and URL groups.
// The rest of a row's key is its own.
func PatchKey(b []byte, line []byte, k *Key) ([]byte, error) {
	if len(line) < keyFixedWidth || line[len(line)-1] != '\n' {
		return nil, &CorruptError{Path: DocsKeyPath, Msg: fmt.Sprintf("line %q is not a key line", line)}
	}
	start := len(b)
	b = append(b, line...)
	if err := putPlaced(b[start:], k); err != nil {
		return nil, err
	}
	return b, nil
}

// KeyPlaced reads back what PatchKey writes of a docs.key line: its
// newest-first rank, its source's rank and its title and URL groups (the
// offset is left 0). A splice in which no item moved keeps them so.
func KeyPlaced(line []byte) (Key, error) {
	var k Key
	if len(line) < keyFixedWidth || line[len(line)-1] != '\n' {
		return k, &CorruptError{Path: DocsKeyPath, Msg: fmt.Sprintf("line %q is not a key line", line)}
	}
	chrono, ok1 := uint32Value(line[keyChronoAt:keyDayAt])
	source, ok2 := uint32Value(line[keySourceAt:keyHalfLifeAt])
	title, ok3 := groupValue(line[keyTitleAt:keyTitleTermsAt])
	url, ok4 := groupValue(line[keyURLAt:keyOwnIDAt])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return k, &CorruptError{Path: DocsKeyPath, Msg: fmt.Sprintf("line %q has a column that is not base-32", line)}
	}
	k.Chrono, k.Source, k.TitleGroup, k.URLGroup = chrono, source, title, url
	return k, nil
}

// KeyFields calls f with the ordinal of each field a docs.key line (of a
// base of fields fields) says its item has words in: each norm but 0.
func KeyFields(line []byte, fields int, f func(field int)) {
	at := len(line) - 1 - fields // the norms, before the LF
	if fields == 0 || at < 0 {
		return
	}
	for i, c := range line[at : at+fields] {
		if c != '0' {
			f(i)
		}
	}
}

// DocsHeader is docs.tsv's header line.
func DocsHeader() string { return docsHeader }

// AppendKey appends k's docs.key line, offset included, to b.
func AppendKey(b []byte, k *Key, fields int) ([]byte, error) { return appendKey(b, k, fields) }

// SplitHeaderOf checks the header of the artifact at path, one of the
// TSV files, and returns its rows.
func SplitHeaderOf(path string, data []byte) ([]byte, error) {
	want, ok := map[string]string{TermsPath: termsHeader, DocsPath: docsHeader, PostingsPath: postingsHeader}[path]
	if !ok {
		return nil, fmt.Errorf("%s: not a file SplitHeaderOf knows", path)
	}
	return splitHeader(path, data, want)
}

// Stretch is a run of items an index keeps when it is spliced: old
// ordinals From to From+N-1 become To to To+N-1.
type Stretch struct{ From, N, To int32 }

// Moves says how a splice renumbers the old items: Kept, sorted by From,
// gives each kept item's new ordinal (an item in none leaves); Items is
// how many items the old index has.
type Moves struct {
	Kept  []Stretch
	Items int32
}

// SplicePostings appends to dst a term's postings text renumbered: list
// is a postings.tsv line's text without the LF and oldDF its distinct
// items, as terms.tsv says; m moves the kept items (the deltas around an
// item that leaves close up); added, sorted by item then field and
// numbered anew, are merged in. Postings whose delta does not change and
// whose previous posting is written before them as it was are copied as
// they are, a stretch at a time: their field, when they leave it out,
// is still the one before them. Once the postings left all fall in the
// last stretch, which reaches the old index's end, and nothing is left
// to merge in, the rest of the line is copied unread, and its distinct
// items are what oldDF leaves. It returns the text and its distinct
// items, and calls field, when not nil, with each kept posting's field
// (reading every posting).
func SplicePostings(dst, list []byte, oldDF int, m Moves, added []Posting, field func(uint16)) ([]byte, int, error) {
	kept := m.Kept
	prev, df, n := int32(0), 0, 0
	var prevField uint16  // the field of the posting written last
	run, runEnd := -1, -1 // a stretch of list to copy as it is
	flush := func() {
		if run >= 0 {
			dst = append(dst, list[run:runEnd]...)
			run = -1
		}
	}
	put := func(doc int32, f, tf uint16) {
		flush()
		if n == 0 || doc != prev {
			df++
		}
		dst = appendPosting(dst, n, prev, prevField, doc, f, tf)
		prev, prevField = doc, f
		n++
	}
	var old int64
	seen := 0            // distinct items of list read so far
	var last lastPosting // the previous posting of list
	k := 0               // the stretch old falls in, or the next one
	follows := false     // the previous posting of list was written last, unmoved relative to this one's stretch
	var shift int32
	for i := 0; i < len(list); {
		if follows && field == nil {
			// A stretch of postings that keep their delta, up to the end of
			// the current stretch or the next new item: skimmed for their
			// items and fields alone, then copied with the run.
			limit := int64(kept[k].From + kept[k].N)
			if len(added) > 0 {
				limit = min(limit, int64(added[0].Doc-shift))
			}
			if next, at, f, distinct, count := skim(list, i, old, limit, int64(last.field)); count > 0 {
				if run < 0 {
					run = i
				}
				runEnd = next
				old, last.field, i = at, uint16(f), next
				seen += distinct
				df += distinct
				n += count
			}
			prev, prevField = int32(old)+shift, last.field
			if i >= len(list) {
				break
			}
		}
		p, end, err := scanPosting(list, i, last)
		if err != nil {
			return nil, 0, &CorruptError{Path: PostingsPath, Msg: err.Error()}
		}
		if old += p.delta; old > math.MaxInt32 {
			return nil, 0, &CorruptError{Path: PostingsPath, Msg: fmt.Sprintf("posting %q names an item past 2^31", clip(list[i:]))}
		}
		start := i
		i = end
		if !p.cont {
			seen++
		}
		last = lastPosting{any: true, field: uint16(p.field)}
		o := int32(old)
		for k < len(kept) && o >= kept[k].From+kept[k].N {
			k++
		}
		if k == len(kept) || o < kept[k].From {
			follows = false
			continue
		}
		doc := kept[k].To + o - kept[k].From
		if len(added) > 0 && added[0].Doc < doc {
			for len(added) > 0 && added[0].Doc < doc {
				put(added[0].Doc, added[0].Field, added[0].TF)
				added = added[1:]
			}
			follows = false
		}
		if field != nil {
			field(uint16(p.field))
		}
		if follows && doc-o == shift {
			// The same delta as before, after the same posting: its
			// bytes are copied with the stretch.
			if run < 0 {
				run = start
			}
			runEnd = end
			if doc != prev {
				df++
			}
			prev, prevField = doc, uint16(p.field)
			n++
		} else {
			put(doc, uint16(p.field), uint16(p.tf))
			follows, shift = true, doc-o
		}
		if i < len(list) && field == nil && len(added) == 0 && k == len(kept)-1 && kept[k].From+kept[k].N == m.Items {
			// Every posting left moves as this one did.
			flush()
			dst = append(dst, list[end:]...)
			df += oldDF - seen
			return dst, df, nil
		}
	}
	flush()
	for k := range added {
		put(added[k].Doc, added[k].Field, added[k].TF)
	}
	return dst, df, nil
}

// skim reads the postings of list from i on while their items, counted
// from old, stay below limit, and stops at the first that does not or
// that is not delta[:field][xTF] or ,field[xTF] well formed: the general
// path reads that one. field is the field of the posting before i (there
// is one). It returns where it stopped, the last item and field read, and
// how many postings it read and how many of them moved to a new item. It
// is the loop a splice spends most of its time in, and it reads each
// byte once.
func skim(list []byte, i int, old, limit, field int64) (next int, at, f int64, distinct, count int) {
	at, f, next = old, field, i
	for i < len(list) {
		j := i
		var d int64
		nf := f
		cont := list[i] == ','
		ok := true
		if cont {
			nf, j, ok = numAt(list, i+1)
			if !ok || nf <= f || nf > math.MaxUint16 {
				break
			}
		} else {
			d, j, ok = numAt(list, i)
			if !ok || d == 0 || at+d >= limit {
				break
			}
			if j < len(list) && list[j] == ':' {
				if nf, j, ok = numAt(list, j+1); !ok || nf > math.MaxUint16 {
					break
				}
			}
		}
		if j < len(list) && list[j] == 'x' {
			var tf int64
			if tf, j, ok = numAt(list, j+1); !ok || tf < 1 || tf > math.MaxUint16 {
				break
			}
		}
		at += d
		f = nf
		if !cont {
			distinct++
		}
		count++
		i = j
		next = i
	}
	return next, at, f, distinct, count
}

// ScanTermRow splits one terms.tsv row (without its LF) as a reader that
// walks the whole dictionary does, without allocating: the term, its
// distinct items (decimal) and its postings line's range, offset+length in
// base 32 (the length with the LF), or, for a term one item holds, the
// postings its row holds instead (inline, nil for any other). n numbers
// the row for errors.
func ScanTermRow(n int, line []byte) (term []byte, df, offset, length int64, inline []byte, err error) {
	bad := func(msg string) ([]byte, int64, int64, int64, []byte, error) {
		return nil, 0, 0, 0, nil, &CorruptError{Path: TermsPath, Line: n, Msg: msg}
	}
	term, rest, ok := bytes.Cut(line, []byte{'\t'})
	dfCol, where, ok2 := bytes.Cut(rest, []byte{'\t'})
	if !ok || !ok2 || len(term) == 0 || bytes.IndexByte(where, '\t') >= 0 {
		return bad("row is not term TAB df TAB postings")
	}
	if len(dfCol) == 0 || len(dfCol) > 18 {
		return bad(fmt.Sprintf("df %q is not a number", dfCol))
	}
	for _, d := range dfCol {
		if d < '0' || d > '9' {
			return bad(fmt.Sprintf("df %q is not a number", dfCol))
		}
		df = df*10 + int64(d-'0')
	}
	if df == 1 {
		if len(where) == 0 {
			return bad("a term one item holds has no postings in its row")
		}
		return term, df, 0, 0, where, nil
	}
	o, l, ok := bytes.Cut(where, []byte{'+'})
	off, ok1 := parseBase32(o)
	ln, ok2 := parseBase32(l)
	if !ok || !ok1 || !ok2 || off >= 1<<62 || ln == 0 || ln >= 1<<62 {
		return bad(fmt.Sprintf("postings %q are not a range offset+length in base 32", where))
	}
	return term, df, int64(off), int64(ln), nil, nil
}
