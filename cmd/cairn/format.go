package main

// The output formats, one set of names across every command:
//
//	text      for a person (the default); for a by-location answer it is
//	          Markdown, which --format markdown also names
//	json      one indented document, for a program
//	jsonl     the same document on one line (packs and searches, which a
//	          program may collect line by line)
//	sarif     SARIF 2.1.0, for code scanning (cairn check)
//
// Data goes to stdout in every format; progress, warnings and errors go to
// stderr, so a program parsing the JSON reads stdout alone.
const (
	formatText = "text"
	formatJSON = "json"
)

// jsonFormat is the --format flag of a command whose answer is a report:
// text for a person, json for a program.
type jsonFormat struct {
	Format string `help:"Output format: text, or json for a program." default:"text" enum:"text,json" placeholder:"FORMAT"`
}

// json reports whether the command prints JSON.
func (f jsonFormat) json() bool { return f.Format == formatJSON }
