package catalog

import (
	"fmt"
	"sync"
	"testing"
)

func TestEnsureLookupName(t *testing.T) {
	c := New()
	if _, ok := c.LookupLabel("Person"); ok {
		t.Fatal("empty catalog found a label")
	}
	p := c.EnsureLabel("Person")
	m := c.EnsureLabel("Movie")
	if p != 0 || m != 1 {
		t.Fatalf("ids %d %d, want dense 0 1", p, m)
	}
	if again := c.EnsureLabel("Person"); again != p {
		t.Fatalf("Ensure twice gave %d then %d", p, again)
	}
	if id, ok := c.LookupLabel("Movie"); !ok || id != m {
		t.Fatalf("LookupLabel(Movie) = %d %v", id, ok)
	}
	if c.LabelName(m) != "Movie" || c.LabelName(7) != "" {
		t.Fatal("LabelName wrong")
	}
	// Namespaces are independent.
	if k := c.EnsureKey("Person"); k != 0 {
		t.Fatalf("key id %d, want 0", k)
	}
	if ty := c.EnsureType("KNOWS"); ty != 0 || c.TypeName(ty) != "KNOWS" {
		t.Fatal("type namespace wrong")
	}
	if _, ok := c.LookupType("Person"); ok {
		t.Fatal("label leaked into types")
	}
	if got := c.Labels(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("Labels() = %v", got)
	}
	if len(c.Types()) != 1 || len(c.Keys()) != 1 || c.NumKeys() != 1 {
		t.Fatal("listing wrong")
	}
	if c.EnsureLabel("") != 2 || c.LabelName(2) != "" {
		t.Fatal("empty name is a valid name")
	}
}

func TestConcurrentEnsure(t *testing.T) {
	c := New()
	const workers, names = 8, 500
	ids := make([][]KeyID, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ids[w] = make([]KeyID, names)
			for i := 0; i < names; i++ {
				j := (i*7 + w*13) % names // different orders per worker
				ids[w][j] = c.EnsureKey(fmt.Sprintf("k%d", j))
				if c.KeyName(ids[w][j]) != fmt.Sprintf("k%d", j) {
					t.Errorf("name of fresh id %d not visible", ids[w][j])
				}
				_ = c.Keys()
			}
		}(w)
	}
	wg.Wait()
	if c.NumKeys() != names {
		t.Fatalf("%d keys, want %d", c.NumKeys(), names)
	}
	seen := make(map[KeyID]bool)
	for j := 0; j < names; j++ {
		for w := 1; w < workers; w++ {
			if ids[w][j] != ids[0][j] {
				t.Fatalf("name k%d got ids %d and %d", j, ids[0][j], ids[w][j])
			}
		}
		if seen[ids[0][j]] {
			t.Fatalf("id %d given twice", ids[0][j])
		}
		seen[ids[0][j]] = true
	}
}

// TestTruncate: forgotten names are gone for lookups and their ids go
// to the next names created; the names before stay.
func TestTruncate(t *testing.T) {
	c := New()
	for _, n := range []string{"A", "B", "C"} {
		c.EnsureLabel(n)
		c.EnsureKey("k" + n)
	}
	c.EnsureType("R")
	c.Truncate(1, 1, 3)
	if c.NumLabels() != 1 || c.NumTypes() != 1 || c.NumKeys() != 3 {
		t.Fatalf("counts %d %d %d", c.NumLabels(), c.NumTypes(), c.NumKeys())
	}
	if _, ok := c.LookupLabel("B"); ok {
		t.Fatal("B still found")
	}
	if id, ok := c.LookupLabel("A"); !ok || id != 0 {
		t.Fatalf("A: %d %v", id, ok)
	}
	if id := c.EnsureLabel("X"); id != 1 || c.LabelName(1) != "X" {
		t.Fatalf("X got id %d (%q)", id, c.LabelName(1))
	}
	if id := c.EnsureLabel("B"); id != 2 {
		t.Fatalf("B again got id %d", id)
	}
	if id, ok := c.LookupKey("kC"); !ok || id != 2 {
		t.Fatalf("kC: %d %v", id, ok)
	}
}
