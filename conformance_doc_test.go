package quiver_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestConformanceProofs: every proof docs/gql-conformance.md gives
// points at a corpus case that is there: `file.test:N` (and `, :N`) at
// the line of a case's "query" or "statement", `file.test: "words"` at
// a comment of that file holding the words. A case moved or deleted
// fails here, not silently in the table.
func TestConformanceProofs(t *testing.T) {
	doc, err := os.ReadFile("docs/gql-conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{}
	lines := func(name string) []string {
		if l, ok := files[name]; ok {
			return l
		}
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Errorf("the table names %s: %v", name, err)
		}
		files[name] = strings.Split(string(b), "\n")
		return files[name]
	}
	byLine := regexp.MustCompile(`(\w+\.test):(\d+)((?:,\s*:\d+)*)`)
	byName := regexp.MustCompile(`(\w+\.test): ((?:"[^"]+"(?:, )?)+)`)
	quoted := regexp.MustCompile(`"([^"]+)"`)
	proofs := 0
	for _, row := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(row, "|") {
			continue
		}
		for _, m := range byLine.FindAllStringSubmatch(row, -1) {
			ls := lines(m[1])
			nums := []string{m[2]}
			for _, n := range regexp.MustCompile(`:(\d+)`).FindAllStringSubmatch(m[3], -1) {
				nums = append(nums, n[1])
			}
			for _, n := range nums {
				k, _ := strconv.Atoi(n)
				proofs++
				if k < 1 || k > len(ls) || !(strings.HasPrefix(ls[k-1], "query") || strings.HasPrefix(ls[k-1], "statement")) {
					t.Errorf("%s:%d is not a case's first line (row %.60s…)", m[1], k, row)
				}
			}
		}
		for _, m := range byName.FindAllStringSubmatch(row, -1) {
			text := strings.Join(lines(m[1]), "\n")
			for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
				proofs++
				if !strings.Contains(text, strings.ReplaceAll(q[1], `\|`, "|")) {
					t.Errorf("%s has no case called %q (row %.60s…)", m[1], q[1], row)
				}
			}
		}
	}
	if proofs < 100 {
		t.Errorf("only %d proofs found: has the table's form changed?", proofs)
	}
}
