package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Posting says that a term occurs TF times in one field of one item. It
// is kept small (8 bytes) because a build holds millions of them.
type Posting struct {
	Doc   int32  // item ordinal in docs.tsv
	Field uint16 // field ordinal in fields.tsv
	TF    uint16 // occurrences, capped at MaxTF
}

// MaxTF caps a posting's term frequency; length normalisation makes higher
// counts irrelevant to ranking long before this.
const MaxTF = 65535

// MaxFields is how many fields a posting's field ordinal can name.
const MaxFields = 65536

// TermPostings is a term with its postings, sorted by item then field.
type TermPostings struct {
	Term     string
	Postings []Posting
}

// TermEntry is one row of terms.tsv: a term, how many items hold it and
// where its postings are: the byte range of its line in postings.tsv
// (Offset, and Length with the LF), or, for a term one item holds (DF 1),
// which has no line, the postings text its row holds (Inline).
type TermEntry struct {
	Term   string
	DF     int
	Offset int64
	Length int64
	// Inline is the postings text of a term one item holds, without LF;
	// Offset and Length are then 0.
	Inline string
}

// InIndex reports whether the entry is a dictionary row: it has postings
// in place or a line of postings.tsv.
func (e TermEntry) InIndex() bool { return e.Length > 0 || e.Inline != "" }

var (
	termsHeader    = header(termsName, "term", "df", "postings")
	postingsHeader = header(postingsName, "postings")
)

// EncodePostings renders terms.tsv and postings.tsv. Terms must be sorted
// bytewise and unique; each term's postings sorted by item then field,
// with a frequency of at least 1. Input that breaks this is an error, not
// a file the decoder would refuse.
func EncodePostings(terms []TermPostings) (dict, postings []byte, err error) {
	size := 0
	for _, t := range terms {
		size += len(t.Term) + 2 + 8*len(t.Postings)
	}
	w := NewPostingsWriter(len(terms), size)
	for _, t := range terms {
		w.Begin(t.Term)
		for _, p := range t.Postings {
			w.Add(p)
		}
		w.End()
	}
	return w.Bytes()
}

// PostingsWriter renders terms.tsv and postings.tsv one term at a time, so
// that a caller merging several sources never holds all postings twice.
// Terms must come sorted bytewise and unique, and a term's postings sorted
// by item then field.
type PostingsWriter struct {
	dict, post *Output
	num        []byte
	start      int64  // where the current term's line starts
	prev       int32  // the previous posting's item
	prevField  uint16 // and its field
	df, n      int    // distinct items and postings of the current term
	term       []byte // the current term
	line       []byte // its postings while one item holds them
	terms      int    // terms begun
	err        error  // the first input that breaks the format
}

// NewPostingsWriter starts both files in memory; the sizes only
// pre-allocate.
func NewPostingsWriter(terms, postingBytes int) *PostingsWriter {
	return NewPostingsWriterIn(nil, terms, postingBytes)
}

// NewPostingsWriterIn starts both files in spool s (in memory when s is
// nil); the sizes only pre-allocate memory.
func NewPostingsWriterIn(s *Spool, terms, postingBytes int) *PostingsWriter {
	w := &PostingsWriter{post: s.Create(PostingsPath, postingBytes+len(postingsHeader)), dict: s.Create(TermsPath, terms*24+len(termsHeader))}
	w.post.WriteString(postingsHeader)
	w.dict.WriteString(termsHeader)
	return w
}

// Begin starts a term's line.
func (w *PostingsWriter) Begin(term string) {
	switch {
	case term == "" || breaksRow(term):
		w.fail("term %q is empty or holds a tab or line break", term)
	case w.terms > 0 && term <= string(w.term):
		w.fail("term %q follows %q; terms must be sorted and unique", term, w.term)
	}
	w.term = append(w.term[:0], term...)
	w.started()
}

// beginBytes is Begin for a term held as bytes, which it copies.
func (w *PostingsWriter) beginBytes(term []byte) {
	switch {
	case len(term) == 0 || breaksRow(term):
		w.fail("term %q is empty or holds a tab or line break", string(term))
	case w.terms > 0 && bytes.Compare(term, w.term) <= 0:
		w.fail("term %q follows %q; terms must be sorted and unique", string(term), w.term)
	}
	w.term = append(w.term[:0], term...)
	w.started()
}

