package storage

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// A content hash is a digest of a version's graph that does not depend
// on how it is laid out: checkpointed or in the overlay, compacted or
// not, chunk boundaries, catalog ids (labels, types and keys are hashed
// by name). Members of a cluster compare it to prove their graphs equal
// (quiver.storage.contentHash()).
//
//	element    digest = SHA-256 of its canonical encoding
//	  node     'N' labels (sorted names) properties (sorted by key name)
//	  rel      'R' type name, properties, digest(src node), digest(dst node)
//	property   key name, then the value type-tagged (1, 1.0 and '1'
//	           differ), lists in order, maps by sorted key
//	Content    Σ element digests, as four 64-bit lanes mod 2^64: a
//	           multiset hash, so the order of the scan does not matter
//	           and no id enters it (a graph deleted and created again
//	           hashes as before)
//	Identity   Σ SHA-256(id, [src id, dst id,] element digest): the same
//	           graph with the same node and relationship ids. Members of a
//	           cluster agree on it too: log records carry the ids, and a
//	           checkpoint keeps them.
//
// Endpoints enter a relationship by their content digest, recomputed per
// relationship (a direct-mapped cache per worker spares the hubs): the
// state is constant in size whatever the graph's, at the cost of reading
// an endpoint's properties once per relationship that does not hit.
// Content does not separate graphs that differ only in which of two
// nodes of equal content an edge touches; Identity does.

// ContentHash is a version's content hash (see above).
type ContentHash struct {
	// Content is independent of ids; Identity includes them.
	Content, Identity [sha256.Size]byte
	Nodes, Rels       int64
}

// contentHashVersion names the encoding: bump it when the encoding
// changes, so that members of different versions never agree by chance.
const contentHashVersion = "quiver.contentHash/1\x00"

// ContentHash digests the version (see above). cat names its catalog
// ids; stop, when not nil, is asked between groups (from several
// goroutines) and may end the scan with its error. The groups of node
// and relationship ids are shared out among up to GOMAXPROCS workers
// (at most maxHashWorkers), each with its own cache: the sums commute.
func (s *Snapshot) ContentHash(cat *catalog.Catalog, stop func() error) (ContentHash, error) {
	groups := max(s.relGroups(), int((s.nodeBound+GroupSize-1)>>groupShift))
	parts := make([]hashPart, max(1, min(runtime.GOMAXPROCS(0), maxHashWorkers, groups)))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range parts {
		p := &parts[w]
		wg.Go(func() {
			h := newContentHasher(s, cat)
			it := s.live.Iterator()
			for !failed.Load() {
				g := int(next.Add(1) - 1)
				if g >= groups {
					return
				}
				if stop != nil {
					if p.err = stop(); p.err != nil {
						failed.Store(true)
						return
					}
				}
				h.nodeGroup(p, it, g)
				h.relGroup(p, g)
			}
		})
	}
	wg.Wait()
	var sum hashPart
	for _, p := range parts {
		if p.err != nil {
			return ContentHash{}, p.err
		}
		sum.content.addLanes(&p.content)
		sum.identity.addLanes(&p.identity)
		sum.nodes += p.nodes
		sum.rels += p.rels
	}
	if sum.nodes != s.nodeCount || sum.rels != s.relCount {
		return ContentHash{}, fmt.Errorf("storage: the version counts %d nodes and %d relationships but holds %d and %d",
			s.nodeCount, s.relCount, sum.nodes, sum.rels)
	}
	return ContentHash{Content: sum.content.sum(sum.nodes, sum.rels), Identity: sum.identity.sum(sum.nodes, sum.rels),
		Nodes: sum.nodes, Rels: sum.rels}, nil
}

// maxHashWorkers bounds a content hash's goroutines (and caches).
const maxHashWorkers = 8

// hashPart is one worker's share of a content hash.
type hashPart struct {
	content, identity lanes
	nodes, rels       int64
	err               error
}

