package artifacts

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/bits"
)

// Key is one line of docs.key: what a query needs of an item to score,
// order and collapse it, so that it reads a few fixed-width bytes per
// candidate and the docs.tsv rows of only the few items a pack shows.
// Every value but Offset is derived from the item's docs.tsv row (and its
// source's recency policy); package project computes them, for the build
// and for a query's scan alike.
type Key struct {
	// Offset is where the item's docs.tsv row starts.
	Offset int64
	// Chrono is the item's rank, from 0, in newest-first order: by time,
	// else date, newest first, URI breaking ties.
	Chrono uint32
	// Day is the item's date as YYYYMMDD when it is a valid day, else 0.
	Day int32
	// Source is the rank of the item's source among the base's distinct
	// sources in byte order: equal sources, equal ranks.
	Source uint32
	// HalfLife is the item's source's recency half-life in days, 0 for none.
	HalfLife uint32
	Flags    KeyFlags
	// TitleGroup is the ordinal of the first item with the same source and
	// title, so that items with equal groups are one title+source run; -1
	// for an item without a title.
	TitleGroup int32
	// TitleTerms hashes the title's terms as a query would normalise it,
	// so a query can tell which titles may be the whole query.
	TitleTerms uint64
	// URLGroup is the ordinal of the first item with the same url key; -1
	// for an item without one.
	URLGroup int32
	// OwnID and OwnURI hash a record's decoded id and the item's URI, case
	// folded, so a query can tell which items a term may name exactly.
	// OwnID is 0 for an item without an id.
	OwnID, OwnURI uint32
	// Digest is the item's semantic digest, which docs.key alone holds.
	Digest uint64
	// Norms holds a length class per field of fields.tsv, by ordinal: 0
	// when the item has no words in the field, else NormOf(n) for its n
	// words (NormLength reads it back). The classes' meaning is part of
	// the ranking: a change to NormOf bumps RankingVersion, which every
	// build key holds, so that docs.key is written again.
	Norms []byte
}

// KeyFlags are the item facts a query tests of every candidate.
type KeyFlags uint16

// The flags of a key. The first eight are the row's flags of those names.
const (
	KeyCreated    KeyFlags = 1 << iota // flag created
	KeySuperseded                      // flag superseded
	KeyDone                            // flag done
	KeyDeprecated                      // flag deprecated
	KeyNav                             // flag nav
	KeyActive                          // flag active
	KeyReceived                        // flag received
	KeyPrivate                         // flag private
	KeyPage                            // kind wiki or projects
	KeyProject                         // kind projects
	KeyRecord                          // a record: the row has a span
	KeyID                              // the URI has an #id
	KeyDated                           // the row has a date
	KeyBounded                         // the row has a validity bound

	keyFlagsAll = KeyBounded<<1 - 1
)

// MaxNorm is the largest length class: a field of 49,152 words or more.
const MaxNorm = 31

// NormOf is the length class of a field of n words: 0 for none, else
// 2·e + h + 1, where 2^e ≤ n < 2^(e+1) and h is n's bit below its top
// one (0 for n = 1), capped at MaxNorm. Each class spans at most half
// an octave, so BM25's length normalisation reads a length within 25%.
func NormOf(n int) byte {
	if n <= 0 {
		return 0
	}
	e := bits.Len(uint(n)) - 1
	h := 0
	if e > 0 {
		h = n >> (e - 1) & 1
	}
	return byte(min(MaxNorm, 2*e+h+1))
}

// NormLength is the length a class stands for: the middle of its words
// (exact for one to three), 0 for class 0.
func NormLength(c byte) int {
	if c == 0 {
		return 0
	}
	e, h := int(c-1)/2, int(c-1)%2
	if e < 2 {
		return 1<<e + h
	}
	// [2^e, 1.5·2^e) or [1.5·2^e, 2^(e+1)): their middles, 1.25·2^e and 1.75·2^e.
	return (5 + 2*h) << (e - 2)
}

// Widths of docs.key's fixed columns, in order, without their TAB.
var keyColumns = [...]int{12, 8, 10, 8, 8, 4, 8, 16, 8, 8, 8, 16}

// keyFixedWidth is a docs.key line less its norms: the fixed columns, a TAB
// after each and the LF.
var keyFixedWidth = func() int {
	n := 1
	for _, w := range keyColumns {
		n += w + 1
	}
	return n
}()

