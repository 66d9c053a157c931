// Package artifacts is the on-disk contract between the build and the query
// stage: the name, version and byte layout of every file under .cairn/ and
// of cairn's section in the rules files, how each is encoded and decoded,
// and Sync, the only code that puts them in place. A build writes its
// large tables through a Spool as it encodes them, into temporary files
// that Sync renames over their names (or removes, when the bytes there are
// the same), so that no table is ever held whole in memory. What a build
// makes on the way and reads back before it ends (the reduced runs of its
// corpus) goes to a Scratch, a temporary file of the same naming that the
// build removes and the next Sync sweeps if the build was killed; its
// layout belongs to the stage that writes it and is never read by a query.
//
// Every artifact is plain UTF-8 text, LF line endings, sorted, with no
// timestamps, so the same base gives the same bytes on every machine. Each
// TSV starts with one header line `#cairn <name> v<version>` followed by its
// column names; readers reject a header they do not know.
//
// docs.tsv — one row per searchable item, sorted by URI. The row number
// (0-based, header excluded) is the item's ordinal, which postings refer to.
//
//	uri      page path, or a record's URI from its # (#<percent-encoded
//	         id>): the URI is <document path>#<id>, and documents.tsv holds
//	         the path once for all of the document's records
//	kind     events | index | wiki | projects | tasks
//	source   the record's source; for pages, their layer
//	date     YYYY-MM-DD or -
//	         (a record's kind, source and date are its document's, which
//	         documents.tsv holds: the three cells of a record's row are
//	         empty, and a reader takes them from the document whose range
//	         of records, first and records, holds the row's ordinal)
//	time     RFC 3339 UTC or -; a record's time on its document's date is
//	         written from its T (T09:14:00Z), the date being the document's
//	valid    <valid_from>..<valid_until> (either side may be empty) or -
//	flags    comma-separated sorted policy and status flags, or -; empty
//	         for a record whose flags are the ones its source gives
//	         (its document's row holds them)
//	span     <byte offset>+<byte length> of the record inside its document, or -
//	urlkey   16 hex digits: xxhash64 of the item's url field value, or -
//	title    the item's title (tabs and line breaks as spaces), or -
//
// docs.key — one fixed-width line per docs.tsv row, after a header line
// "#cairn docs.key v<version> width <W>" padded with spaces to the same
// width W, so the line of ordinal i starts at byte W·(i+1). It holds, for
// every item, what a query ranks by, so that a query reads about a hundred
// bytes per candidate and the docs.tsv rows of only the items a pack
// shows. Its numbers are base 32 with the digits 0-9a-v (RFC 4648's
// base32hex in lower case), zero-padded to their column's width; the
// columns follow each other without a separator, at fixed places:
//
//	offset    8 digits: where the item's row starts in docs.tsv
//	chrono    6: the item's rank newest first (time, else date; URI breaks
//	          ties)
//	day       6: the number YYYYMMDD when the row's date is a valid day
//	          (20261102 is 0jaa7e), else 6 dashes
//	source    4: the rank of the item's source among the base's sources
//	halflife  4: the source's recency half-life in days, 0 for none
//	flags     3: bits, from the lowest: created, superseded, done,
//	          deprecated, nav, active, received, private (the row's flags),
//	          page (kind wiki or projects), project (kind projects), record
//	          (the row has a span), id (the URI has #id), dated, bounded
//	          (a validity bound)
//	tgroup    6: the ordinal of the first item of the same source and
//	          title, or 6 dashes for an item without a title
//	tterms    7: the low 32 bits of xxhash64 of the title's query terms,
//	          each followed by NUL (the title's kept words, each once, in
//	          first-seen order); a query reads the row of a title whose
//	          hash is its query's to see whether the title is the query
//	ugroup    6: the ordinal of the first item of the same urlkey, or 6
//	          dashes
//	ownid     7: the low 32 bits of xxhash64 of the record's decoded id,
//	          case folded (every rune as the least of its simple
//	          case-folding orbit); 0 for an item without an id
//	ownuri    7: the same of the URI
//	digest    13: xxhash64 of the item's projected semantics (docs.tsv
//	          does not repeat it)
//	norms     one digit per field of fields.tsv, by ordinal: 0 when the
//	          item has no words in the field, else the length class of its
//	          n words (NormOf: half an octave wide, 1 to 31); - for a base
//	          without fields. An item's word counts are stored only so:
//	          ranking reads them as classes, and whether an item has a
//	          field is whether its class is not 0.
//
// Every line ends with LF. A 40-bit offset addresses a docs.tsv of a
// TiB; the 6-digit columns hold an ordinal of up to a billion items
// (MaxItems), the source column a million sources (MaxSources), the
// 7-digit ones any 32-bit value and the 13-digit ones any 64-bit hash: a
// build past them stops with an error.
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
//	df        number of items whose postings hold the term (decimal)
//	postings  the byte range of the term's line in postings.tsv,
//	          offset+length (the LF included) in base 32 as docs.key's
//	          numbers; or, for a term one item holds (df 1), which has no
//	          line, its postings themselves, as a line would hold them:
//	          most terms (a commit's hash, a message id, a run's URL)
//	          are one item's, and their postings are shorter than a
//	          range
//
// postings.tsv — one line per term more than one item holds, in the
// order of terms.tsv (the term itself is written once, in the dictionary): the
// postings of each item that holds the term, by rising item, with no
// separator between them. An item's postings are <doc delta>:<field
// ordinal>, followed by x<tf> when the term occurs more than once in that
// field, then ,<field ordinal>[x<tf>] for each further field of the same
// item, by rising ordinal. Every number ends itself: its last digit is
// base 32 as in docs.key (0-9a-v), worth the value mod 32, and the digits
// before it, when the value is 32 or more, are upper-case letters A-Z, a
// base-26 number worth the value div 32, without a leading A (31 is v, 40
// is B8, 832 is BA0). The doc delta is the item ordinal minus the
// previous item's (the first is relative to 0, and only it may be 0). The
// :<field ordinal> is left out when it is the field of the posting just
// before (the first posting of a line always names its own), so a term
// found in one field of many items costs a number per item, most often
// one byte. Postings are sorted by item then field; "3:v,B1x29" is item 3
// in fields 31 and 33 (twice), then item 12 in field 33. A query reads
// terms.tsv (a term's row), then only the byte ranges of its terms in
// postings.tsv, each with the LF before it, which proves the range starts
// a line.
//
// edges.tsv — the graph by source, records' edges left out: one line per
// page and alias with edges, sorted by node, listing its outgoing edges
// sorted by kind then destination:
//
//	<src> TAB <kind>=<dst> TAB <kind>=<dst> ...
//
// src is a page's path, or an alias for same-as edges; kind is
// rel:<field>, tag, link, same-as or supersedes (a kind never holds "=");
// dst is an entity URI, an https URL, a base-relative path (with #anchor)
// or tag:<name>. An edge's time is its source item's time in docs.tsv. A
// record's edges are a function of its span and its document's fields map
// (the record projected again, as a query does to show it), so they are
// not stored by source: a reader wanting them projects the record, and
// joins the line an alias of the same name may have. edges.dst.tsv holds
// every edge, the records' too.
//
// edges.dst.tsv — the same edges by destination: one line per destination
// node, sorted by node, listing its inbound edges newest source first (then
// by kind and ordinal):
//
//	<dst> TAB <kind>=<src> TAB =<src> TAB <kind>=<src> ...
//
// where an item source is written #<ordinal> (its row in docs.tsv, in
// base 32 as docs.key's numbers) and an alias as itself, and a link's
// kind is left out when it is the kind of the link before it (a hub's
// inbound edges come in runs of one kind: the attendees of meetings, the
// authors of commits). A reader that wants the newest N inbound edges of
// a hub reads one line and stops after N links.
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
//	first      the ordinal of the first of them in docs.tsv, where they
//	           follow each other, or - when it holds none
//	flags      the flags its source gives a record whose fields name no
//	           category or visibility, comma-separated, or -
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
// rules.json — the resolved rules table the query stage reads: the
// governance resolved (by stages/lib/govern) at the project's default point
// and at every folder holding content files. One indented JSON object:
//
//	cairn-rules  1
//	format       FormatVersion
//	holds        {from, until}: the days, both inclusive, over which every
//	             answer below stays the same ("" or absent: unbounded); a
//	             build on a day outside them resolves again
//	voices       [{name, description, brief: [line...], valid_from,
//	             valid_until}] sorted by name: the writing brief, unsanitised
//	terms        [{id, term, status, kind, replacement, pattern, definition,
//	             language, note, paths, axes, valid_from, valid_until,
//	             established_by}] sorted by id: the terms in force, scope
//	             and window as the log leaves them
//	notes        [{target, text, op, actor, evidence, paths, axes,
//	             valid_from, valid_until}] sorted by target: notes a person
//	             kept
//	suggestions  [{op, target, kind (rule|note), status (suggested|
//	             contested), text, actor, session, evidence, contested_by,
//	             standing: {sessions, corrections, merges, merged_in},
//	             paths, axes, valid_from, valid_until}] sorted by op id; uses
//	             in content are not here but in the usage artifact
//	places       [{folder, files, point, binding, glob, axes, voice,
//	             voice_from, transitions: [{kind, name, valid_from,
//	             valid_until, closed, now}], terms, keep_as_is, notes,
//	             suggestions, coverage, missing, rules_files}] sorted by
//	             folder then files: one place per group of a folder's
//	             content files (named in files, directly in the folder)
//	             that get the same answer; the place with no files is the
//	             default point itself. terms and keep_as_is list term ids
//	             (discouraged first), notes list note targets (newest
//	             first), suggestions list op ids (newest first)
//	files        the rules files that hold cairn's section after the build
//
// Empty lists and empty strings are left out. Every reference names an
// entry of the table; the decoder refuses one that does not, and lists out
// of order.
//
// Rules files — AGENTS.md and CLAUDE.md in the project's folders are
// outputs too, but cairn owns only the section from a line
// <!-- cairn:rules --> through a line <!-- /cairn:rules -->. The manifest
// stamps such a file by that section alone (bytes and xxhash of those
// lines, their line breaks included), so what a person writes around it
// never makes the file look changed, and Sync never deletes one because a
// previous manifest named it: the rules stage names the files that lose
// their section (Plan.Release) or are left empty (Plan.Delete).
//
// Splicing — a build in which only record documents and pages changed
// makes the new index from the previous one (splice.go): docs.tsv rows of
// kept items are copied as they are, which holds because a row depends
// only on its item and the field ordinals, and a splice keeps fields.tsv
// or does not run; a kept docs.key line is copied with its offset,
// chrono, source, tgroup and ugroup columns rewritten (PatchKey), the
// only columns that depend on other rows; a postings line (or a term's
// postings in its row) is walked once,
// each kept item moved by its stretch and the postings whose delta is
// unchanged copied (SplicePostings). A change to any of these layouts
// must keep those three functions giving what the encoders give.
//
// manifest.json — written last. Format and ranking versions, the semantics
// digest, every input {path, bytes, xxhash}, every output {path, bytes,
// xxhash} and the input key of each stage. File modification times are
// machine-local and would make two checkouts of one base build different
// bytes, so they live in a per-machine stat cache instead (see StatCache).
package artifacts
