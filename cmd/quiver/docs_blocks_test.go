package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The code blocks of the README and docs/, as TestDocsExamples reads them.
// Every block is fenced (```), and the words after the fence's language
// say what the test does with it (docs/contributing.md, "Examples in the
// docs"):
//
//	```console                 $ commands run by bash, each followed by the output it must print
//	```gql                     statements run over HTTP, one per paragraph; each must succeed
//	```LANG file=NAME          written to NAME in the document's working directory
//	```yaml quiver-config      a configuration file quiver serve must start with
//	```text log                lines the server started last must have logged
//	```text layout             the source tree: it must name every Go package
//	```LANG not-run: REASON    not run, for the reason given
//
// An indented code block cannot carry these words, so it is an error, as
// is a fenced block with none of them.

// docBlock is one fenced code block of a markdown file.
type docBlock struct {
	file string
	line int    // 1-based line of the opening fence
	lang string // the info string's first word
	info string // the rest of the info string
	text string // the content, without the fences and their indentation
}

// docBlockKind is what the test does with a block.
type docBlockKind int

const (
	kindInvalid docBlockKind = iota
	kindConsole
	kindGQL
	kindFile
	kindConfig
	kindLog
	kindLayout
	kindNotRun
)

var (
	fileAttr   = regexp.MustCompile(`^file=(\S+)$`)
	notRunAttr = regexp.MustCompile(`^not-run:\s*\S`)
)

// kind classifies a block by its info string; for kindInvalid, reason
// says what is wrong.
func (b docBlock) kind() (k docBlockKind, reason string) {
	switch {
	case notRunAttr.MatchString(b.info):
		return kindNotRun, ""
	case strings.HasPrefix(b.info, "not-run"):
		return kindInvalid, "a not-run block says why after a colon (not-run: REASON)"
	case b.lang == "console" && b.info == "":
		return kindConsole, ""
	case b.lang == "gql" && b.info == "":
		return kindGQL, ""
	case fileAttr.MatchString(b.info):
		return kindFile, ""
	case b.lang == "yaml" && b.info == "quiver-config":
		return kindConfig, ""
	case b.lang == "text" && b.info == "log":
		return kindLog, ""
	case b.lang == "text" && b.info == "layout":
		return kindLayout, ""
	}
	return kindInvalid, fmt.Sprintf("a block (```%s %s) that is neither runnable nor marked not-run: REASON", b.lang, b.info)
}

// fileName is the name a kindFile block is written to.
func (b docBlock) fileName() string {
	return fileAttr.FindStringSubmatch(b.info)[1]
}

// listItem matches the start of a markdown list item; its length is the
// column the item's content starts at.
var listItem = regexp.MustCompile(`^ *(?:[-*+]|\d{1,9}[.)]) +`)

// parseDocBlocks splits markdown text into its fenced blocks. It knows of
// markdown only what the docs use: fences (``` or ~~~, possibly inside a
// list item), list items with their continuation lines, and the indented
// code block, which it reports (a line indented four columns past the
// enclosing list item's content, after a blank line).
func parseDocBlocks(path, text string) (blocks []docBlock, errs []error) {
	lines := strings.Split(text, "\n")
	content := 0 // the content column of the list item the text is in
	blank := true
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		if line == "" {
			blank = true
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		trimmed := line[indent:]
		if fence := fenceOf(trimmed); fence != "" {
			info := strings.TrimSpace(trimmed[len(fence):])
			lang, rest, _ := strings.Cut(info, " ")
			b := docBlock{file: path, line: i + 1, lang: lang, info: strings.TrimSpace(rest)}
			var body []string
			closed := false
			for i++; i < len(lines); i++ {
				l := strings.TrimRight(lines[i], "\r")
				if strings.HasPrefix(strings.TrimLeft(l, " "), fence) && strings.TrimSpace(strings.TrimLeft(l, " ")[len(fence):]) == "" {
					closed = true
					break
				}
				body = append(body, strings.TrimPrefix(l, strings.Repeat(" ", indent)))
			}
			if !closed {
				errs = append(errs, fmt.Errorf("%s:%d: a fence that is never closed", path, b.line))
			}
			b.text = strings.Join(body, "\n")
			blocks = append(blocks, b)
			blank = false
			continue
		}
		if m := listItem.FindString(line); m != "" {
			content = len(m)
		} else if blank && indent >= content+4 {
			errs = append(errs, fmt.Errorf("%s:%d: an indented code block: fence it (```) and say what it is (docs/contributing.md)", path, i+1))
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || strings.HasPrefix(lines[i+1], strings.Repeat(" ", content+4))) {
				i++
			}
		} else if blank && indent < content {
			content = 0 // a paragraph outside the list ends it
		}
		if indent == 0 && (strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "|")) {
			content = 0
		}
		blank = false
	}
	return blocks, errs
}

