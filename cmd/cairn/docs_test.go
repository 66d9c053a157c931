package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/cmd/cairn/internal/roff"
	"github.com/cairn-kb/cairn/stages/lib/markdown"
)

// benchReadmePath is cairn-bench's README, relative to this package.
const benchReadmePath = "../cairn-bench/README.md"

// docPaths are the Markdown files a reader browses: the README, the
// topics in the order cairn help lists them, and cairn-bench's README.
func docPaths() []string {
	paths := []string{readmePath}
	for _, tp := range topics {
		paths = append(paths, topicPath(tp.name))
	}
	return append(paths, benchReadmePath)
}

// scheme is the start of a link that leaves the repository.
var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// TestLinks: every relative link of the README, the topics and
// cairn-bench's README names a file or folder of the repository, and every
// #anchor names a heading of the Markdown file it points into, by GitHub's
// anchors, as the repository's pages are browsed.
func TestLinks(t *testing.T) {
	anchors := map[string][]string{} // file → its headings' anchors
	anchorsOf := func(p string) []string {
		if a, ok := anchors[p]; ok {
			return a
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var a []string
		for _, h := range markdown.Read(string(data)).Headings {
			a = append(a, h.Anchor)
		}
		anchors[p] = a
		return a
	}
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, doc := range docPaths() {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range markdown.Read(string(data)).Links {
			if scheme.MatchString(link) {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(link, "#")
			target := doc
			if path != "" {
				target = filepath.Join(filepath.Dir(doc), filepath.FromSlash(path))
				abs, err := filepath.Abs(target)
				if err != nil {
					t.Fatal(err)
				}
				if rel, err := filepath.Rel(root, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					t.Errorf("%s: link %q leaves the repository", doc, link)
					continue
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q names no file: %v", doc, link, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %q has an anchor into a file that is not Markdown", doc, link)
				continue
			}
			if !slices.Contains(anchorsOf(target), anchor) {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s; it has %s", doc, link, target, anchor, strings.Join(anchorsOf(target), " "))
			}
		}
	}
	if checked < len(topics) {
		t.Errorf("checked %d relative links; the README alone links every topic", checked)
	}
}

// TestTopics: every topic has its file and every file of help/ is a
// topic; cairn help lists each topic and prints it; a topic's first line is
// its title; and no topic shares its name with a command other than the
// one it documents, so `cairn help WORD` is never in doubt.
func TestTopics(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("help", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".md"))
	}
	var listed []string
	for _, tp := range topics {
		listed = append(listed, tp.name)
	}
	slices.Sort(names)
	sorted := slices.Sorted(slices.Values(listed))
	if !slices.Equal(names, sorted) {
		t.Errorf("help/ holds %v, the topics table lists %v", names, sorted)
	}
	code, list, stderr := cairn(t, "help")
	if code != 0 {
		t.Fatalf("cairn help exited %d: %s", code, stderr)
	}
	for _, tp := range topics {
		if !strings.Contains(list, "  "+tp.name+" ") {
			t.Errorf("cairn help does not list the topic %s:\n%s", tp.name, list)
		}
		code, out, stderr := cairn(t, "help", tp.name)
		want, err := os.ReadFile(topicPath(tp.name))
		if err != nil {
			t.Fatal(err)
		}
		if code != 0 || out != string(want) {
			t.Errorf("cairn help %s exited %d and printed %d bytes, not the %d of %s (stderr %q)", tp.name, code, len(out), len(want), topicPath(tp.name), stderr)
		}
		if !strings.HasPrefix(out, "# ") {
			t.Errorf("the topic %s does not start with its title, a level-1 heading", tp.name)
		}
	}
	code, _, stderr = cairn(t, "help", "rankng")
	if code != 2 || !strings.Contains(stderr, `"rankng" names no command and no topic`) {
		t.Errorf("cairn help rankng exited %d: %s", code, stderr)
	}
}

