package check

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// Formats of a check's output.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatSARIF = "sarif"
)

// SARIF constants: the version this renders and its schema.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// InformationURI is where the tool's rules are explained.
	InformationURI = "https://github.com/cairn-kb/cairn#cairn-check"
)

// Text renders the findings one a line: file:line:col: severity: message
// [rule]. No findings render nothing. A file name or a wording quoted
// from the content that could act on the reader's display is escaped
// (escape.Line).
func Text(o Output) []byte {
	var b strings.Builder
	for _, f := range o.Findings {
		b.WriteString(escape.Line(f.String()))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// jsonDoc is what --format json prints.
type jsonDoc struct {
	AsOf     string `json:"as_of"`
	Checked  int    `json:"checked"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	// Suppressed counts the findings directives and check.ignore left out.
	Suppressed int       `json:"suppressed"`
	Findings   []Finding `json:"findings"`
	Rules      []Rule    `json:"rules"`
}

// JSON renders the output as one JSON document: the counts, the findings
// and the rules they name. It is printed even when nothing was found, so
// a program always has a document to read.
func JSON(o Output, asOf string) []byte {
	d := jsonDoc{AsOf: asOf, Checked: o.Checked, Errors: o.Errors(), Suppressed: o.Suppressed, Findings: o.Findings, Rules: o.Rules}
	for _, f := range o.Findings {
		if f.Severity == SeverityWarning {
			d.Warnings++
		}
	}
	if d.Findings == nil {
		d.Findings = []Finding{}
	}
	if d.Rules == nil {
		d.Rules = []Rule{}
	}
	return marshal(d)
}

// The SARIF 2.1.0 objects this renders: the properties the schema
// requires, and the ones code-scanning UIs show.
type (
	sarifLog struct {
		Version string     `json:"version"`
		Schema  string     `json:"$schema"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		ShortDescription     sarifMessage `json:"shortDescription"`
		FullDescription      sarifMessage `json:"fullDescription"`
		Help                 sarifMessage `json:"help"`
		DefaultConfiguration sarifConfig  `json:"defaultConfiguration"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine"`
		EndColumn   int `json:"endColumn"`
	}
)

// level maps a severity to a SARIF level: info is SARIF's note.
func level(severity string) string {
	if severity == SeverityInfo {
		return "note"
	}
	return severity
}

// SARIF renders the output as a SARIF 2.1.0 log with one run, for code
// scanning: every rule a finding names, and one result per finding whose
// location is the file's base-relative path.
func SARIF(o Output, toolVersion string) []byte {
	driver := sarifDriver{Name: "cairn", Version: toolVersion, InformationURI: InformationURI, Rules: []sarifRule{}}
	index := map[string]int{}
	for i, r := range o.Rules {
		index[r.ID] = i
		full := r.Short
		if r.Note != "" {
			full += " " + r.Note
		}
		driver.Rules = append(driver.Rules, sarifRule{ID: r.ID, ShortDescription: sarifMessage{r.Short},
			FullDescription: sarifMessage{full}, Help: sarifMessage{helpText(r, full)}, DefaultConfiguration: sarifConfig{level(r.Severity)}})
	}
	run := sarifRun{Tool: sarifTool{driver}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	for _, f := range o.Findings {
		run.Results = append(run.Results, sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: level(f.Severity), Message: sarifMessage{f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: uriOf(f.File)},
				Region:           sarifRegion{StartLine: f.Line, StartColumn: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn},
			}}},
		})
	}
	return marshal(sarifLog{Version: SARIFVersion, Schema: SARIFSchema, Runs: []sarifRun{run}})
}

// helpText is a rule's help in SARIF: what it asks, where the rule comes
// from, and how to leave a finding out where the wording is meant.
func helpText(r Rule, full string) string {
	from := "the terms store (terms.yaml in the governance folder)"
	if strings.HasPrefix(r.ID, "voice.") {
		from = "the voice profile in force there"
	}
	if !strings.HasSuffix(full, ".") {
		full += "."
	}
	return full + " The rule comes from " + from + "; `cairn context --at PATH` shows every rule in force at a file." +
		" Where this wording is meant (a quotation, a style guide), put <!-- cairn-disable-next-line " + r.ID + " --> above the line," +
		" or list the file under check.ignore in cairn.yaml."
}

// uriOf is a base-relative path as a relative URI reference: each
// segment percent-encoded, so a space or a # in a file name stays part of
// the path.
func uriOf(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// marshal encodes v indented, without HTML escaping, ending in a newline,
// with what could act on a reader's display escaped in its strings
// (escape.Bytes), which decode to the values as they are.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err) // plain structs of strings and ints always encode
	}
	return escape.Bytes(b.Bytes())
}
