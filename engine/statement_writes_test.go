package engine

import "testing"

func TestWrites(t *testing.T) {
	for text, want := range map[string]bool{
		"MATCH (n) RETURN n":        false,
		"RETURN 1":                  false,
		"CREATE (:P)":               true,
		"MATCH (n) SET n.x = 1":     true,
		"MATCH (n) DETACH DELETE n": true,
		"MERGE (:P {v: 1})":         true,
		"UNWIND [1] AS v CALL { WITH v CREATE (:P {v: v}) }": true,
		"CREATE INDEX FOR (n:P) ON (n.v)":                    true,
		"EXPLAIN CREATE (:P)":                                false, // describes the write, runs nothing
		"PROFILE CREATE (:P)":                                true,
		"SHOW INDEXES":                                       false,
		"SET query_timeout = 1000":                           false,
		"MATCH (n RETURN":                                    false, // a syntax error: running it says so
	} {
		if got := Writes(text); got != want {
			t.Errorf("Writes(%q) = %v, want %v", text, got, want)
		}
	}
}
