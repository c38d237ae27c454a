package storage

import (
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// Direction picks the adjacency of a relationship type: Outgoing maps a
// source node to its targets, Incoming a target node to its sources.
type Direction uint8

const (
	// Outgoing is the forward CSR: src → dst.
	Outgoing Direction = iota
	// Incoming is the backward CSR: dst → src.
	Incoming
)

// Reader is the read API of the graph, implemented by *Snapshot and *Tx
// (a Tx reads its snapshot plus its own uncommitted writes). Bitmaps and
// adjacencies it returns are shared and read-only: never modify them.
type Reader interface {
	// TS is the commit timestamp of the version read (for a Tx with
	// writes: the timestamp its commit will get).
	TS() uint64
	// NodeIDBound is a bound on node ids: every node id is below it.
	NodeIDBound() uint64
	// LiveNodes is the set of existing node ids.
	LiveNodes() *roaring.Bitmap
	// LabelNodes is the set of nodes carrying l; empty (not nil) when none.
	LabelNodes(l catalog.LabelID) *roaring.Bitmap
	HasLabel(id uint64, l catalog.LabelID) bool
	// AppendNodeLabels appends id's labels sorted by id.
	AppendNodeLabels(dst []catalog.LabelID, id uint64) []catalog.LabelID
	// NodePropType is the type of the vector GatherNodeProp fills:
	// vector.Null if no node has k, the type if every value is of one
	// type, vector.Any if mixed (lists and maps are Any too).
	NodePropType(k catalog.KeyID) vector.Type
	// GatherNodeProp sets out row r (for r in sel, or 0..n-1 when sel is
	// nil) to property k of node ids.IDs[r]; null when the ids row is null
	// or the node lacks k. out must have type NodePropType(k) or Any (any
	// column can be gathered as Any). When out has some other type, the
	// rows whose value is of out's type are filled and the rest set null.
	GatherNodeProp(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector)
	// NodeProps calls fn for each property of node id, in key id order.
	NodeProps(id uint64, fn func(k catalog.KeyID, v vector.Value))
	NodeCount() int64
	RelCount() int64
	// Rel returns a relationship's type and endpoints; ok is false when
	// no relationship has that id.
	Rel(id uint64) (t catalog.TypeID, src, dst uint64, ok bool)
	RelPropType(k catalog.KeyID) vector.Type
	GatherRelProp(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector)
	RelProps(id uint64, fn func(k catalog.KeyID, v vector.Value))
	// NodeIntView is the dense view of node property k when every value
	// of k is an INTEGER and the view pays (see IntView), else nil. rows
	// is the number of values the caller is about to read: demand that
	// decides when a view is worth building. A view answers exactly as
	// GatherNodeProp; it is immutable and valid as long as the Reader
	// has not written since (ask again after a write).
	NodeIntView(k catalog.KeyID, rows int) *IntView
	// RelIntView is NodeIntView for relationship property k.
	RelIntView(k catalog.KeyID, rows int) *IntView
	// RelSlotView is relationship property k laid out in the slot order
	// of base (an Adjacency's Base): entry s is the value of the
	// relationship in slot s, so a list that base holds unchanged (no
	// overlay: Adjacency.Dirty is false) is a contiguous range of it.
	// nil when RelIntView(k, rows) is.
	RelSlotView(k catalog.KeyID, base *csr.CSR, rows int) *IntView
	// Adjacency is the CSR of type t in direction d, whose slot rel ids
	// are relationship ids; nil when the type has no relationships.
	Adjacency(t catalog.TypeID, d Direction) *csr.Adjacency
}

// Snapshot is one immutable committed version of the graph. Every commit
// publishes a new one; holding a *Snapshot pins what it saw, and reading
// it takes no lock. Snapshots share everything a commit did not touch.
//
//	Snapshot
//	  ts            commit timestamp (monotone; 0 = the empty graph)
//	  nodeBound     every node id < nodeBound (ids of aborted transactions
//	                leave holes: they are below the bound but not live)
//	  live          roaring bitmap of existing nodes (32-bit: ≤ 2^32 nodes)
//	  labels[l]     roaring bitmap of nodes with label l (nil = none)
//	  nodeCols[k]   *column of node property k (nil = no node has k)
//	  rels[g]       relationship table, GroupSize rels per relChunk
//	  relCols[k]    *column of relationship property k
//	  adj[t]        forward and backward csr.Adjacency of type t
//	  typeRels[t]   number of relationships of type t
//
// A Snapshot inside an open Tx is that transaction's private working
// version: it shares with its base and owns (by epoch stamp) whatever it
// copied, and becomes the published version at commit.
type Snapshot struct {
	ts        uint64
	lsn       uint64 // log position after the commit that made it (commit.go)
	writer    uint64 // the writer of that commit (writer.go); 0: none
	nodeBound uint64
	nodeCount int64
	live      *roaring.Bitmap
	labels    []*roaring.Bitmap
	nodeCols  []*column
	relBound  uint64
	relCount  int64
	rels      []*relChunk
	derived   *derivedRels
	relCols   []*column
	adj       []adjPair
	typeRels  []int64
	// schema is the indexes and constraints of this version; indexes[i]
	// holds the entries of the index whose Slot is i (nil once dropped).
	schema  *catalog.Schema
	indexes []*nodeIndex
	// sys is the version's system records (system.go); nil when none.
	sys *sysMap
	// sealEpoch names the encrypted-field declarations (seal.go).
	sealEpoch uint64
}

type adjPair [2]*csr.Adjacency // indexed by Direction

func emptySnapshot() *Snapshot { return &Snapshot{live: roaring.New()} }

var _ Reader = (*Snapshot)(nil)

// TS is the version's commit timestamp.
func (s *Snapshot) TS() uint64 { return s.ts }

// NodeIDBound: every node id is below it.
func (s *Snapshot) NodeIDBound() uint64 { return s.nodeBound }

// LiveNodes is the set of existing nodes. Read-only.
func (s *Snapshot) LiveNodes() *roaring.Bitmap { return s.live }

// LabelNodes is the set of nodes with label l. Read-only.
func (s *Snapshot) LabelNodes(l catalog.LabelID) *roaring.Bitmap {
	if int(l) < len(s.labels) && s.labels[l] != nil {
		return s.labels[l]
	}
	return roaring.New() // fresh: a caller breaking the read-only rule harms only itself
}

// HasLabel reports whether node id carries label l.
func (s *Snapshot) HasLabel(id uint64, l catalog.LabelID) bool {
	if id > maxNodeID || int(l) >= len(s.labels) || s.labels[l] == nil {
		return false
	}
	return s.labels[l].Contains(uint32(id))
}

// AppendNodeLabels appends node id's labels in id order. Its cost is one
// bitmap probe per label in the catalog.
func (s *Snapshot) AppendNodeLabels(dst []catalog.LabelID, id uint64) []catalog.LabelID {
	if id > maxNodeID {
		return dst
	}
	for l, b := range s.labels {
		if b != nil && b.Contains(uint32(id)) {
			dst = append(dst, catalog.LabelID(l))
		}
	}
	return dst
}

// NodeCount is the number of existing nodes.
func (s *Snapshot) NodeCount() int64 { return s.nodeCount }

// RelCount is the number of existing relationships.
func (s *Snapshot) RelCount() int64 { return s.relCount }

// TypeRelCount is the number of live relationships of type t.
func (s *Snapshot) TypeRelCount(t catalog.TypeID) int64 {
	if a := s.Adjacency(t, Outgoing); a != nil {
		return int64(a.NumEdges())
	}
	return 0
}

// nodeLive reports whether node id exists.
func (s *Snapshot) nodeLive(id uint64) bool {
	return id <= maxNodeID && s.live.Contains(uint32(id))
}

// NodePropType: see Reader.
func (s *Snapshot) NodePropType(k catalog.KeyID) vector.Type { return s.nodeCol(k).typ() }

// RelPropType: see Reader.
func (s *Snapshot) RelPropType(k catalog.KeyID) vector.Type { return s.relCol(k).typ() }

func (s *Snapshot) nodeCol(k catalog.KeyID) *column {
	if int(k) < len(s.nodeCols) {
		return s.nodeCols[k]
	}
	return nil
}

func (s *Snapshot) relCol(k catalog.KeyID) *column {
	if int(k) < len(s.relCols) {
		return s.relCols[k]
	}
	return nil
}

// NodeProps calls fn for each property of node id in key id order.
func (s *Snapshot) NodeProps(id uint64, fn func(k catalog.KeyID, v vector.Value)) {
	eachProp(s.nodeCols, id, fn)
}

// RelProps calls fn for each property of relationship id in key id order.
func (s *Snapshot) RelProps(id uint64, fn func(k catalog.KeyID, v vector.Value)) {
	eachProp(s.relCols, id, fn)
}

// NodeProp returns node id's value of key k, nil when it has none.
func (s *Snapshot) NodeProp(id uint64, k catalog.KeyID) vector.Value {
	if c := s.nodeCol(k); c != nil {
		return c.get(id)
	}
	return nil
}

// RelProp returns relationship id's value of key k, nil when it has none.
func (s *Snapshot) RelProp(id uint64, k catalog.KeyID) vector.Value {
	if c := s.relCol(k); c != nil {
		return c.get(id)
	}
	return nil
}

func eachProp(cols []*column, id uint64, fn func(k catalog.KeyID, v vector.Value)) {
	for k, c := range cols {
		if v := c.get(id); v != nil {
			fn(catalog.KeyID(k), v)
		}
	}
}

// GatherNodeProp: see Reader.
func (s *Snapshot) GatherNodeProp(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
	gatherVia(s.nodeCol(k), ids, sel, n, out)
}

// GatherRelProp: see Reader.
func (s *Snapshot) GatherRelProp(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
	gatherVia(s.relCol(k), ids, sel, n, out)
}

// gatherVia gathers INTEGER columns through their dense view once it
// exists (or this gather's demand makes it pay), else chunk by chunk.
func gatherVia(c *column, ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
	if out.Type == vector.Int64 {
		rows := n
		if sel != nil {
			rows = len(sel)
		}
		if v := c.intView(rows); v != nil {
			v.Gather(ids, sel, n, out)
			return
		}
	}
	gather(c, ids, sel, n, out)
}

// NodeIntView: see Reader.
func (s *Snapshot) NodeIntView(k catalog.KeyID, rows int) *IntView {
	return s.nodeCol(k).intView(rows)
}

// RelIntView: see Reader.
func (s *Snapshot) RelIntView(k catalog.KeyID, rows int) *IntView {
	return s.relCol(k).intView(rows)
}

// RelSlotView: see Reader.
func (s *Snapshot) RelSlotView(k catalog.KeyID, base *csr.CSR, rows int) *IntView {
	v, _ := s.relCol(k).slotView(base, rows, serialParts)
	return v
}

// RelSlotViewParts is RelSlotView built, when it is not cached yet, in
// parts run by par (see ForParts): on the caller's workers, with its
// stop checked between parts. The error is par's.
func (s *Snapshot) RelSlotViewParts(k catalog.KeyID, base *csr.CSR, rows int, par ForParts) (*IntView, error) {
	return s.relCol(k).slotView(base, rows, par)
}

// Adjacency is type t's CSR in direction d, nil when t has no
// relationships.
func (s *Snapshot) Adjacency(t catalog.TypeID, d Direction) *Adjacency {
	if int(t) < len(s.adj) && d <= Incoming {
		return s.adj[t][d]
	}
	return nil
}