// TestEveryCommandNamesATopic: each command's help ends naming the topics
// that explain it, so that any flag's meaning is at most two steps from
// cairn --help (the command's help, then the topic); and each command a
// topic claims exists.
func TestEveryCommandNamesATopic(t *testing.T) {
	var cli CLI
	parser, err := newParser(&cli, &Env{})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden {
				continue
			}
			paths[commandPath(c)] = true
			walk(c)
		}
	}
	walk(parser.Model.Node)
	for p := range paths {
		names := topicsOf(p)
		if len(names) == 0 {
			t.Errorf("no topic explains cairn %s: name it in a topic's commands", p)
			continue
		}
		code, out, _ := cairn(t, append(strings.Fields(p), "--help")...)
		if want := "See also (cairn help TOPIC): " + strings.Join(names, ", ") + "\n"; code != 0 || !strings.HasSuffix(out, want) {
			t.Errorf("cairn %s --help does not end with %q:\n%s", p, want, out)
		}
	}
	for _, tp := range topics {
		for _, p := range tp.commands {
			if !paths[p] {
				t.Errorf("the topic %s claims the command %q, which cairn does not have", tp.name, p)
			}
		}
	}
	code, out, _ := cairn(t, "--help")
	if code != 0 || !strings.Contains(out, "Topics (cairn help TOPIC):\n") {
		t.Errorf("cairn --help does not list the topics:\n%s", out)
	}
}

// TestManPages: cairn(1) holds every command with its arguments and flags
// and names every topic's page; each topic's page holds each of the
// topic's sections; --dir writes them all; and, where man is installed
// (in CI it must be: .ci/run installs man-db), man -l renders every page
// without a warning from the formatter.
func TestManPages(t *testing.T) {
	var cli CLI
	parser, err := newParser(&cli, &Env{})
	if err != nil {
		t.Fatal(err)
	}
	code, page, stderr := cairn(t, "man")
	if code != 0 {
		t.Fatalf("cairn man exited %d: %s", code, stderr)
	}
	if !strings.HasPrefix(page, `.TH CAIRN 1 "" "cairn `+Version+`" "cairn manual"`+"\n") {
		t.Errorf("cairn(1) starts %q", page[:min(len(page), 80)])
	}
	for _, want := range []string{".SH NAME\n", ".SH SYNOPSIS\n", ".SH COMMANDS\n", ".SH TOPICS\n", ".SH \"SEE ALSO\"\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("cairn(1) has no %q", want)
		}
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden {
				continue
			}
			if len(c.Children) > 0 {
				walk(c)
				continue
			}
			if want := ".SS " + quoteMan("cairn "+c.Summary()); !strings.Contains(page, want+"\n") {
				t.Errorf("cairn(1) has no subsection %s", want)
			}
			for _, f := range c.Flags {
				if !f.Hidden && !strings.Contains(page, `\fB`+escapeMan(f.Summary())) {
					t.Errorf("cairn(1) lacks the flag %s of cairn %s", f.Summary(), commandPath(c))
				}
			}
		}
	}
	walk(parser.Model.Node)
	for _, tp := range topics {
		if !strings.Contains(page, `\fBcairn\-`+escapeMan(tp.name)+`\fR(7)`) {
			t.Errorf("cairn(1) does not name cairn-%s(7)", tp.name)
		}
		code, tpage, stderr := cairn(t, "man", tp.name)
		if code != 0 {
			t.Fatalf("cairn man %s exited %d: %s", tp.name, code, stderr)
		}
		if !strings.HasPrefix(tpage, ".TH CAIRN\\-"+strings.ToUpper(escapeMan(tp.name))+" 7 ") {
			t.Errorf("cairn-%s(7) starts %q", tp.name, tpage[:min(len(tpage), 60)])
		}
		for _, h := range markdown.Read(topicText(tp)).Headings {
			if h.Level == 2 && !strings.Contains(tpage, ".SH "+quoteMan(h.Text)+"\n") {
				t.Errorf("cairn-%s(7) lacks the section %q", tp.name, h.Text)
			}
		}
		for i, r := range tpage {
			if r > 0x7e {
				t.Errorf("cairn-%s(7) holds %q at byte %d: a page is ASCII, other runes escaped", tp.name, r, i)
				break
			}
		}
	}

	dir := t.TempDir()
	code, out, stderr := cairn(t, "man", "--dir", dir)
	if code != 0 {
		t.Fatalf("cairn man --dir exited %d: %s", code, stderr)
	}
	written, _ := filepath.Glob(filepath.Join(dir, "cairn*"))
	if len(written) != len(topics)+1 || strings.Count(out, "\n") != len(written) {
		t.Fatalf("cairn man --dir wrote %d pages and printed %q; want cairn.1 and %d topic pages", len(written), out, len(topics))
	}
	if data, err := os.ReadFile(filepath.Join(dir, "cairn.1")); err != nil || string(data) != page {
		t.Errorf("cairn man --dir wrote a cairn.1 other than cairn man prints (%v)", err)
	}

	man := needTool(t, "man", "install man-db (apt-get install man-db) to render the pages")
	for _, p := range written {
		cmd := exec.Command(man, "--warnings=w", "-l", p)
		cmd.Env = append(os.Environ(), "MANWIDTH=100", "MAN_KEEP_FORMATTING=", "MANPAGER=cat", "PAGER=cat", "LC_ALL=C.UTF-8")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("man -l %s: %v\n%s", filepath.Base(p), err, stderr.String())
			continue
		}
		name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		if !regexp.MustCompile(`\nNAME\n\s+` + regexp.QuoteMeta(name) + `\s+-\s`).MatchString(stdout.String()) {
			t.Errorf("man -l %s renders no NAME line for %s:\n%.400s", filepath.Base(p), name, stdout.String())
		}
	}
}

