package csr

// relMap is a persistent map from an overlay relationship id to its source
// node, which a delete by id needs to find the list to edit. It is a hash
// trie with path copying: a version shares every node it did not touch
// with the previous one, so an Apply costs O(changes * depth), not
// O(overlay). Nodes carry the editToken of the Apply that created them and
// are edited in place while that Apply runs, so a batch copies each path
// once.
type relMap struct {
	root *relNode
	len  int
}

// editToken identifies one Apply. It is not zero-sized: distinct
// zero-sized allocations may share an address.
type editToken struct{ _ byte }

const (
	relFanBits   = 5
	relFan       = 1 << relFanBits
	relMaxDepth  = 64 / relFanBits // hash bits run out below this depth
	relBucketMax = 8               // a leaf splits past this many entries
)

type relNode struct {
	owner *editToken
	kids  *[relFan]*relNode // non-nil: interior node
	ents  []relEnt          // leaf entries, unsorted, unique rels
}

type relEnt struct{ rel, src uint64 }

// relHash spreads sequential ids over the trie (splitmix64 finaliser, a
// bijection, so distinct ids never collide in all 64 bits).
func relHash(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (m relMap) get(rel uint64) (uint64, bool) {
	h := relHash(rel)
	n := m.root
	for n != nil {
		if n.kids == nil {
			for _, e := range n.ents {
				if e.rel == rel {
					return e.src, true
				}
			}
			return 0, false
		}
		n = n.kids[h&(relFan-1)]
		h >>= relFanBits
	}
	return 0, false
}

// mut returns n itself if tok owns it, else a copy owned by tok.
func (n *relNode) mut(tok *editToken) *relNode {
	if n == nil {
		return &relNode{owner: tok}
	}
	if n.owner == tok {
		return n
	}
	c := &relNode{owner: tok}
	if n.kids != nil {
		kids := *n.kids
		c.kids = &kids
	} else {
		c.ents = append([]relEnt(nil), n.ents...)
	}
	return c
}

// put adds rel -> src; rel must be absent.
func (m *relMap) put(tok *editToken, rel, src uint64) {
	h := relHash(rel)
	m.root = m.root.mut(tok)
	n := m.root
	for depth := 0; ; depth++ {
		if n.kids == nil {
			if len(n.ents) < relBucketMax || depth >= relMaxDepth {
				n.ents = append(n.ents, relEnt{rel, src})
				m.len++
				return
			}
			n.split(tok, depth)
		}
		i := h & (relFan - 1)
		h >>= relFanBits
		n.kids[i] = n.kids[i].mut(tok)
		n = n.kids[i]
	}
}

// split turns a full leaf at depth into an interior node.
func (n *relNode) split(tok *editToken, depth int) {
	n.kids = new([relFan]*relNode)
	for _, e := range n.ents {
		i := (relHash(e.rel) >> (relFanBits * depth)) & (relFan - 1)
		if n.kids[i] == nil {
			n.kids[i] = &relNode{owner: tok}
		}
		n.kids[i].ents = append(n.kids[i].ents, e)
	}
	n.ents = nil
}

// remove deletes rel; it reports whether rel was present. Empty leaves
// stay in place: the trie is rebuilt empty at every Compact.
func (m *relMap) remove(tok *editToken, rel uint64) bool {
	if _, ok := m.get(rel); !ok {
		return false
	}
	h := relHash(rel)
	m.root = m.root.mut(tok)
	n := m.root
	for n.kids != nil {
		i := h & (relFan - 1)
		h >>= relFanBits
		n.kids[i] = n.kids[i].mut(tok)
		n = n.kids[i]
	}
	for j, e := range n.ents {
		if e.rel == rel {
			last := len(n.ents) - 1
			n.ents[j] = n.ents[last]
			n.ents = n.ents[:last]
			m.len--
			return true
		}
	}
	panic("BUG: csr: relationship vanished from the overlay index")
}

// each calls f for every entry, for Check.
func (m relMap) each(f func(rel, src uint64)) {
	var walk func(n *relNode)
	walk = func(n *relNode) {
		if n == nil {
			return
		}
		if n.kids != nil {
			for _, k := range n.kids {
				walk(k)
			}
			return
		}
		for _, e := range n.ents {
			f(e.rel, e.src)
		}
	}
	walk(m.root)
}