// nodeGroup adds the live nodes of id group g; it (the live set's, of
// this worker) has not passed the group's start.
func (h *contentHasher) nodeGroup(p *hashPart, it roaring.IntPeekable, g int) {
	lo, hi := uint64(g)<<groupShift, uint64(g+1)<<groupShift
	if lo > maxNodeID {
		return
	}
	it.AdvanceIfNeeded(uint32(lo))
	for it.HasNext() && uint64(it.PeekNext()) < hi {
		id := uint64(it.Next())
		d := h.node(id)
		p.content.add(d)
		p.identity.add(h.withIDs(d, id))
		p.nodes++
	}
}

// relGroup adds the relationships of id group g.
func (h *contentHasher) relGroup(p *hashPart, g int) {
	c := h.s.relGroup(g)
	if c == nil {
		return
	}
	start := uint64(g) << groupShift
	for r, t := range c.typ {
		if t == noRel {
			continue
		}
		id := start + uint64(r)
		src, dst := uint64(c.src[r]), uint64(c.dst[r])
		d := h.rel(id, catalog.TypeID(t), src, dst)
		p.content.add(d)
		p.identity.add(h.withIDs(d, id, src, dst))
		p.rels++
	}
}

// lanes is a multiset hash's state: digests summed lane by lane.
type lanes [4]uint64

func (l *lanes) addLanes(o *lanes) {
	for i := range l {
		l[i] += o[i]
	}
}

func (l *lanes) add(d [sha256.Size]byte) {
	for i := range l {
		l[i] += binary.LittleEndian.Uint64(d[8*i:])
	}
}

