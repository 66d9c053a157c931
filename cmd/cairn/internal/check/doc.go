// Package check is the enforcing half of the rules files: it checks
// content files against the governance in force at each file's point
// (cairn check), and renders the findings as text, JSON or SARIF 2.1.0.
//
// In: the base as an io/fs.FS, its governance as load.ReadGovernance
// reads it, the content files to check (Select lists them), and the day
// every window is evaluated at. Out: Findings, sorted, and the
// diagnostics of files that could not be checked. It must not write
// anything, read the clock or the environment, or read a content file it
// was not asked to check: checking one file reads that file and the
// governance, and nothing else of the base.
//
// The governance at a file is resolved by stages/lib/govern, the resolution
// cairn context --at answers with and the rules files are written from, so
// a finding is always a rule those two show for the file. What is found:
//
//   - terms.forbidden:<id>, terms.deprecated:<id>: a discouraged term bound
//     at the file, with its replacement (error for forbidden, warning for
//     deprecated);
//   - terms.name:<id>: a name (kind: name) written other than exactly,
//     such as harbor or HARBOR for Harbor (error);
//   - terms.keep:<id>: the new wording of a rename that holds elsewhere
//     and not here, where the rules files say to keep the old one ("Keep as
//     it is"): error, or warning when the rule is only deprecated;
//   - voice.prohibited:<voice>#<n>, voice.required:<voice>#<n>: a match of
//     the voice's n-th prohibited pattern, or a file with no match of its
//     n-th required one, at the severity the pattern declares (warning
//     when it declares none).
//
// Terms are found by stages/usage's matcher, so a finding is a use the
// usage counts count: case-insensitive, whole words, any run of white
// space matching any run, no overlapping matches of one term. What is
// searched differs: usage counts the whole file, while a check reads the
// prose only. Frontmatter, fenced code blocks and inline code spans are
// blanked first (their bytes stand in as NUL, so every offset, line and
// column stays the file's), because a command name in backticks is not a
// misspelt name and a config key in a code block is not a wording choice.
//
// Positions are 1-based lines and columns; a column counts Unicode code
// points (runes), not bytes, so it is the same column an editor shows for
// a line of accented text. SARIF says so with columnKind
// unicodeCodePoints.
package check
