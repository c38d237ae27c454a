package storage

import (
	"fmt"
	"math"

	"github.com/quiverdb/quiver/vector"
)

// Vector chunks: an Any-dominant chunk whose values are all LISTs of
// FLOAT of one length (embeddings) keeps them flat instead of boxed.
//
//	boxed   any []vector.Value       one list per row: a slice of dim
//	                                 interfaces, each a boxed float64
//	flat    dim int, vec []float64   row r's elements are
//	                                 vec[r*dim:(r+1)*dim]
//
// A boxed 128-element list costs about 3 KiB in 129 allocations and gives
// the collector 128 pointers to trace; flat it is 1 KiB of pointer-free
// memory, written to a base file as raw little-endian doubles and read
// back without boxing, and a VectorView copies its rows directly. Only
// lists of FLOAT qualify: a list holding an INTEGER, a null or anything
// else must come back exactly as stored, so its chunk stays boxed.
//
// The chunk's type stays vector.Any and every path that reads single
// values (get) boxes the row on demand (vector.BoxFloats: two allocations). A
// set of a qualifying list of the chunk's dimension writes the row in
// place; any other Any value turns the chunk boxed first (unflatten), and
// sealing flattens it again when every value qualifies.

// flatDim is the dimension v would have in a flat chunk: its length when
// v is a non-empty LIST whose elements are all FLOAT, else 0.
func flatDim(v vector.Value) int {
	l, ok := v.([]vector.Value)
	if !ok || len(l) == 0 {
		return 0
	}
	for _, e := range l {
		if _, ok := e.(float64); !ok {
			return 0
		}
	}
	return len(l)
}

// vecRow is row r's elements in a flat chunk (r below rows()).
func (c *chunk) vecRow(r int) []float64 { return c.vec[r*c.dim : (r+1)*c.dim : (r+1)*c.dim] }

// setFlat writes the qualifying list l (of c.dim elements) into row r,
// which grow made room for.
func (c *chunk) setFlat(r int, l []vector.Value) {
	row := c.vecRow(r)
	for i, e := range l {
		row[i] = e.(float64)
	}
}

// startFlat makes an Any chunk holding no Any value yet flat of
// dimension dim, keeping its row count.
func (c *chunk) startFlat(dim int) {
	rows := len(c.any)
	c.any = nil
	c.dim = dim
	c.vec = make([]float64, rows*dim)
}

// unflatten turns a flat chunk boxed, before a value that does not fit
// it is stored. The rows are boxed into a new slice: a flat slice shared
// with an older version (extendCopy) is left as it is.
func (c *chunk) unflatten() {
	rows := c.rows()
	c.any = make([]vector.Value, rows)
	for r := range rows {
		if bitAt(c.valid, r) {
			c.any[r] = vector.BoxFloats(c.vecRow(r))
		}
	}
	c.dim, c.vec = 0, nil
}

// flatten turns a boxed Any chunk flat when every Any value qualifies
// with one dimension (sealing calls it).
func (c *chunk) flatten() {
	if c.typ != vector.Any || c.dim > 0 || c.counts[vector.Any] == 0 {
		return
	}
	dim := 0
	for r, v := range c.any {
		if !bitAt(c.valid, r) {
			continue
		}
		d := flatDim(v)
		if d == 0 || (dim != 0 && d != dim) {
			return
		}
		dim = d
	}
	rows := len(c.any)
	vec := make([]float64, rows*dim)
	for r, v := range c.any {
		if bitAt(c.valid, r) {
			for i, e := range v.([]vector.Value) {
				vec[r*dim+i] = e.(float64)
			}
		}
	}
	c.any, c.dim, c.vec = nil, dim, vec
}

// checkFlat verifies a flat chunk's layout: whole rows, no boxed values,
// zeros in rows without a value (check calls it).
func (c *chunk) checkFlat() error {
	if c.dim == 0 {
		if c.vec != nil {
			return fmt.Errorf("flat values without a dimension")
		}
		return nil
	}
	if c.typ != vector.Any || c.dim < 0 || c.any != nil || len(c.vec)%c.dim != 0 {
		return fmt.Errorf("flat %s chunk of dimension %d: %d elements, %d boxed rows", c.typ, c.dim, len(c.vec), len(c.any))
	}
	for r := range len(c.vec) / c.dim {
		if bitAt(c.valid, r) {
			continue
		}
		for _, x := range c.vecRow(r) {
			if math.Float64bits(x) != 0 {
				return fmt.Errorf("flat row %d holds elements but no value", r)
			}
		}
	}
	return nil
}
