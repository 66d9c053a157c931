// Package load is the first build stage: it finds the base's files, hashes
// them stat-first, and decodes the configuration, record documents, pages,
// cached bodies, governance files and content files into model values.
//
// In: an fs.FS rooted at the base, this machine's stat cache and the
// previous build's manifest. Scan finds and hashes the inputs and gives
// each group's input key; the caller decides from the keys which groups
// to Parse (Run decides by a predicate on the keys). Out: the decoded base,
// the stamp of every input, each group's key and every diagnostic, sorted;
// and the content files it did not read again, with their counts from the
// previous usage.tsv, when those counts still hold.
//
// It must not write anything, read outside the FS, look at the clock or the
// environment, or stop at the first mistake: every bad input becomes a
// diagnostic naming the file, line and fix, and loading goes on.
package load
