package opt_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
)

// testdata/plans.txt: blocks of a statement, ----, and the plan tree (or
// "error CODE").
var rewrite = flag.Bool("rewrite", false, "rewrite expected plans (review the diff!)")

func TestPlans(t *testing.T) {
	const path = "testdata/plans.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSpace(string(data)), "\n\n")
	changed := false
	for i, b := range blocks {
		query, want, ok := strings.Cut(b, "\n----\n")
		if !ok {
			query, want = strings.TrimSuffix(b, "\n----"), ""
		}
		got := bindText(query)
		if got == want {
			continue
		}
		if *rewrite {
			blocks[i], changed = query+"\n----\n"+got, true
			continue
		}
		t.Errorf("%s\ngot:\n%s\nwant:\n%s", query, got, want)
	}
	if changed {
		if err := os.WriteFile(path, []byte(strings.Join(blocks, "\n\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func bindText(query string) string {
	st, err := gql.Parse(query)
	if err != nil {
		return "parse error: " + err.Error()
	}
	p, err := plan.Bind(st, plan.Env{})
	if err == nil {
		err = opt.Optimize(p, nil)
	}
	if err != nil {
		if e, ok := errs.As(err); ok {
			return "error " + e.Code
		}
		return "error " + err.Error()
	}
	return plan.Format(p.Root)
}
