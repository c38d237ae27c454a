package gql

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The parse cache kept up to 1,024 texts of up to 8 KiB with their trees,
// and a tree takes up to 42 times its text: 350 MB that no accountant
// saw. It now holds at most parseCacheBytes of trees.
func TestParseCacheIsBoundedInBytes(t *testing.T) {
	c := &parseCache{cur: map[string]*Statement{}}
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before := live()
	// 300 texts of nearly 8 KiB, each a list of 2,000 property reads:
	// about 100 MB of trees if all were kept.
	for i := range 300 {
		text := "MATCH (n) RETURN " + strings.Repeat("n.a,", 1995) + "n.k" + strconv.Itoa(i)
		st, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		c.put(text, st)
	}
	held := live() - before
	t.Logf("the cache holds %d texts, %d MiB", len(c.entries()), held>>20)
	if held > 3*parseCacheBytes/2 {
		t.Errorf("the cache holds %d MiB of trees, bound %d MiB", held>>20, parseCacheBytes>>20)
	}
	runtime.KeepAlive(c)
}
