package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// decodeYAML decodes data (a whole YAML file, or the frontmatter of a page)
// into out, a non-nil pointer, turning every problem into a diagnostic on
// file. firstLine is the file line where data starts, so that diagnostics
// point at file lines even for frontmatter.
//
// yaml's own KnownFields mode stops at the first unknown key and says
// nothing about which keys would have been right, so decodeYAML walks the
// node tree against the type of out first and reports every unknown key,
// duplicate key and type mismatch with its own line and column. Only then
// does it let yaml fill out.
//
// It returns the top-level value node (nil for empty input or a syntax
// error; its lines are relative to data, so add firstLine-1) and whether
// decoding finished without errors. Like yaml itself, decodeYAML leaves
// fields the input does not mention as they were, so empty input leaves a
// fresh out at its zero value.
func decodeYAML(file string, data []byte, firstLine int, out any, ds *diag.List) (*yaml.Node, bool) {
	firstLine = max(firstLine, 1)
	target := reflect.ValueOf(out)
	if target.Kind() != reflect.Pointer || target.IsNil() {
		panic("decodeYAML: out must be a non-nil pointer")
	}
	if !utf8.Valid(data) {
		line, col := diag.LineCol(data, int64(firstInvalidUTF8(data)))
		ds.Errorf(file, line+firstLine-1, col, "yaml-syntax", "the YAML is not valid UTF-8; save the file as UTF-8")
		return nil, false
	}
	doc, ok := parseYAML(file, data, firstLine, ds)
	if !ok {
		return nil, false
	}
	if doc == nil {
		return nil, true
	}
	root := doc.Content[0]
	c := &yamlChecker{file: file, shift: firstLine - 1, ds: ds, seen: map[checkKey]bool{}}
	c.check(root, target.Elem().Type(), "")
	if err := safeDecode(doc, out); err != nil {
		var te *yaml.TypeError
		switch {
		case errors.As(err, &te):
			// The walk reports what yaml reports, with better words; yaml's
			// own text is the fallback for anything the walk does not model.
			if !c.failed {
				for _, msg := range te.Errors {
					line, text := splitYAMLLine(msg)
					c.errorf(line, 0, "yaml-type", "%s; fix the value's type", text)
				}
			}
		default:
			c.errorf(1, 0, "yaml-syntax", "invalid YAML: %s; fix the YAML", trimYAMLPrefix(err.Error()))
		}
	}
	return root, !c.failed
}

// parseYAML parses data into a document node. A nil node with ok true means
// there is nothing to decode (empty input, only comments, or null). A second
// document is an error: yaml would silently ignore it.
func parseYAML(file string, data []byte, firstLine int, ds *diag.List) (doc *yaml.Node, ok bool) {
	syntax := func(err error) {
		line := syntaxErrorLine(err, data)
		ds.Errorf(file, line+firstLine-1, 0, "yaml-syntax", "invalid YAML: %s; fix the syntax on or just before this line (indentation, a missing ':' or an unclosed bracket or quote)", trimYAMLPrefix(stripLine(err.Error())))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n, extra yaml.Node
	if err := safeDecodeNext(dec, &n); errors.Is(err, io.EOF) {
		return nil, true
	} else if err != nil {
		syntax(err)
		return nil, false
	}
	if err := safeDecodeNext(dec, &extra); err == nil && !emptyDocument(&extra) {
		ds.Errorf(file, extra.Line+firstLine-1, 0, "yaml-syntax", "a second YAML document starts here; keep one document (remove the --- line and merge the keys)")
		return nil, false
	} else if err != nil && !errors.Is(err, io.EOF) {
		syntax(err)
		return nil, false
	}
	if emptyDocument(&n) {
		return nil, true
	}
	return &n, true
}

// emptyDocument reports whether a document holds nothing, or only null.
func emptyDocument(n *yaml.Node) bool {
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return true
	}
	top := n.Content[0]
	return top.Kind == yaml.ScalarNode && top.Tag == "!!null"
}

// safeDecodeNext and safeDecode turn a panic inside the yaml package into
// an error: a base must never crash the build.
func safeDecodeNext(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

func safeDecode(n *yaml.Node, out any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML decoder failed: %v", r)
		}
	}()
	return n.Decode(out)
}

// The patterns of the yaml package's error texts, compiled when an error
// is first reported: every process would otherwise compile them at start.
var (
	yamlLineRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): `) })
	yamlAnchorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unknown anchor '([^']*)' referenced`) })
)

// yamlParserProblems are the problems the yaml parser (not its scanner)
// reports. For these, yaml prints a 0-based line number; scanner problems
// print 1-based ones. The set is closed: it is the parser's source.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// syntaxErrorLine recovers a 1-based line (relative to data) from a yaml
// syntax error, which carries the line only in its text. A parser problem
// inside a nested block is reported at the line where that block starts.
func syntaxErrorLine(err error, data []byte) int {
	msg := err.Error()
	if m := yamlAnchorRE().FindStringSubmatch(msg); m != nil {
		if i := strings.Index(string(data), "*"+m[1]); i >= 0 {
			line, _ := diag.LineCol(data, int64(i))
			return line
		}
		return 1
	}
	m := yamlLineRE().FindStringSubmatch(msg)
	if m == nil {
		// yaml omits the line when its mark is on the first line.
		return 1
	}
	n, _ := strconv.Atoi(m[1])
	if slices.Contains(yamlParserProblems, msg[len(m[0]):]) {
		n++
	}
	return max(n, 1)
}

// splitYAMLLine splits yaml's "line N: text" into N and text.
func splitYAMLLine(msg string) (int, string) {
	m := yamlLineRE().FindStringSubmatch(msg)
	if m == nil {
		return 1, msg
	}
	n, _ := strconv.Atoi(m[1])
	return n, msg[len(m[0]):]
}

func stripLine(msg string) string {
	_, text := splitYAMLLine(msg)
	return text
}

func trimYAMLPrefix(msg string) string { return strings.TrimPrefix(msg, "yaml: ") }

// firstInvalidUTF8 returns the byte offset of the first invalid UTF-8
// sequence in data.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}