// KeyPlaceColumns returns a docs.key line's source column (8 hex digits)
// and title-terms column (16), as written, for a reader that sweeps every
// line for the few of one source and title without decoding them.
func KeyPlaceColumns(line []byte) (source, titleTerms []byte) {
	if len(line) < keyTitleTermsAt+16 {
		return nil, nil
	}
	return line[keySourceAt : keySourceAt+8], line[keyTitleTermsAt : keyTitleTermsAt+16]
}

// HexColumn writes v as a fixed-width docs.key column of width hex digits.
func HexColumn(v uint64, width int) []byte {
	b := make([]byte, width)
	putHex(b, v)
	return b
}

// KeyWidth is the width of a docs.key line, LF included, for a base of
// the given number of fields (a base without fields writes its norms as -).
func KeyWidth(fields int) int { return keyFixedWidth + max(fields, 1) }

// KeysHeader is docs.key's first line for a base of the given number of
// fields: its name, version and line width, padded to the line width.
func KeysHeader(fields int) string {
	w := KeyWidth(fields)
	return fmt.Sprintf("%-*s\n", w-1, fmt.Sprintf("#cairn %s v%d width %d", docsKeyName, FormatVersion, w))
}

// EncodeDocs renders docs.tsv and docs.key. Rows must already be sorted by
// URI (the caller owns the order, because ordinals are shared with
// postings) and keys computed from them; their Offset is filled in here.
func EncodeDocs(rows []Doc, keys []Key, fields int) (docs, key []byte, err error) {
	d, k, err := EncodeDocsFrom(nil, len(rows), func(i int) *Doc { return &rows[i] }, keys, fields)
	return d.Data, k.Data, err
}

// EncodeDocsFrom is EncodeDocs over n rows given by row(i), in order,
// writing into spool s (in memory when s is nil) a row at a time.
func EncodeDocsFrom(s *Spool, n int, row func(i int) *Doc, keys []Key, fields int) (docs, key File, err error) {
	if len(keys) != n {
		return docs, key, fmt.Errorf("docs: %d rows but %d keys", n, len(keys))
	}
	size := 0
	if s == nil { // in memory, the whole table is reserved at once
		for i := range n {
			size += DocRowSize(row(i))
		}
	}
	w := NewDocsWriter(s, n, fields, size)
	for i := range n {
		w.Row(row(i), keys[i])
	}
	return w.Finish()
}

// A DocsWriter writes docs.tsv and docs.key a row at a time, each row's
// key beside it, so that a build need not hold its rows or keys to write
// them.
type DocsWriter struct {
	docs, key *Output
	fields    int
	line      []byte
	err       error
}

// NewDocsWriter starts docs.tsv and docs.key in spool s for about n rows
// in a base of the given number of fields; sizeHint is what docs.tsv is
// expected to take, reserved when in memory.
func NewDocsWriter(s *Spool, n, fields, sizeHint int) *DocsWriter {
	w := &DocsWriter{docs: s.Create(DocsPath, len(docsHeader)+sizeHint), key: s.Create(DocsKeyPath, KeyWidth(fields)*(n+1)),
		fields: fields, line: make([]byte, 0, KeyWidth(fields))}
	w.docs.WriteString(docsHeader)
	w.key.WriteString(KeysHeader(fields))
	return w
}

// Row writes d's row and its key k (whose offset it sets); rows come in
// URI order.
func (w *DocsWriter) Row(d *Doc, k Key) {
	if w.err != nil {
		return
	}
	k.Offset = w.docs.Len()
	writeDocRow(w.docs, d)
	w.writeKey(func() string { return d.URI }, &k)
}

// RowBytes writes a row as AppendDocRow made it, and its key k (whose
// offset it sets).
func (w *DocsWriter) RowBytes(row []byte, k Key) {
	if w.err != nil {
		return
	}
	if len(row) == 0 || row[len(row)-1] != '\n' {
		w.err = fmt.Errorf("docs: a row of %d bytes without its LF", len(row))
		return
	}
	k.Offset = w.docs.Len()
	w.docs.Write(row)
	w.writeKey(func() string { uri, _, _ := bytes.Cut(row, []byte{'\t'}); return string(uri) }, &k)
}