// escapeMan is text as the pages write it.
func escapeMan(s string) string { return roff.Escape(s) }

// quoteMan is a macro argument as the pages write it: escaped, and in
// quotes when it holds a space.
func quoteMan(s string) string {
	s = escapeMan(s)
	if strings.ContainsAny(s, " \"") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// TestREADMECommands: the README's table of commands has a row for each
// command cairn has, so that a newcomer sees them all in one place.
func TestREADMECommands(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Commands\n")
	if !ok {
		t.Fatal("the README has no ## Commands section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	var cli CLI
	parser, err := newParser(&cli, &Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range parser.Model.Node.Children {
		if !c.Hidden && !strings.Contains(table, "\n| `cairn "+c.Name) {
			t.Errorf("the README's table of commands has no row for cairn %s", c.Name)
		}
	}
}

// TestDevelopMapNamesEveryPackage: the develop topic's map of the code
// names every Go package of the repository, so that a new package cannot
// land without its line (a package of query also needs its rank in
// query/deps_test.go, which that test enforces).
func TestDevelopMapNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("help", "develop.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "\n## The code\n")
	section, _, _ = strings.Cut(section, "\n## ")
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "base" || d.Name() == "want") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		if named := regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(rel) + `/?(\s|$)`); !named.MatchString(section) && !seen[rel] {
			t.Errorf("the develop topic's map of the code does not name package %s", rel)
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArtifactsTopicNamesTheFormat: the artifacts topic says which format
// version the tables are in, and it is the one the binary writes.
func TestArtifactsTopicNamesTheFormat(t *testing.T) {
	data, err := topicFiles.ReadFile("help/artifacts.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`format\s+version\s+is\s+(\d+)\.`).FindSubmatch(data)
	if m == nil {
		t.Fatal("help/artifacts.md does not say which format version the tables are in")
	}
	if got, want := string(m[1]), strconv.Itoa(artifacts.FormatVersion); got != want {
		t.Errorf("help/artifacts.md says the format version is %s; the binary writes %s", got, want)
	}
}
