package tck

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cucumber/godog"
)

// Outcome is the result of one scenario.
type Outcome struct {
	// ID is "<feature path relative to the features folder>:<scenario
	// name>", with ":<n>" appended for the n-th example row of a scenario
	// outline (and for a repeated name).
	ID string
	// Folder is the feature file's folder relative to the features folder.
	Folder string
	// Err is nil when the scenario passed.
	Err error
}

// Run runs every feature file under dir (the TCK's features folder, whose
// sibling graphs/ holds the named graphs) and returns the outcome of every
// scenario in run order.
func Run(dir string) ([]Outcome, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	graphs := filepath.Join(filepath.Dir(dir), "graphs")
	var out []Outcome
	seen := map[string]int{}
	var setupErr error
	suite := godog.TestSuite{
		Name: "tck",
		ScenarioInitializer: func(ctx *godog.ScenarioContext) {
			s, err := newScenario(graphs)
			if err != nil {
				setupErr = err
				return
			}
			s.register(ctx)
			ctx.After(func(c context.Context, sc *godog.Scenario, err error) (context.Context, error) {
				s.db.Close()
				rel, rerr := filepath.Rel(dir, sc.Uri)
				if rerr != nil || strings.HasPrefix(rel, "..") {
					rel = sc.Uri
				}
				rel = filepath.ToSlash(rel)
				id := rel + ":" + sc.Name
				seen[id]++
				if len(sc.AstNodeIds) > 1 || seen[id] > 1 {
					id = fmt.Sprintf("%s:%d", id, seen[id])
				}
				out = append(out, Outcome{ID: id, Folder: filepath.ToSlash(filepath.Dir(rel)), Err: err})
				return c, nil
			})
		},
		Options: &godog.Options{
			Format:      "progress",
			Output:      io.Discard,
			Paths:       []string{dir},
			Strict:      true,
			Concurrency: 1,
		},
	}
	suite.Run()
	if setupErr != nil {
		return out, setupErr
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenario found under %s", dir)
	}
	return out, nil
}