// fenceOf returns the fence a line opens (``` or ~~~, or longer), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// layoutPaths returns the directories a layout block names: the first
// word of each entry, under the entry it is indented below. A line that
// starts at or past the previous entry's description is its
// continuation.
func layoutPaths(text string) []string {
	type entry struct {
		indent int
		path   string
	}
	var stack []entry
	var paths []string
	descAt := -1
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" {
			continue
		}
		indent := len(line) - len(trimmed)
		if descAt >= 0 && indent >= descAt {
			continue
		}
		word, rest, _ := strings.Cut(trimmed, " ")
		descAt = len(line) - len(strings.TrimLeft(rest, " "))
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		path := word
		if len(stack) > 0 {
			path = stack[len(stack)-1].path + "/" + word
		}
		stack = append(stack, entry{indent, path})
		paths = append(paths, path)
	}
	return paths
}

// TestDocBlockParsing: the reader of TestDocsExamples finds fenced
// blocks (in list items too), reports indented code blocks but not list
// continuations, and classifies blocks by their fence's words.
func TestDocBlockParsing(t *testing.T) {
	text := "# T\n\nText\n\n    indented code\n\n- item\n\n  continued paragraph\n\n      code in an item\n\n" +
		"1. step\n   ```console\n   $ echo hi\n   hi\n   ```\n\n```gql\nRETURN 1\n```\n\n```json\n{}\n```\n\n" +
		"```text not-run: a diagram\nx\n```\n\n```csv file=a.csv\nid\n```\n"
	blocks, errs := parseDocBlocks("t.md", text)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "t.md:5:") || !strings.Contains(errs[1].Error(), "t.md:11:") {
		t.Fatalf("errors: %v", errs)
	}
	want := []struct {
		kind docBlockKind
		text string
	}{{kindConsole, "$ echo hi\nhi"}, {kindGQL, "RETURN 1"}, {kindInvalid, "{}"}, {kindNotRun, "x"}, {kindFile, "id"}}
	if len(blocks) != len(want) {
		t.Fatalf("blocks: %+v", blocks)
	}
	for i, w := range want {
		if k, _ := blocks[i].kind(); k != w.kind || blocks[i].text != w.text {
			t.Errorf("block %d: kind %d %q, want %d %q", i, k, blocks[i].text, w.kind, w.text)
		}
	}
	if blocks[4].fileName() != "a.csv" {
		t.Errorf("file name %q", blocks[4].fileName())
	}
	if _, errs := parseDocBlocks("u.md", "```sh\nopen\n"); len(errs) != 1 {
		t.Errorf("an unclosed fence: %v", errs)
	}
	paths := layoutPaths("engine        the engine\n  plan        the planner: a line\n              that goes on\n    opt       passes\nvector        vectors\n")
	if got := strings.Join(paths, " "); got != "engine engine/plan engine/plan/opt vector" {
		t.Errorf("layout paths: %s", got)
	}
}

// TestDocConsoleAndCompare: console blocks split into commands (with
// their continuation lines) and shown output; the comparison normalises
// what varies and reads "…" as any text.
func TestDocConsoleAndCompare(t *testing.T) {
	steps, err := parseConsole("$ curl -s x \\\n    -d '{\"a\":\n 1}'\n{\"ok\":true}\n$ true\n")
	if err != nil || len(steps) != 2 || steps[0].cmd != "curl -s x \\\n    -d '{\"a\":\n 1}'" || steps[0].want != "{\"ok\":true}\n" || strings.TrimSpace(steps[1].want) != "" {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	if _, err := parseConsole("output first\n$ true\n"); err == nil {
		t.Error("a console block that does not start with a command was accepted")
	}
	for _, c := range []struct {
		want, got string
		match     bool
	}{
		{`{"a":1,` + "\n" + ` "execution_time_ms":0}`, `{"a":1,"execution_time_ms":17}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"s":"a b"}`, `{"s":"ab"}`, false},
		{`{"type":"WELCOME",…}`, `{"type":"WELCOME","x":[1]}`, true},
		{`level=INFO msg=x duration=1.84ms`, `time=2026-01-01T00:00:00Z level=INFO msg=x duration=3µs`, true},
		{`imported 2 nodes in 0.02 s`, `imported 2 nodes in 1.5 s`, true},
		{`imported 2 nodes in 0.02 s`, `imported 3 nodes in 0.02 s`, false},
		{"Date: Thu, 01 Jan 2026 00:00:00 GMT\nX: 1", "Date: Fri, 02 Jan 2026 10:00:00 GMT\r\nX: 1", true},
	} {
		if got := docOutputMatches(normaliseDocOutput(c.want), normaliseDocOutput(c.got)); got != c.match {
			t.Errorf("%q against %q: %v, want %v", c.want, c.got, got, c.match)
		}
	}
}
