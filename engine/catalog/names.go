package catalog

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// names is one append-only namespace: name → dense id and back.
//
// Layout and why:
//
//	byName  sync.Map  name → uint32   lock-free lookups by the query compiler
//	list    atomic.Pointer[[]string]  id → name; published after byName's
//	                                  writer appended, so a reader that finds
//	                                  an id in byName always finds its name
//
// A new name is appended in place when the list's array has room (it
// doubles when full), and the longer slice is published: readers of an
// older slice never look past its length, where the append writes. One
// statement can create tens of thousands of keys (SET n.k1 = 1, n.k2 = 2,
// …), so copying the list per name would make it quadratic.
type names struct {
	kind string // "label", "relationship type", "property key": for messages
	// mu serializes creation of new names so each gets exactly one id.
	mu     struct{ sync.Mutex }
	byName sync.Map // string → uint32
	list   atomic.Pointer[[]string]
}

func newNames(kind string) *names {
	n := &names{kind: kind}
	n.list.Store(new([]string))
	return n
}

func (n *names) lookup(name string) (uint32, bool) {
	id, ok := n.byName.Load(name)
	if !ok {
		return 0, false
	}
	return id.(uint32), true
}

func (n *names) ensure(name string) uint32 {
	if id, ok := n.lookup(name); ok {
		return id
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if id, ok := n.lookup(name); ok {
		return id // lost the race to another creator
	}
	old := *n.list.Load()
	if uint64(len(old)) >= 1<<32-1 {
		panic(fmt.Sprintf("BUG: catalog: more than 2^32-1 %s names", n.kind))
	}
	id := uint32(len(old))
	next := append(old, name)
	n.list.Store(&next) // before byName: see the type comment
	n.byName.Store(name, id)
	return id
}

// name returns the name of id, or "" when id was never created.
func (n *names) name(id uint32) string {
	l := *n.list.Load()
	if uint64(id) >= uint64(len(l)) {
		return ""
	}
	return l[id]
}

func (n *names) count() int { return len(*n.list.Load()) }

// truncate forgets the names from id count on. The list moves to a new
// array, so a reader holding the old slice keeps reading its names and a
// later ensure never writes where such a reader looks.
func (n *names) truncate(count int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	old := *n.list.Load()
	if count >= len(old) {
		return
	}
	for _, name := range old[count:] {
		n.byName.Delete(name)
	}
	next := append([]string(nil), old[:count]...)
	n.list.Store(&next)
}
