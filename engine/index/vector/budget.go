package vectorindex

import (
	"github.com/quiverdb/quiver/engine/index"
)

// A VECTOR index's graph is held against the server's memory budget
// through the index.Memory the Manager hands it (SetMemory), as a
// FULLTEXT index's documents are: charged as it grows (Populate, Apply),
// given back as it shrinks and when the Manager drops, fails or closes
// it. A build or an apply the budget cannot hold fails the index
// (FAILED, with the budget's 53200 error) and no statement: searches on
// a failed index are exact (procs_index.go).

// vectorBytes estimates what one indexed vector holds: its FLOAT32
// elements and inverse length, its ground-layer neighbour row (2m+1
// int32s), its share of the upper layers' rows and its id in the map
// from ids to slots (measured: about 0.7 KB at 128 dimensions, m 16).
func vectorBytes(cfg Config) int64 {
	return int64(cfg.Dim)*4 + int64(2*cfg.M+1)*4 + 96
}

// SetMemory is index.Charged: m is what the index holds of the budget.
func (x *Managed) SetMemory(m *index.Memory) { x.mem = m }

// settle charges or gives back the difference between n vectors and
// what the index holds; an error (53200) when the budget cannot hold
// them.
func (x *Managed) settle(n int) error {
	d := int64(n)*vectorBytes(x.cfg) - x.mem.Held()
	switch {
	case d > 0:
		return x.mem.Charge(d)
	case d < 0:
		x.mem.Release(-d)
	}
	return nil
}
