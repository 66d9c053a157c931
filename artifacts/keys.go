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
	// TitleTerms hashes the title's terms as a query would normalise it
	// (32 bits: a query reads the row of a title whose hash is the
	// query's to see whether it is),
	// so a query can tell which titles may be the whole query.
	TitleTerms uint32
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

// Where each of docs.key's columns starts in a line, in order: each is a
// fixed number of base-32 digits (the day, of decimal ones), with no
// separator, and the norms follow the last. A column is as wide as its
// values need: an item ordinal (the rank and the two groups) 30 bits, a
// billion items; a source's rank 20 bits; a 32-bit value 35 and a 64-bit
// hash 65.
const (
	keyOffsetAt     = 0                   // 8 digits: 40 bits, a docs.tsv of up to a TiB
	keyChronoAt     = keyOffsetAt + 8     // 6 digits: an ordinal
	keyDayAt        = keyChronoAt + 6     // 6 digits: YYYYMMDD as a number, or 6 dashes
	keySourceAt     = keyDayAt + 6        // 4 digits
	keyHalfLifeAt   = keySourceAt + 4     // 4 digits: 2^20 days, above the longest half-life a configuration allows
	keyFlagsAt      = keyHalfLifeAt + 4   // 3 digits: 15 bits
	keyTitleAt      = keyFlagsAt + 3      // 6, an ordinal, or 6 dashes
	keyTitleTermsAt = keyTitleAt + 6      // 7 digits: a 32-bit hash
	keyURLAt        = keyTitleTermsAt + 7 // 6, an ordinal, or 6 dashes
	keyOwnIDAt      = keyURLAt + 6        // 7 digits: a 32-bit hash
	keyOwnURIAt     = keyOwnIDAt + 7      // 7
	keyDigestAt     = keyOwnURIAt + 7     // 13
	keyNormsAt      = keyDigestAt + 13    // one digit per field
)

// MaxItems is how many items docs.key's ordinal columns can number, and
// MaxSources how many sources its source column can rank.
const (
	MaxItems   = 1 << 30
	MaxSources = 1 << 20
)

// keyColumnNames name docs.key's columns, from each one's start to the
// next one's, for error messages.
var keyColumnNames = [...]struct {
	name   string
	at, to int
}{
	{"offset", keyOffsetAt, keyChronoAt}, {"chrono", keyChronoAt, keyDayAt}, {"day", keyDayAt, keySourceAt},
	{"source", keySourceAt, keyHalfLifeAt}, {"halflife", keyHalfLifeAt, keyFlagsAt}, {"flags", keyFlagsAt, keyTitleAt},
	{"tgroup", keyTitleAt, keyTitleTermsAt}, {"tterms", keyTitleTermsAt, keyURLAt}, {"ugroup", keyURLAt, keyOwnIDAt},
	{"ownid", keyOwnIDAt, keyOwnURIAt}, {"ownuri", keyOwnURIAt, keyDigestAt}, {"digest", keyDigestAt, keyNormsAt},
}

// keyFixedWidth is a docs.key line less its norms: the columns and the LF.
const keyFixedWidth = keyNormsAt + 1

// KeyPlaceColumns returns a docs.key line's source column and title-terms
// column, as written, for a reader that sweeps every line for the few of
// one source and title without decoding them.
func KeyPlaceColumns(line []byte) (source, titleTerms []byte) {
	if len(line) < keyNormsAt {
		return nil, nil
	}
	return line[keySourceAt:keyHalfLifeAt], line[keyTitleTermsAt:keyURLAt]
}

// KeySourceColumn and KeyTitleTermsColumn write the two columns
// KeyPlaceColumns reads, for a key of the given source rank or title-terms
// hash.
func KeySourceColumn(source uint32) []byte {
	c := make([]byte, keyHalfLifeAt-keySourceAt)
	putBase32(c, uint64(source))
	return c
}

