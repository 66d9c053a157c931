// Package rules is the build stage that writes what applies at each folder
// of the content tree where an agent reads it without asking: a delimited
// section of the AGENTS.md and CLAUDE.md there, and the resolved rules
// table (.cairn/rules.json) for the query stage.
//
// In: the configuration (governance caps), the governance (voices, terms,
// the operation log), the content files (their paths and frontmatter
// point:), the text of every AGENTS.md and CLAUDE.md in the base, and the
// day windows are evaluated at. Out: whole new contents of the rules files
// that carry cairn's section, the files that lose it (rewritten with the
// text around it kept, or deleted when nothing else was there), the rules
// table, the rules files as Sync will leave them (for the stage key), the
// days the output holds for, and warnings.
//
// What is written: the root section holds the answer at the project's
// default point (its voice brief, the rules an agent writing the source can
// break, the notes a person kept), one line per folder with rules of its
// own, the check line and the line that records an observation. A folder
// gets a section when its answer differs from what the nearest ruled
// folder above says, unless the section would repeat that folder's; it
// holds the rules the root does not state, its voice when another is in
// force above, Keep as it is lines, its notes and the notes above that do
// not hold there. Only what is in force is written: agent suggestions
// never are. Stored text is sanitised into plain capped lines.
//
// It must not read or write files, look at the clock or the environment:
// the same input gives the same bytes.
package rules
