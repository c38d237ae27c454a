package tck

import (
	"testing"
)

// The runner's verdicts on a small feature folder of its own: passes and
// failures are told apart, outline rows get their own ids.
func TestRunSample(t *testing.T) {
	outcomes, err := Run("testdata/features")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"sample/Sample.feature:[1] Rows in any order, side effects counted by diff":  true,
		"sample/Sample.feature:[2] A wrong expectation fails":                        false,
		"sample/Sample.feature:[3] Named graph, nodes, relationships and parameters": true,
		"sample/Sample.feature:[4] Expected errors by class":                         true,
		"sample/Sample.feature:[5] An error of another class fails":                  false,
		"sample/Sample.feature:[6] Test procedures":                                  true,
		"sample/Sample.feature:[7] Outline rows get their own ids:1":                 true,
		"sample/Sample.feature:[7] Outline rows get their own ids:2":                 false,
	}
	if len(outcomes) != len(want) {
		t.Fatalf("%d outcomes, want %d: %+v", len(outcomes), len(want), outcomes)
	}
	for _, o := range outcomes {
		pass, ok := want[o.ID]
		if !ok {
			t.Errorf("unexpected id %q", o.ID)
			continue
		}
		if pass != (o.Err == nil) {
			t.Errorf("%s: passed=%v, want %v (err %v)", o.ID, o.Err == nil, pass, o.Err)
		}
		if o.Folder != "sample" {
			t.Errorf("%s: folder %q", o.ID, o.Folder)
		}
	}
	if got := summarize(outcomes); got[len(got)-len("5 passed, 3 failed\n"):] != "5 passed, 3 failed\n" {
		t.Errorf("summary:\n%s", got)
	}
}