// sum seals the state with the counts and the encoding's version.
func (l *lanes) sum(nodes, rels int64) [sha256.Size]byte {
	b := make([]byte, 0, len(contentHashVersion)+48)
	b = append(b, contentHashVersion...)
	b = binary.BigEndian.AppendUint64(b, uint64(nodes))
	b = binary.BigEndian.AppendUint64(b, uint64(rels))
	for _, v := range l {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return sha256.Sum256(b)
}

// nodeCacheSize is the number of node digests the hasher keeps
// (direct-mapped by id): 3 MiB, whatever the graph's size. Endpoint
// digests are most of a hash's work (at bench scale S, 100k nodes and 1M
// relationships, 80% of 4.6 s with 4096 entries).
const nodeCacheSize = 1 << 16

type cachedDigest struct {
	id  uint64
	ok  bool
	sum [sha256.Size]byte
}

// contentHasher holds the buffers one content hash reuses.
type contentHasher struct {
	s      *Snapshot
	cat    *catalog.Catalog
	buf    []byte
	labels []catalog.LabelID
	names  []string
	props  []namedValue
	cache  []cachedDigest
}

type namedValue struct {
	name string
	v    vector.Value
}

func newContentHasher(s *Snapshot, cat *catalog.Catalog) *contentHasher {
	return &contentHasher{s: s, cat: cat, cache: make([]cachedDigest, nodeCacheSize)}
}

// node is node id's content digest.
func (h *contentHasher) node(id uint64) [sha256.Size]byte {
	e := &h.cache[id&(nodeCacheSize-1)]
	if e.ok && e.id == id {
		return e.sum
	}
	b := append(h.buf[:0], 'N')
	h.labels = h.s.AppendNodeLabels(h.labels[:0], id)
	h.names = h.names[:0]
	for _, l := range h.labels {
		h.names = append(h.names, h.cat.LabelName(l))
	}
	slices.Sort(h.names)
	b = binary.AppendUvarint(b, uint64(len(h.names)))
	for _, n := range h.names {
		b = appendHashString(b, n)
	}
	h.props = h.props[:0]
	h.s.NodeProps(id, func(k catalog.KeyID, v vector.Value) {
		h.props = append(h.props, namedValue{h.cat.KeyName(k), v})
	})
	b = h.appendProps(b)
	h.buf = b
	*e = cachedDigest{id: id, ok: true, sum: sha256.Sum256(b)}
	return e.sum
}

// rel is relationship id's content digest.
func (h *contentHasher) rel(id uint64, t catalog.TypeID, src, dst uint64) [sha256.Size]byte {
	from, to := h.node(src), h.node(dst)
	b := append(h.buf[:0], 'R')
	b = appendHashString(b, h.cat.TypeName(t))
	h.props = h.props[:0]
	h.s.RelProps(id, func(k catalog.KeyID, v vector.Value) {
		h.props = append(h.props, namedValue{h.cat.KeyName(k), v})
	})
	b = h.appendProps(b)
	b = append(b, from[:]...)
	b = append(b, to[:]...)
	h.buf = b
	return sha256.Sum256(b)
}

// withIDs is an element digest bound to its ids.
func (h *contentHasher) withIDs(d [sha256.Size]byte, ids ...uint64) [sha256.Size]byte {
	b := append(h.buf[:0], 'I')
	for _, id := range ids {
		b = binary.BigEndian.AppendUint64(b, id)
	}
	b = append(b, d[:]...)
	h.buf = b
	return sha256.Sum256(b)
}

// appendProps appends h.props sorted by name.
func (h *contentHasher) appendProps(b []byte) []byte {
	slices.SortFunc(h.props, func(x, y namedValue) int { return strings.Compare(x.name, y.name) })
	b = binary.AppendUvarint(b, uint64(len(h.props)))
	for _, p := range h.props {
		b = appendHashString(b, p.name)
		b = appendHashValue(b, p.v)
	}
	return b
}

func appendHashString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Type tags of the canonical value encoding.
const (
	hashNull byte = iota
	hashBool
	hashInt
	hashFloat
	hashString
	hashList
	hashMap
	hashDate
	hashLocalTime
	hashTime
	hashLocalDateTime
	hashDateTime
	hashDuration
)

// appendHashValue appends v's canonical encoding. Stored values are
// nested no deeper than maxValueDepth (storeValue), so the recursion is
// bounded.
func appendHashValue(b []byte, v vector.Value) []byte {
	u64 := binary.BigEndian.AppendUint64
	switch x := v.(type) {
	case nil:
		return append(b, hashNull)
	case bool:
		if x {
			return append(b, hashBool, 1)
		}
		return append(b, hashBool, 0)
	case int64:
		return u64(append(b, hashInt), uint64(x))
	case float64:
		bits := math.Float64bits(x)
		if x != x {
			bits = 0x7ff8000000000001 // one NaN, whatever its payload
		}
		return u64(append(b, hashFloat), bits)
	case string:
		return appendHashString(append(b, hashString), x)
	case []vector.Value:
		b = binary.AppendUvarint(append(b, hashList), uint64(len(x)))
		for _, e := range x {
			b = appendHashValue(b, e)
		}
		return b
	case map[string]vector.Value:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = binary.AppendUvarint(append(b, hashMap), uint64(len(keys)))
		for _, k := range keys {
			b = appendHashValue(appendHashString(b, k), x[k])
		}
		return b
	case temporal.Date:
		return u64(append(b, hashDate), uint64(x.Days))
	case temporal.LocalTime:
		return u64(append(b, hashLocalTime), uint64(x.Nanos))
	case temporal.Time:
		return binary.BigEndian.AppendUint32(u64(append(b, hashTime), uint64(x.Nanos)), uint32(x.Offset))
	case temporal.LocalDateTime:
		return binary.BigEndian.AppendUint32(u64(append(b, hashLocalDateTime), uint64(x.Sec)), uint32(x.Nanos))
	case temporal.DateTime:
		b = u64(append(b, hashDateTime), uint64(x.Sec))
		b = binary.BigEndian.AppendUint32(b, uint32(x.Nanos))
		b = binary.BigEndian.AppendUint32(b, uint32(x.Offset))
		return appendHashString(b, x.Zone)
	case temporal.Duration:
		b = u64(append(b, hashDuration), uint64(x.Months))
		b = u64(b, uint64(x.Days))
		b = u64(b, uint64(x.Seconds))
		return binary.BigEndian.AppendUint32(b, uint32(x.Nanos))
	}
	// storeValue admits nothing else.
	panic(fmt.Sprintf("BUG: storage: a stored value of type %T", v))
}