// started opens the line of the term just checked into w.term.
func (w *PostingsWriter) started() {
	w.terms++
	w.start = w.post.Len()
	w.prev, w.df, w.n = 0, 0, 0
	w.dict.Write(w.term)
}

// Add appends one posting to the current term.
func (w *PostingsWriter) Add(p Posting) {
	switch {
	case p.Doc < 0 || p.TF == 0:
		w.fail("term %q: posting %d:%d with frequency %d; items are 0 or more and frequencies 1 or more", w.term, p.Doc, p.Field, p.TF)
	case w.n > 0 && (p.Doc < w.prev || p.Doc == w.prev && p.Field <= w.prevField):
		w.fail("term %q: posting %d:%d follows %d:%d; postings must be sorted by item then field", w.term, p.Doc, p.Field, w.prev, w.prevField)
	}
	// The posting is spelled out whole, then written once.
	if w.n == 0 || p.Doc != w.prev {
		w.df++
	}
	b := appendPosting(w.num[:0], w.n, w.prev, w.prevField, p.Doc, p.Field, p.TF)
	w.prevField = p.Field
	switch {
	case w.df == 1: // it may stay in the dictionary's row
		w.line = append(w.line, b...)
	case len(w.line) > 0:
		w.post.Write(w.line)
		w.line = w.line[:0]
		fallthrough
	default:
		w.post.Write(b)
	}
	w.num = b
	w.prev = p.Doc
	w.n++
}

// appendPosting appends the text of a posting of item doc in field f,
// tf times, to a line of n postings whose last was of item prev in field
// prevField: a comma and the item's next field when it is prev, else the
// item's delta, and its field after a colon when it is not the one
// before; then x and tf when tf is more than 1. Every number ends itself
// (appendNum), so postings follow each other without a separator.
func appendPosting(b []byte, n int, prev int32, prevField uint16, doc int32, f, tf uint16) []byte {
	if n > 0 && doc == prev {
		b = append(b, ',')
		b = appendNum(b, uint64(f))
	} else {
		b = appendNum(b, uint64(doc-prev))
		if n == 0 || f != prevField {
			b = append(b, ':')
			b = appendNum(b, uint64(f))
		}
	}
	if tf > 1 {
		b = append(b, 'x')
		b = appendNum(b, uint64(tf))
	}
	return b
}

// Line writes a whole term's line from postings already encoded: list is
// the line's text without the LF (its first posting names its field), and
// df its distinct items. A caller that renumbers an index copies most
// lines so.
func (w *PostingsWriter) Line(term, list []byte, df int) {
	w.beginBytes(term)
	if df == 1 {
		w.line = append(w.line[:0], list...)
	} else {
		w.post.Write(list)
	}
	w.df = df
	w.End()
}

// End finishes the current term's line and its dictionary row: the
// line's range as offset+length, or, for a term one item holds, its
// postings in the row, and no line.
func (w *PostingsWriter) End() {
	b := append(w.num[:0], '\t')
	b = strconv.AppendInt(b, int64(w.df), 10)
	b = append(b, '\t')
	if w.df == 1 {
		b = append(b, w.line...)
	} else {
		w.post.WriteByte('\n')
		b = appendBase32(b, uint64(w.start))
		b = append(b, '+')
		b = appendBase32(b, uint64(w.post.Len()-w.start))
	}
	b = append(b, '\n')
	w.dict.Write(b)
	w.num = b
	w.line = w.line[:0]
}

// Bytes returns terms.tsv and postings.tsv written in memory, or the
// first input that broke their format.
func (w *PostingsWriter) Bytes() (dict, postings []byte, err error) {
	d, p, err := w.Files()
	return d.Data, p.Data, err
}

// Files ends terms.tsv and postings.tsv, or returns the first input that
// broke their format or the first write that failed.
func (w *PostingsWriter) Files() (dict, postings File, err error) {
	dict, err = w.dict.Finish(w.err)
	postings, perr := w.post.Finish(w.err)
	if err == nil {
		err = perr
	}
	return dict, postings, err
}

func (w *PostingsWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("postings: "+format, args...)
	}
}

