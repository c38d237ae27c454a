package csr

import "testing"

// FuzzBuild builds a CSR from fuzz-derived edges and compares it with the
// model; then it deletes every third edge and inserts a few through an
// Adjacency and compares again, compacted and not.
//
// Input: byte 0 sets the node count (0 = empty) and byte 1 a scale (1, 3
// or 17) that multiplies both the node count and the ids, for wider
// blocks; then every 2 bytes are one edge (src, dst), scaled and taken
// modulo the node count. Relationship ids are the edge's index.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0})
	f.Add([]byte{8, 1, 0, 1, 0, 1, 0, 1, 2, 2, 7, 0})
	hub := []byte{200, 3}
	for i := range 300 {
		hub = append(hub, 0, byte(i*37))
	}
	f.Add(hub)
	f.Fuzz(func(t *testing.T, in []byte) {
		n, scale := 0, uint64(1)
		if len(in) >= 2 {
			n, scale = int(in[0]), []uint64{1, 1, 3, 17}[in[1]%4]
			in = in[2:]
		}
		n *= int(scale)
		m := newModel()
		var es []Edge
		for i := 0; n > 0 && i+1 < len(in); i += 2 {
			e := Edge{uint64(in[i]) * scale % uint64(n), uint64(in[i+1]) * scale % uint64(n), uint64(i / 2)}
			es = append(es, e)
			m.insert(e)
		}
		c := Build(n, es)
		compareCSR(t, c, m)

		var del []uint64
		for i := 0; i < len(es); i += 3 {
			del = append(del, es[i].Rel)
			m.remove(es[i].Rel)
		}
		ins := []Edge{{0, 0, 1 << 40}, {uint64(n), uint64(n / 2), 1<<40 + 1}}
		for _, e := range ins {
			m.insert(e)
		}
		a := NewAdjacency(c).Apply(ins, del, 1)
		compareAdj(t, a, m)
		compareAdj(t, a.Compact(n+1), m)
	})
}
