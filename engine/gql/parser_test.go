package gql

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// The parser corpus: testdata/*.txt hold blocks
//
//	parse | error
//	<query, one or more lines>
//	----
//	<canonical form> | line L, column C: <message>
//
// separated by blank lines. -rewrite rewrites the expected outputs; review
// the diff before committing it.
var rewrite = flag.Bool("rewrite", false, "rewrite expected outputs in testdata")

type case_ struct {
	cmd, query, want string
}

func readCases(t *testing.T, path string) []case_ {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []case_
	var cur *case_
	var q, w []string
	sep := false
	flush := func() {
		if cur != nil {
			cur.query, cur.want = strings.Join(q, "\n"), strings.Join(w, "\n")
			cases = append(cases, *cur)
		}
		cur, q, w, sep = nil, nil, nil, false
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && (strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#")):
		case cur == nil:
			cur = &case_{cmd: line}
		case strings.TrimSpace(line) == "":
			flush()
		case line == "----" && !sep:
			sep = true
		case sep:
			w = append(w, line)
		default:
			q = append(q, line)
		}
	}
	flush()
	return cases
}

func run1(c case_) string {
	st, err := Parse(c.query)
	if err != nil {
		return formatError(err)
	}
	return st.String()
}

// formatError writes a syntax error as the corpus does: "line L, column
// C: message", then the suggestion.
func formatError(err error) string {
	e, ok := errs.As(err)
	if !ok || e.Position == nil {
		return fmt.Sprintf("not a positioned engine error (%T): %v", err, err)
	}
	s := fmt.Sprintf("line %d, column %d: %s", e.Position.Line, e.Position.Column, e.Message)
	if e.Suggestion != "" {
		s += " (did you mean " + e.Suggestion + "?)"
	}
	return s
}

func TestParserCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no parser corpus")
	}
	for _, path := range files {
		cases := readCases(t, path)
		changed := false
		for i, c := range cases {
			got := run1(c)
			_, perr := Parse(c.query)
			if (c.cmd == "error") != (perr != nil) {
				t.Errorf("%s: %q: cmd %s but err = %v", filepath.Base(path), c.query, c.cmd, perr)
			}
			if got == c.want {
				continue
			}
			if *rewrite {
				cases[i].want, changed = got, true
				continue
			}
			t.Errorf("%s: %s\n%s\ngot:  %s\nwant: %s", filepath.Base(path), c.cmd, c.query, got, c.want)
		}
		if changed {
			var sb strings.Builder
			for _, c := range cases {
				sb.WriteString(c.cmd + "\n" + c.query + "\n----\n" + c.want + "\n\n")
			}
			if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Canonical forms parse back to themselves.
		for _, c := range cases {
			st, err := Parse(c.query)
			if err != nil {
				continue
			}
			again, err := Parse(st.String())
			if err != nil {
				t.Errorf("canonical form of %q does not parse: %v\n%s", c.query, err, st.String())
			} else if again.String() != st.String() {
				t.Errorf("round trip of %q changed:\n%s\n%s", c.query, st.String(), again.String())
			}
		}
	}
}

func TestReturnItemText(t *testing.T) {
	st, err := Parse("RETURN a.name ,  count( * ), 1+1 AS two, [x IN l | x]\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range st.Query.Parts[0].Clauses[0].(*Return).Projection.Items {
		got = append(got, it.Text)
	}
	if strings.Join(got, "|") != "a.name|count( * )|1+1|[x IN l | x]" {
		t.Fatalf("texts = %q", got)
	}
}

func TestPositionsCountCharacters(t *testing.T) {
	_, err := Parse("MATCH (é:Ü)\n  RETURN é ++")
	se, ok := errs.As(err)
	if !ok || se.Code != errs.CodeSyntax || se.Position == nil || se.Position.Line != 2 || se.Position.Column != 14 {
		t.Fatalf("err = %v", err)
	}
}

// ParsePattern reads one path and nothing after it; & and : may join its
// labels together, where a query's node patterns use one or the other.
func TestParsePattern(t *testing.T) {
	part, err := ParsePattern("(a:A&B:C {k: 1})<-[r:T|U]-(:D)")
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Nodes) != 2 || !reflect.DeepEqual(part.Nodes[0].Labels, []string{"A", "B", "C"}) ||
		!reflect.DeepEqual(part.Rels[0].Types, []string{"T", "U"}) || part.Rels[0].Dir != DirLeft {
		t.Fatalf("parsed %+v", part)
	}
	for _, bad := range []string{"(a) RETURN a", "(a), (b)", "(:&A)", "", "(:A|B)", "(:!A)", "()-[:!R]->()", "()-[:%]->()"} {
		if _, err := ParsePattern(bad); err == nil {
			t.Errorf("%q parsed as a pattern", bad)
		}
	}
	if _, err := Parse("MATCH (n:A&B:C) RETURN n"); err == nil {
		t.Error("a query's node pattern took & and : between labels")
	}
}