// DecodeTerms parses a whole terms.tsv, given the size of the postings.tsv
// beside it, checking that the rows are sorted and that their ranges
// follow each other within it.
func DecodeTerms(data []byte, postings int64) ([]TermEntry, error) {
	terms, err := decodeRows(TermsPath, data, termsHeader, DecodeTermRow)
	if err != nil {
		return nil, err
	}
	if err := inTermOrder(terms); err != nil {
		return nil, err
	}
	at := int64(len(postingsHeader)) // where the next line starts
	for i, e := range terms {
		if e.Inline != "" {
			if _, err := DecodeInline(e); err != nil {
				var ce *CorruptError
				if errors.As(err, &ce) {
					ce.Line = i + 2
				}
				return nil, err
			}
			continue
		}
		switch {
		case e.Offset != at:
			return nil, &CorruptError{Path: TermsPath, Line: i + 2, Msg: fmt.Sprintf("the postings of %q start at byte %d, not where the line before ends (%d)", e.Term, e.Offset, at)}
		case e.Length > postings-at:
			return nil, &CorruptError{Path: TermsPath, Line: i + 2, Msg: fmt.Sprintf("the postings of %q run past the %d bytes of postings.tsv", e.Term, postings)}
		}
		at += e.Length
	}
	return terms, nil
}

// inTermOrder checks that the rows of terms.tsv are sorted and unique.
func inTermOrder(terms []TermEntry) error {
	for i := 1; i < len(terms); i++ {
		if terms[i].Term <= terms[i-1].Term {
			return &CorruptError{Path: TermsPath, Line: i + 2, Msg: fmt.Sprintf("term %q follows %q; terms are sorted and unique", terms[i].Term, terms[i-1].Term)}
		}
	}
	return nil
}

// DecodeTermRow parses one terms.tsv row (without its LF).
func DecodeTermRow(n int, line []byte) (TermEntry, error) {
	term, df, off, length, inline, err := ScanTermRow(n, line)
	if err != nil {
		return TermEntry{}, err
	}
	return TermEntry{Term: string(term), DF: int(df), Offset: off, Length: length, Inline: string(inline)}, nil
}

// DecodeInline parses the postings a term one item holds has in its row
// of terms.tsv, which an error names.
func DecodeInline(e TermEntry) ([]Posting, error) {
	line := make([]byte, 0, len(e.Inline)+1)
	ps, err := DecodePostingsLine(e.Term, append(append(line, e.Inline...), '\n'))
	var ce *CorruptError
	if errors.As(err, &ce) {
		ce.Path = TermsPath
	}
	return ps, err
}

// DecodePostingsLine parses the postings line of term, as read from the
// byte range its dictionary entry names (LF included).
func DecodePostingsLine(term string, line []byte) ([]Posting, error) {
	return AppendPostingsLine(nil, term, line)
}

// AppendPostingsLine is DecodePostingsLine appending to out, for a reader
// that decodes many lines into one buffer. term names the line in errors.
func AppendPostingsLine(out []Posting, term string, line []byte) ([]Posting, error) {
	bad := func(msg string) error {
		return &CorruptError{Path: PostingsPath, Msg: fmt.Sprintf("postings of %q: %s", term, msg)}
	}
	if len(line) == 0 || line[len(line)-1] != '\n' {
		return nil, bad("line does not end with LF")
	}
	list := line[:len(line)-1]
	// A hand-rolled scan: a hub term has hundreds of thousands of postings,
	// and a query has milliseconds for all of its terms.
	if out == nil {
		out = make([]Posting, 0, len(list)/3+1)
	}
	first := len(out)
	var doc int64
	for i := 0; i < len(list); {
		p, k, err := scanPosting(list, i, lastOf(out, first))
		if err != nil {
			return nil, bad(err.Error())
		}
		doc += p.delta
		if doc > math.MaxInt32 {
			return nil, bad(fmt.Sprintf("posting %q names an item past 2^31", clip(list[i:])))
		}
		out = append(out, Posting{Doc: int32(doc), Field: uint16(p.field), TF: uint16(p.tf)})
		i = k
	}
	return out, nil
}

