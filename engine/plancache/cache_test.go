package plancache

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestKeySeparatesWhatPlansDependOn: texts, rule sets and parameter
// types each give their own key; values of one type share one; a text
// past the bound is not cached.
func TestKeySeparatesWhatPlansDependOn(t *testing.T) {
	key := func(text string, rules []string, params map[string]vector.Value) string {
		return string(Key(nil, text, rules, params))
	}
	base := key("MATCH (n) RETURN n", nil, map[string]vector.Value{"x": int64(1)})
	for name, other := range map[string]string{
		"text":  key("MATCH (m) RETURN m", nil, map[string]vector.Value{"x": int64(1)}),
		"rules": key("MATCH (n) RETURN n", []string{"topk"}, map[string]vector.Value{"x": int64(1)}),
		"type":  key("MATCH (n) RETURN n", nil, map[string]vector.Value{"x": "1"}),
		"name":  key("MATCH (n) RETURN n", nil, map[string]vector.Value{"y": int64(1)}),
	} {
		if other == base {
			t.Errorf("another %s gives the same key", name)
		}
	}
	if key("MATCH (n) RETURN n", nil, map[string]vector.Value{"x": int64(99)}) != base {
		t.Error("another value of the same type gives another key")
	}
	if k := Key(nil, strings.Repeat("x", maxText+1), nil, nil); k != nil {
		t.Error("a text past the bound has a key")
	}
}

// TestCacheKeepsTwoGenerations: the cache holds at most its bound; a hit
// in the old generation moves the entry to the current one, so it
// outlives entries not used since.
func TestCacheKeepsTwoGenerations(t *testing.T) {
	c := New(8) // generations of 4
	for i := range 4 {
		c.Put(fmt.Sprint("k", i), &Entry{})
	}
	c.Put("k4", &Entry{}) // k0..k3 become the old generation
	if c.Get([]byte("k0")) == nil {
		t.Fatal("k0 lost with one generation full")
	}
	for i := 5; i < 8; i++ { // k4, k0 (moved), then k5..k7 fill the current one
		c.Put(fmt.Sprint("k", i), &Entry{})
	}
	if n := c.Len(); n > 8 {
		t.Fatalf("%d entries held, bound 8", n)
	}
	if c.Get([]byte("k0")) == nil {
		t.Error("k0, used since, was dropped before entries not used")
	}
	if c.Get([]byte("k1")) != nil {
		t.Error("k1, unused for two generations, is still held")
	}
	if New(-1) != nil {
		t.Error("a negative bound makes a cache")
	}
}

// TestNearAndSameSchema: statistics within a factor of two keep a plan;
// schemas with the same indexes and constraints are the same.
func TestNearAndSameSchema(t *testing.T) {
	for _, c := range []struct {
		a, b int64
		want bool
	}{{10, 10, true}, {10, 20, true}, {20, 10, true}, {10, 21, false}, {0, 1, false}, {0, 0, true}} {
		if got := near(c.a, c.b); got != c.want {
			t.Errorf("near(%d, %d) = %v", c.a, c.b, got)
		}
	}
	ix := func(name string, keys ...string) *catalog.Index {
		return &catalog.Index{Name: name, Label: "P", Keys: keys}
	}
	a := &catalog.Schema{Indexes: []*catalog.Index{ix("i", "id")}}
	if !sameSchema(a, &catalog.Schema{Indexes: []*catalog.Index{ix("i", "id")}}) {
		t.Error("equal schemas differ")
	}
	if sameSchema(a, &catalog.Schema{Indexes: []*catalog.Index{ix("i", "name")}}) {
		t.Error("an index on another key is the same schema")
	}
	if sameSchema(a, &catalog.Schema{}) {
		t.Error("a dropped index is the same schema")
	}
}
