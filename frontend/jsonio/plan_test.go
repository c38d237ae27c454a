package jsonio

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// TestProfileFallbacks checks that an operator's fallbacks appear as a
// list, and that the field is absent for an operator without any.
func TestProfileFallbacks(t *testing.T) {
	p := &engine.Profile{TotalTime: time.Millisecond, Operators: []engine.ProfileOperator{
		{Name: "Aggregate", Rows: 1, Fallbacks: []string{"parallel: one morsel"}},
		{Name: "NodeScan", Rows: 3},
	}}
	var out struct {
		Operators []map[string]any `json:"operators"`
	}
	if err := json.Unmarshal(AppendProfile(nil, p), &out); err != nil {
		t.Fatal(err)
	}
	if f, ok := out.Operators[0]["fallbacks"].([]any); !ok || len(f) != 1 || f[0] != "parallel: one morsel" {
		t.Errorf("Aggregate: fallbacks %v", out.Operators[0]["fallbacks"])
	}
	if _, ok := out.Operators[1]["fallbacks"]; ok {
		t.Errorf("NodeScan: fallbacks present: %v", out.Operators[1])
	}
}
