package artifacts

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// TermEntry is one row of terms.tsv.
type TermEntry struct {
	Term   string
	DF     int
	Offset int64
	Length int64
}

var (
	termsHeader    = header(termsName, "term", "df", "offset", "length")
	postingsHeader = header(postingsName, "term", "postings")
)

// EncodePostings renders terms.tsv and postings.tsv. Terms must be sorted
// bytewise and unique; each term's postings sorted by item then field.
func EncodePostings(terms []TermPostings) (dict, postings []byte) {
	var p, d bytes.Buffer
	size := 0
	for _, t := range terms {
		size += len(t.Term) + 2 + 8*len(t.Postings)
	}
	p.Grow(size)
	d.Grow(len(terms) * 24)
	p.WriteString(postingsHeader)
	d.WriteString(termsHeader)
	var num []byte
	for _, t := range terms {
		start := p.Len()
		p.WriteString(t.Term)
		p.WriteByte('\t')
		prev, df := int32(0), 0
		for i, ps := range t.Postings {
			if i > 0 {
				p.WriteByte(' ')
			}
			if i == 0 || ps.Doc != prev {
				df++
			}
			num = strconv.AppendInt(num[:0], int64(ps.Doc-prev), 10)
			p.Write(num)
			p.WriteByte(':')
			num = strconv.AppendInt(num[:0], int64(ps.Field), 10)
			p.Write(num)
			if ps.TF > 1 {
				p.WriteByte('x')
				num = strconv.AppendInt(num[:0], int64(ps.TF), 10)
				p.Write(num)
			}
			prev = ps.Doc
		}
		p.WriteByte('\n')
		d.WriteString(t.Term)
		d.WriteByte('\t')
		d.WriteString(strconv.Itoa(df))
		d.WriteByte('\t')
		d.WriteString(strconv.Itoa(start))
		d.WriteByte('\t')
		d.WriteString(strconv.Itoa(p.Len() - start))
		d.WriteByte('\n')
	}
	return d.Bytes(), p.Bytes()
}

// DecodeTerms parses a whole terms.tsv.
func DecodeTerms(data []byte) ([]TermEntry, error) {
	body, err := splitHeader(TermsPath, data, termsHeader)
	if err != nil {
		return nil, err
	}
	var rows []TermEntry
	err = lines(TermsPath, body, func(n int, line []byte) error {
		e, err := DecodeTermRow(n, line)
		rows = append(rows, e)
		return err
	})
	return rows, err
}

// DecodeTermRow parses one terms.tsv row (without its LF).
func DecodeTermRow(n int, line []byte) (TermEntry, error) {
	cols := strings.Split(string(line), "\t")
	if len(cols) != 4 || cols[0] == "" {
		return TermEntry{}, &CorruptError{Path: TermsPath, Line: n, Msg: "row is not term TAB df TAB offset TAB length"}
	}
	df, err := atoi(TermsPath, n, cols[1])
	if err != nil {
		return TermEntry{}, err
	}
	off, err := atoi(TermsPath, n, cols[2])
	if err != nil {
		return TermEntry{}, err
	}
	ln, err := atoi(TermsPath, n, cols[3])
	if err != nil {
		return TermEntry{}, err
	}
	return TermEntry{Term: cols[0], DF: int(df), Offset: off, Length: ln}, nil
}

// DecodePostingsLine parses the postings line of one term, as read from the
// byte range its dictionary entry names, and checks that it is that term's.
func DecodePostingsLine(term string, line []byte) ([]Posting, error) {
	bad := func(msg string) error {
		return &CorruptError{Path: PostingsPath, Msg: fmt.Sprintf("postings of %q: %s", term, msg)}
	}
	if len(line) == 0 || line[len(line)-1] != '\n' {
		return nil, bad("line does not end with LF")
	}
	line = line[:len(line)-1]
	t, list, ok := bytes.Cut(line, []byte{'\t'})
	if !ok || string(t) != term {
		return nil, bad("the byte range holds another term's line")
	}
	var out []Posting
	var doc int32
	for len(list) > 0 {
		var item []byte
		if i := bytes.IndexByte(list, ' '); i >= 0 {
			item, list = list[:i], list[i+1:]
		} else {
			item, list = list, nil
		}
		ds, rest, ok1 := bytes.Cut(item, []byte{':'})
		fs, tfs, hasTF := bytes.Cut(rest, []byte{'x'})
		delta, err1 := strconv.ParseInt(string(ds), 10, 32)
		field, err2 := strconv.ParseUint(string(fs), 10, 16)
		tf := uint64(1)
		var err3 error
		if hasTF {
			tf, err3 = strconv.ParseUint(string(tfs), 10, 16)
		}
		if !ok1 || err1 != nil || err2 != nil || err3 != nil || delta < 0 || tf < 1 || int64(doc)+delta > math.MaxInt32 {
			return nil, bad(fmt.Sprintf("posting %q is not delta:field[xTF]", item))
		}
		doc += int32(delta)
		out = append(out, Posting{Doc: doc, Field: uint16(field), TF: uint16(tf)})
	}
	return out, nil
}

// DecodePostings parses a whole postings.tsv (for tests and checks; queries
// read only their terms' ranges).
func DecodePostings(data []byte) ([]TermPostings, error) {
	body, err := splitHeader(PostingsPath, data, postingsHeader)
	if err != nil {
		return nil, err
	}
	var out []TermPostings
	err = lines(PostingsPath, body, func(n int, line []byte) error {
		term, _, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			return &CorruptError{Path: PostingsPath, Line: n, Msg: "row has no TAB"}
		}
		ps, err := DecodePostingsLine(string(term), append(line[:len(line):len(line)], '\n'))
		out = append(out, TermPostings{Term: string(term), Postings: ps})
		return err
	})
	return out, err
}
