// Package csr owns the adjacency of ONE relationship type in ONE direction:
// an immutable compressed sparse row base (CSR) built by counting sort, and
// an immutable, versioned overlay of the edges inserted and deleted since the
// last build (Adjacency). The storage layer keeps a forward and a backward
// instance per relationship type and publishes Adjacency versions through an
// atomic pointer.
//
// Layout of a CSR:
//
//	offsets []uint64  len NumNodes+1; degree = offsets[v+1]-offsets[v], never a decode
//	rels    []uint64  one relationship id per slot, plain, in slot order;
//	                  nil when slot s holds base+s (a bulk load's forward
//	                  CSR), computed instead of stored
//	data    []byte    neighbour ids, frame-of-reference bit-packed blocks (block.go)
//	start   []uint32  byte offset of every node's first block in data
//	                  ([]uint64 once data outgrows 4 GiB)
//
// Within a node's list the slots are sorted by (Dst, Rel), so a neighbour
// list is a sorted id list that intersects and merges without a sort.
//
// What csr must not do: import anything of Quiver, know about labels,
// properties, transactions or the WAL, or validate user input. Node ids are
// dense (the overlay's group table is sized by the largest source id) and
// relationship ids are unique within one instance; the storage layer checks
// both before calling in, and a violation here panics with "BUG:". Check
// reports the invariants as errors for tests and diagnostics.
//
// Concurrency: a *CSR and an *Adjacency never change once returned, so any
// number of goroutines may read them without locks. Apply and Compact return
// new versions; they do not synchronise with each other, so the storage
// layer serialises writers.
package csr