// lastPosting is what scanPosting needs of the posting before: whether
// there is one, and its field.
type lastPosting struct {
	any   bool
	field uint16
}

// lastOf is the lastPosting of the postings of out from first on.
func lastOf(out []Posting, first int) lastPosting {
	if len(out) > first {
		return lastPosting{any: true, field: out[len(out)-1].Field}
	}
	return lastPosting{}
}

// scanned is one posting as written: its delta (0 after a comma), field
// and frequency, and whether it follows a comma, as its item's next field.
type scanned struct {
	delta, field, tf int64
	cont             bool
}

// scanPosting reads the posting of list at i, given the one before it,
// and returns it with where it ends, or says why it is not one: a
// posting is delta[:field][xTF] or ,field[xTF], the first of a line names
// its field, an item's next field follows a comma (never a 0 delta) and
// rises.
func scanPosting(list []byte, i int, last lastPosting) (p scanned, end int, err error) {
	p.tf = 1
	ok := true
	k := i
	if list[i] == ',' {
		p.cont = true
		p.field, k, ok = numAt(list, i+1)
	} else {
		p.delta, k, ok = numAt(list, i)
		switch {
		case ok && k < len(list) && list[k] == ':':
			p.field, k, ok = numAt(list, k+1)
		case last.any:
			p.field = int64(last.field)
		default:
			ok = false
		}
	}
	if ok && k < len(list) && list[k] == 'x' {
		p.tf, k, ok = numAt(list, k+1)
	}
	switch {
	case !ok || p.field > math.MaxUint16 || p.tf < 1 || p.tf > math.MaxUint16:
		return p, k, fmt.Errorf("posting %q is not delta[:field][xTF] or ,field[xTF] (the first names its field)", clip(list[i:]))
	case p.cont && !last.any:
		return p, k, fmt.Errorf("posting %q is the next field of no item; a line starts with delta:field", list[i:k])
	case p.cont && p.field <= int64(last.field):
		return p, k, fmt.Errorf("posting %q repeats its item with field %d after field %d; an item's postings go by rising field", list[i:k], p.field, last.field)
	case !p.cont && last.any && p.delta == 0:
		return p, k, fmt.Errorf("posting %q repeats its item with a 0 delta; an item's next field follows a comma", list[i:k])
	}
	return p, k, nil
}

// clip is the start of a postings text, for an error message.
func clip(b []byte) []byte { return b[:min(len(b), 24)] }

// DecodePostings parses a whole terms.tsv and postings.tsv together (for
// tests and checks; queries read only their terms' ranges), checking that
// the dictionary's ranges are the postings file's lines, in order.
func DecodePostings(dict, post []byte) ([]TermPostings, error) {
	terms, err := decodeRows(TermsPath, dict, termsHeader, DecodeTermRow)
	if err != nil {
		return nil, err
	}
	lines, err := decodeRows(PostingsPath, post, postingsHeader, func(_ int, line []byte) ([]byte, error) { return line, nil })
	if err != nil {
		return nil, err
	}
	if err := inTermOrder(terms); err != nil {
		return nil, err
	}
	lined := 0
	for _, e := range terms {
		if e.Inline == "" {
			lined++
		}
	}
	if len(lines) != lined {
		return nil, &CorruptError{Path: PostingsPath, Msg: fmt.Sprintf("%d lines for the %d terms of terms.tsv held by more than one item", len(lines), lined)}
	}
	out := make([]TermPostings, 0, len(terms))
	at := int64(len(postingsHeader))
	for i, e := range terms {
		if e.Inline != "" {
			ps, err := DecodeInline(e)
			if err != nil {
				return nil, err
			}
			out = append(out, TermPostings{Term: e.Term, Postings: ps})
			continue
		}
		n := int64(len(lines[0])) + 1
		lines = lines[1:]
		if e.Offset != at {
			return nil, &CorruptError{Path: TermsPath, Line: i + 2, Msg: fmt.Sprintf("term %q names byte %d of postings.tsv; its line starts at %d", e.Term, e.Offset, at)}
		}
		ps, err := DecodePostingsLine(e.Term, post[at:at+n])
		if err != nil {
			return nil, err
		}
		out = append(out, TermPostings{Term: e.Term, Postings: ps})
		at += n
	}
	return out, nil
}