// KeyTitleTermsColumn: see KeySourceColumn.
func KeyTitleTermsColumn(hash uint32) []byte {
	c := make([]byte, keyURLAt-keyTitleTermsAt)
	putBase32(c, uint64(hash))
	return c
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

// appendKey appends k's docs.key line.
func appendKey(b []byte, k *Key, fields int) ([]byte, error) {
	if len(k.Norms) != fields {
		return nil, fmt.Errorf("%d norms for %d fields", len(k.Norms), fields)
	}
	if k.Offset < 0 || k.Offset >= 1<<40 {
		return nil, fmt.Errorf("row offset %d does not fit docs.key's 40 bits", k.Offset)
	}
	if d := k.Day; d < 0 || d > maxDay {
		return nil, fmt.Errorf("day %d is not YYYYMMDD", d)
	}
	n := len(b)
	b = append(b, make([]byte, keyNormsAt)...)
	l := b[n:]
	if err := putPlaced(l, k); err != nil {
		return nil, err
	}
	putDay(l[keyDayAt:keySourceAt], k.Day)
	if !putBase32(l[keyHalfLifeAt:keyFlagsAt], uint64(k.HalfLife)) {
		return nil, fmt.Errorf("half-life %d days does not fit docs.key's 20 bits", k.HalfLife)
	}
	if k.Flags&^keyFlagsAll != 0 {
		return nil, fmt.Errorf("flags %#x hold bits no flag has", k.Flags)
	}
	putBase32(l[keyFlagsAt:keyTitleAt], uint64(k.Flags))
	putBase32(l[keyTitleTermsAt:keyURLAt], uint64(k.TitleTerms))
	putBase32(l[keyOwnIDAt:keyOwnURIAt], uint64(k.OwnID))
	putBase32(l[keyOwnURIAt:keyDigestAt], uint64(k.OwnURI))
	putBase32(l[keyDigestAt:keyNormsAt], k.Digest)
	if fields == 0 {
		b = append(b, '-')
	}
	for _, c := range k.Norms {
		if c > MaxNorm {
			return nil, fmt.Errorf("length class %d is above %d", c, MaxNorm)
		}
		b = append(b, digits32[c])
	}
	return append(b, '\n'), nil
}

// putDay writes a day column: the number YYYYMMDD, or dashes for 0.
func putDay(dst []byte, d int32) {
	if d == 0 {
		copy(dst, "------")
		return
	}
	putBase32(dst, uint64(d))
}

// putPlaced writes the columns of a key line l that place the row among
// the others: its offset, its newest-first rank, its source's rank and
// its title and URL groups, or says which one does not fit.
func putPlaced(l []byte, k *Key) error {
	switch {
	case k.Offset < 0 || k.Offset >= 1<<40:
		return fmt.Errorf("row offset %d does not fit docs.key's 40 bits", k.Offset)
	case k.Chrono >= MaxItems || k.TitleGroup >= MaxItems || k.URLGroup >= MaxItems:
		return fmt.Errorf("rank %d or group %d or %d is past the %d items docs.key can number", k.Chrono, k.TitleGroup, k.URLGroup, MaxItems)
	case k.Source >= MaxSources:
		return fmt.Errorf("source rank %d is past the %d sources docs.key can rank", k.Source, MaxSources)
	}
	putBase32(l[keyOffsetAt:keyChronoAt], uint64(k.Offset))
	putBase32(l[keyChronoAt:keyDayAt], uint64(k.Chrono))
	putBase32(l[keySourceAt:keyHalfLifeAt], uint64(k.Source))
	putGroup(l[keyTitleAt:keyTitleTermsAt], k.TitleGroup)
	putGroup(l[keyURLAt:keyOwnIDAt], k.URLGroup)
	return nil
}

// putGroup writes a title or URL group column: the group's first ordinal,
// or dashes for none.
func putGroup(dst []byte, g int32) {
	if g < 0 {
		copy(dst, "------")
	} else {
		putBase32(dst, uint64(g))
	}
}

// groupValue reads a group column: an ordinal, or dashes for none.
func groupValue(c []byte) (int32, bool) {
	if string(c) == "------" {
		return -1, true
	}
	v, ok := parseBase32(c)
	return int32(v), ok // six digits hold less than MaxItems
}

// uint32Value reads a column of a 32-bit value.
func uint32Value(c []byte) (uint32, bool) {
	v, ok := parseBase32(c)
	return uint32(v), ok && v <= math.MaxUint32
}

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
	var ok [len(keyColumnNames)]bool
	col := func(i int) []byte { return line[keyColumnNames[i].at:keyColumnNames[i].to] }
	var v uint64
	v, ok[0] = parseBase32(col(0))
	k.Offset = int64(v)
	k.Chrono, ok[1] = uint32Value(col(1))
	k.Day, ok[2] = keyDay(col(2))
	k.Source, ok[3] = uint32Value(col(3))
	k.HalfLife, ok[4] = uint32Value(col(4))
	v, ok[5] = parseBase32(col(5))
	k.Flags = KeyFlags(v)
	ok[5] = ok[5] && v&^uint64(keyFlagsAll) == 0
	k.TitleGroup, ok[6] = groupValue(col(6))
	k.TitleTerms, ok[7] = uint32Value(col(7))
	k.URLGroup, ok[8] = groupValue(col(8))
	k.OwnID, ok[9] = uint32Value(col(9))
	k.OwnURI, ok[10] = uint32Value(col(10))
	k.Digest, ok[11] = parseBase32(col(11))
	for i, good := range ok {
		if !good {
			c := keyColumnNames[i]
			return bad(fmt.Sprintf("column %s %q is not what docs.key holds there", c.name, line[c.at:c.to]))
		}
	}
	norms := line[keyNormsAt : len(line)-1]
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

// keyDay parses docs.key's day column: the number YYYYMMDD, or dashes.
func keyDay(c []byte) (int32, bool) {
	if string(c) == "------" {
		return 0, true
	}
	v, ok := parseBase32(c)
	return int32(v), ok && v != 0 && v <= maxDay
}

// maxDay is the last day docs.key's day column holds.
const maxDay = 99991231

// KeyOffset reads the docs.tsv offset that starts a docs.key line, for a
// reader that needs only where a row is.
func KeyOffset(line []byte) (int64, error) {
	if len(line) < keyChronoAt {
		return 0, &CorruptError{Path: DocsKeyPath, Msg: "a line is too short to start with a row offset"}
	}
	v, ok := parseBase32(line[keyOffsetAt:keyChronoAt])
	if !ok {
		return 0, &CorruptError{Path: DocsKeyPath, Msg: fmt.Sprintf("row offset %q is not 8 base-32 digits", line[keyOffsetAt:keyChronoAt])}
	}
	return int64(v), nil
}