// writeKey writes k's line; uri names the row in an error.
func (w *DocsWriter) writeKey(uri func() string, k *Key) {
	var err error
	if w.line, err = appendKey(w.line[:0], k, w.fields); err != nil {
		w.err = fmt.Errorf("docs: %s: %w", uri(), err)
		return
	}
	w.key.Write(w.line)
}

// Finish ends both tables, or voids them with the first row that failed.
func (w *DocsWriter) Finish() (docs, key File, err error) {
	docs, derr := w.docs.Finish(w.err)
	key, kerr := w.key.Finish(w.err)
	return docs, key, cmp.Or(w.err, derr, kerr)
}

const hexDigits = "0123456789abcdef"

// appendKey appends k's docs.key line.
func appendKey(b []byte, k *Key, fields int) ([]byte, error) {
	if len(k.Norms) != fields {
		return nil, fmt.Errorf("%d norms for %d fields", len(k.Norms), fields)
	}
	hexCol := func(v uint64, width int) {
		n := len(b)
		b = append(b, make([]byte, width)...)
		putHex(b[n:], v)
		b = append(b, '\t')
	}
	group := func(g int32) {
		n := len(b)
		b = append(b, "--------"...)
		putGroup(b[n:], g)
		b = append(b, '\t')
	}
	if k.Offset < 0 || k.Offset >= 1<<48 {
		return nil, fmt.Errorf("row offset %d does not fit 12 hex digits", k.Offset)
	}
	hexCol(uint64(k.Offset), 12)
	hexCol(uint64(k.Chrono), 8)
	if d := k.Day; d <= 0 || d > 99991231 {
		if d != 0 {
			return nil, fmt.Errorf("day %d is not YYYYMMDD", d)
		}
		b = append(b, "----------\t"...)
	} else {
		v := uint32(d)
		b = append(b, byte('0'+v/10000000), byte('0'+v/1000000%10), byte('0'+v/100000%10), byte('0'+v/10000%10), '-',
			byte('0'+v/1000%10), byte('0'+v/100%10), '-', byte('0'+v/10%10), byte('0'+v%10), '\t')
	}
	hexCol(uint64(k.Source), 8)
	hexCol(uint64(k.HalfLife), 8)
	hexCol(uint64(k.Flags), 4)
	group(k.TitleGroup)
	hexCol(k.TitleTerms, 16)
	group(k.URLGroup)
	hexCol(uint64(k.OwnID), 8)
	hexCol(uint64(k.OwnURI), 8)
	hexCol(k.Digest, 16)
	if fields == 0 {
		b = append(b, '-')
	}
	for _, c := range k.Norms {
		if c > MaxNorm {
			return nil, fmt.Errorf("length class %d is above %d", c, MaxNorm)
		}
		b = append(b, normDigits[c])
	}
	return append(b, '\n'), nil
}

// putHex writes v in dst as len(dst) lowercase hex digits, the high ones
// first: a fixed-width docs.key column.
func putHex(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = hexDigits[v&0xf]
		v >>= 4
	}
}

// putGroup writes a title or URL group column (8 wide): the group's first
// ordinal in hex, or dashes for none.
func putGroup(dst []byte, g int32) {
	if g < 0 {
		copy(dst, "--------")
	} else {
		putHex(dst[:8], uint64(g))
	}
}

// normDigits write length classes 0..31 as one character each.
const normDigits = "0123456789abcdefghijklmnopqrstuv"

// KeyDecoder parses docs.key lines for a reader that decodes many: the
// norms of the keys it returns are carved from blocks it allocates, a few
// for many keys. The zero value is ready to use.
type KeyDecoder struct {
	arena []byte
}

