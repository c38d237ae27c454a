package linearcheck

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// Verdict is a check's outcome with what a failure message needs.
type Verdict struct {
	Result porcupine.CheckResult // Ok, Illegal, or Unknown when the timeout struck first
	Ops    int                   // operations checked
	// Visualization is the HTML file of porcupine's visualisation; set
	// when Result is not Ok and a directory was given.
	Visualization string
}

// Check checks the history against model within timeout (0: none). When
// the history is not shown linearizable and dir is not "", it writes
// porcupine's visualisation into dir.
func (r *Recorder) Check(model porcupine.Model, timeout time.Duration, dir string) (Verdict, error) {
	ops := r.Operations()
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	v := Verdict{Result: res, Ops: len(ops)}
	if res == porcupine.Ok || dir == "" {
		return v, nil
	}
	path := filepath.Join(dir, "linearizability.html")
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		return v, fmt.Errorf("linearcheck: cannot write the visualisation: %w", err)
	}
	v.Visualization = path
	return v, nil
}

// Require fails t unless the history is linearizable under model, naming
// the visualisation it wrote into t's artifact directory. A check that
// the timeout cut short fails too: it proved nothing.
func (r *Recorder) Require(t testing.TB, model porcupine.Model, timeout time.Duration) {
	t.Helper()
	v, err := r.Check(model, timeout, t.ArtifactDir())
	if err != nil {
		t.Fatal(err)
	}
	c := r.Counts()
	switch v.Result {
	case porcupine.Ok:
		t.Logf("linearizable: %d operations checked (%d answered, %d unknown, %d failed, %d still open)", v.Ops, c.Done, c.Unknown, c.Failed, c.Open)
		return
	case porcupine.Illegal:
		t.Fatalf("the history of %d operations is not linearizable (%d answered, %d unknown, %d failed, %d still open); visualisation: %s%s",
			v.Ops, c.Done, c.Unknown, c.Failed, c.Open, v.Visualization, keepHint())
	default:
		t.Fatalf("the linearizability check of %d operations did not finish within %v; visualisation of what it reached: %s%s",
			v.Ops, timeout, v.Visualization, keepHint())
	}
}

// keepHint says how to keep the artifact directory, which go test
// removes unless -artifacts is given.
func keepHint() string {
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return ""
	}
	return " (removed at the test's end; run go test with -artifacts -outputdir DIR to keep it)"
}
