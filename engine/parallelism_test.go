package engine

import (
	"context"
	"testing"
)

// TestParallelismSetting checks what a read query may use: Options.Parallelism,
// or one goroutine once enable_parallel_scan is off.
func TestParallelismSetting(t *testing.T) {
	db, err := Open(t.TempDir(), Options{Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := db.parallelism(); got != 3 {
		t.Errorf("parallelism %d, want 3", got)
	}
	set := func(q string) {
		res, err := db.Query(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
	}
	set("SET enable_parallel_scan = false")
	if got := db.parallelism(); got != 1 {
		t.Errorf("parallelism %d with enable_parallel_scan off, want 1", got)
	}
	set("SET enable_parallel_scan = true")
	if got := db.parallelism(); got != 3 {
		t.Errorf("parallelism %d with enable_parallel_scan on, want 3", got)
	}
	if _, err := Open(t.TempDir(), Options{DisabledRules: []string{"no-such-rule"}}); err == nil {
		t.Error("an unknown optimizer rule must be refused")
	}
}
