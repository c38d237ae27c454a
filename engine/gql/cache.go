package gql

import "sync"

// Clients send the same statement texts over and over (parameters carry
// what changes), and parsing one costs about as much as binding and
// optimizing it. ParseCached keeps the syntax trees of recent texts,
// shared by every database of the process: a tree depends on its text
// alone, and nothing downstream of the parser writes to it (the query
// corpus test checks that every cached tree still equals a fresh parse).
//
// Two generations approximate LRU at a map lookup's cost: a hit in the
// old generation moves the entry to the current one, and when the
// current one is full it becomes the old one, dropping the rest. Texts
// longer than parseCacheMaxText are not kept.
//
// A generation is full at parseCacheEntries texts, or when its trees
// reach half of parseCacheBytes: a tree takes up to parseTreeFactor times
// its text (42 measured, for a list of property reads; 28 for a sum of
// ones, 10 for a label list), so 1,024 texts of 8 KiB could hold 350 MB
// that no statement's accountant sees. The cache holds at most
// parseCacheBytes of trees, and one more tree.
const (
	parseCacheEntries = 512
	parseCacheMaxText = 8 << 10
	parseCacheBytes   = 16 << 20
	parseTreeFactor   = 48
)

var parsedStatements = &parseCache{cur: map[string]*Statement{}}

type parseCache struct {
	mu       sync.Mutex
	cur, old map[string]*Statement
	// curBytes estimates the trees of cur (parseTreeFactor × their text).
	curBytes int64
}

// get returns the cached tree of text, or nil.
func (c *parseCache) get(text string) *Statement {
	if len(text) > parseCacheMaxText {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.cur[text]; st != nil {
		return st
	}
	st := c.old[text]
	if st != nil {
		delete(c.old, text)
		c.putLocked(text, st)
	}
	return st
}

// put keeps the tree of a text that parsed.
func (c *parseCache) put(text string, st *Statement) {
	if len(text) > parseCacheMaxText {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(text, st)
}

func (c *parseCache) putLocked(text string, st *Statement) {
	if len(c.cur) >= parseCacheEntries || c.curBytes >= parseCacheBytes/2 {
		c.old, c.cur = c.cur, make(map[string]*Statement, parseCacheEntries)
		c.curBytes = 0
	}
	c.cur[text] = st
	c.curBytes += parseTreeFactor * int64(len(text))
}

// entries copies the cache's texts and trees.
func (c *parseCache) entries() map[string]*Statement {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := make(map[string]*Statement, len(c.cur)+len(c.old))
	for _, m := range []map[string]*Statement{c.old, c.cur} {
		for text, st := range m {
			all[text] = st
		}
	}
	return all
}

// ParseCached parses text as ParseCancel does, or takes its tree from
// the cache. The tree is shared: nothing may write to it.
func ParseCached(text string, cancelled func() error) (*Statement, error) {
	if st := parsedStatements.get(text); st != nil {
		return st, nil
	}
	st, err := ParseCancel(text, cancelled)
	if err != nil {
		return nil, err
	}
	parsedStatements.put(text, st)
	return st, nil
}

// CachedStatements copies the texts and trees the cache holds (the query
// corpus test checks that none changed since it was parsed).
func CachedStatements() map[string]*Statement { return parsedStatements.entries() }
