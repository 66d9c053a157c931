// Package artifacts is the on-disk contract between the build and the query
// stage: the name, version and byte layout of every file under .cairn/, how
// each is encoded and decoded, and Sync, the only code that writes them.
//
// Every artifact is plain UTF-8 text, LF line endings, sorted, with no
// timestamps, so the same base gives the same bytes on every machine. Each
// TSV starts with one header line `#cairn <name> v<version>` followed by its
// column names; readers reject a header they do not know.
//
// docs.tsv — one row per searchable item, sorted by URI. The row number
// (0-based, header excluded) is the item's ordinal, which postings refer to.
//
//	uri      record URI (<document path>#<percent-encoded id>) or page path
//	kind     events | index | wiki | projects | tasks
//	source   the record's source; for pages, their layer
//	date     YYYY-MM-DD or -
//	time     RFC 3339 UTC or -
//	valid    <valid_from>..<valid_until> (either side may be empty) or -
//	flags    comma-separated sorted policy and status flags, or -
//	lengths  comma-separated <field ordinal>:<word tokens>, by field ordinal
//	digest   16 hex digits: xxhash64 of the item's projected semantics
//	span     <byte offset>+<byte length> of the record inside its document, or -
//	urlkey   16 hex digits: xxhash64 of the item's url field value, or -
//	title    the item's title (tabs and line breaks as spaces), or -
//
// docs.off — fixed-width offsets of docs.tsv rows, so that a reader can fetch
// the row of ordinal i without reading the file: line i (0-based, after a
// header line of the same width) holds the byte offset of row i in docs.tsv,
// as 19 decimal digits and LF.
//
// fields.tsv — the fields that carry searchable text, sorted by name; the
// row number is the field ordinal used by docs.tsv and postings.tsv.
//
//	name    field name
//	weight  ranking weight under the root schema
//
// terms.tsv — the term dictionary, sorted bytewise by term.
//
//	term    a lowercased word of 3+ runes, an identifier token (a run
//	        holding - / : @ or . inside it, such as har-142), or =<value>,
//	        an exact identifier (a relation value and its identity and
//	        suffix forms, a slug, an alias, a title without spaces)
//	df      number of items whose postings hold the term
//	offset  byte offset of the term's line in postings.tsv
//	length  byte length of that line, LF included
//
// postings.tsv — one line per term, in the dictionary's order:
//
//	<term> TAB <posting> SP <posting> ...
//
// and each posting is <doc delta>:<field ordinal>, followed by x<tf> when the
// term occurs more than once in that field. The doc delta is the item
// ordinal minus the previous posting's (the first is relative to 0), so a
// term in two fields of one item has a second delta of 0. Postings are
// sorted by item then field. A query reads terms.tsv, then only the byte
// ranges of its terms in postings.tsv.
//
// edges.tsv — the graph by source: one line per source node, sorted by
// node, listing its outgoing edges sorted by kind then destination:
//
//	<src> TAB <kind>=<dst> TAB <kind>=<dst> ...
//
// src is an item URI, or an alias for same-as edges; kind is rel:<field>,
// tag, link, same-as or supersedes (a kind never holds "="); dst is an
// entity URI, an https URL, a base-relative path (with #anchor) or
// tag:<name>. An edge's time is its source item's time in docs.tsv.
//
// edges.dst.tsv — the same edges by destination: one line per destination
// node, sorted by node, listing its inbound edges newest source first (then
// by kind and ordinal):
//
//	<dst> TAB <kind>=<src> TAB ...
//
// where an item source is written #<ordinal> (its row in docs.tsv) and an
// alias as itself. A reader that wants the newest N inbound edges of a hub
// reads one line and stops after N links.
//
// documents.tsv — one row per record document, sorted by path: what a
// reader needs to project one record from its span without reading the
// rest of its document.
//
//	path       the document's base-relative path
//	layer      events | index
//	source     the source name
//	date       YYYY-MM-DD, or - for snapshots
//	records    how many records it holds
//	relations  comma-separated fields that hold relations, or -
//	fields     the fields map as compact JSON: {"field": ["path", ...]}
//
// bodies.tsv — one row per verified cached body, sorted by record URI:
//
//	uri     the record's URI
//	path    the body file, base-relative
//	bytes   its size
//	sha256  its SHA-256, as verified by the build
//
// usage.tsv — how often the content files use each term of the terms
// store. One section per term, sections sorted bytewise by term id; a
// section is the term's totals row, then a row for each content file that
// uses the term, most uses first, ties by path:
//
//	term   the term's id
//	path   . on the totals row (the base root, never a content file);
//	       otherwise a content file's base-relative path
//	count  on the totals row, the term's uses in every content file (0
//	       when no file uses it); otherwise that file's uses, at least 1
//
// Every term of the store has a section, so a term without one was not in
// the store at build time. A reader finds a term by binary search
// (LookupUsage), reads its total and stops after its top N uses; the next
// build reads back the rows of the content files that did not change
// instead of reading those files. The counting rules (package
// stages/usage) are part of this format: changing them bumps
// FormatVersion.
//
// manifest.json — written last. Format and ranking versions, the semantics
// digest, every input {path, bytes, xxhash}, every output {path, bytes,
// xxhash} and the input key of each stage. File modification times are
// machine-local and would make two checkouts of one base build different
// bytes, so they live in a per-machine stat cache instead (see StatCache).
package artifacts