// Decode parses one docs.key line of a base of the given number of fields,
// LF included; n is its line number for error messages. The line may be
// reused once Decode returns.
func (kd *KeyDecoder) Decode(n int, line []byte, fields int) (Key, error) {
	var k Key
	bad := func(msg string) (Key, error) {
		return Key{}, &CorruptError{Path: DocsKeyPath, Line: n, Msg: msg}
	}
	if len(line) != KeyWidth(fields) || line[len(line)-1] != '\n' {
		return bad(fmt.Sprintf("line is %d bytes, want %d ending with LF", len(line), KeyWidth(fields)))
	}
	col := 0
	pos := 0
	next := func() []byte {
		w := keyColumns[col]
		c := line[pos : pos+w]
		pos += w + 1
		col++
		return c
	}
	// Every fixed column is followed by a TAB.
	for p, i := 0, 0; i < len(keyColumns); i++ {
		p += keyColumns[i]
		if line[p] != '\t' {
			return bad(fmt.Sprintf("column %d is not %d characters and a TAB", i+1, keyColumns[i]))
		}
		p++
	}
	group := func(c []byte) (int32, bool) {
		if string(c) == "--------" {
			return -1, true
		}
		v, ok := parseHex(c)
		return int32(v), ok && v <= math.MaxInt32
	}
	var ok [12]bool
	var v uint64
	v, ok[0] = parseHex(next())
	k.Offset = int64(v)
	v, ok[1] = parseHex(next())
	k.Chrono = uint32(v)
	k.Day, ok[2] = keyDay(next())
	v, ok[3] = parseHex(next())
	k.Source = uint32(v)
	v, ok[4] = parseHex(next())
	k.HalfLife = uint32(v)
	v, ok[5] = parseHex(next())
	k.Flags = KeyFlags(v)
	ok[5] = ok[5] && k.Flags&^keyFlagsAll == 0
	k.TitleGroup, ok[6] = group(next())
	k.TitleTerms, ok[7] = parseHex(next())
	k.URLGroup, ok[8] = group(next())
	v, ok[9] = parseHex(next())
	k.OwnID = uint32(v)
	v, ok[10] = parseHex(next())
	k.OwnURI = uint32(v)
	k.Digest, ok[11] = parseHex(next())
	for i, good := range ok {
		if !good {
			return bad(fmt.Sprintf("column %d %q is not what docs.key holds there", i+1, keyColumn(line, i)))
		}
	}
	norms := line[pos : len(line)-1]
	if fields == 0 {
		if string(norms) != "-" {
			return bad("a base without fields has - for norms")
		}
		return k, nil
	}
	if cap(kd.arena)-len(kd.arena) < fields {
		kd.arena = make([]byte, 0, max(fields, 16<<10))
	}
	start := len(kd.arena)
	for _, c := range norms {
		d := digitValue[c]
		if d > MaxNorm {
			return bad(fmt.Sprintf("norm %q is not a length class 0-9a-v", c))
		}
		kd.arena = append(kd.arena, d)
	}
	k.Norms = kd.arena[start:len(kd.arena):len(kd.arena)]
	return k, nil
}

// keyColumn is fixed column i of a docs.key line, for error messages.
func keyColumn(line []byte, i int) string {
	p := 0
	for j := range i {
		p += keyColumns[j] + 1
	}
	return string(line[p : p+keyColumns[i]])
}

// digitValue maps each byte to its value as a digit of normDigits (hex
// digits are its first sixteen), and every other byte to 0xff: a key is
// decoded for every candidate of a query, tens of thousands for common
// words.
var digitValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for v, c := range []byte(normDigits) {
		t[c] = byte(v)
	}
	return t
}()

// parseHex reads lower-case hex digits, at most 16 of them, one at a time
// through digitValue.
func parseHex[T string | []byte](c T) (uint64, bool) {
	var v uint64
	var bad byte // any digit's table entry with a bit above the low four set
	for i := range len(c) {
		d := digitValue[c[i]]
		bad |= d
		v = v<<4 | uint64(d&0xf)
	}
	return v, bad < 16
}

// keyDay parses docs.key's day column: YYYY-MM-DD or ten dashes.
func keyDay(c []byte) (int32, bool) {
	if string(c) == "----------" {
		return 0, true
	}
	if c[4] != '-' || c[7] != '-' {
		return 0, false
	}
	var v int32
	for i, x := range c {
		if i == 4 || i == 7 {
			continue
		}
		if x < '0' || x > '9' {
			return 0, false
		}
		v = v*10 + int32(x-'0')
	}
	return v, v != 0
}

// KeyOffset reads the docs.tsv offset that starts a docs.key line, for a
// reader that needs only where a row is.
func KeyOffset(line []byte) (int64, error) {
	if len(line) < keyColumns[0]+1 || line[keyColumns[0]] != '\t' {
		return 0, &CorruptError{Path: DocsKeyPath, Msg: "a line does not start with a row offset and a TAB"}
	}
	v, ok := parseHex(line[:keyColumns[0]])
	if !ok {
		return 0, &CorruptError{Path: DocsKeyPath, Msg: fmt.Sprintf("row offset %q is not 12 hex digits", line[:keyColumns[0]])}
	}
	return int64(v), nil
}
