package storage

import "github.com/quiverdb/quiver/vector"

// gather fills out from column c for the id rows of ids (see
// Reader.GatherNodeProp). Typed columns take a typed loop: one group-table
// load, one validity bit test and one typed load per row, no allocation
// and no interface call. The side map is consulted only in chunks that
// have one, so homogeneous columns never pay for it.
func gather(c *column, ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
	var groups groupTable
	if c != nil {
		groups = c.groups
	}
	cnt := count(sel, n)
	g := gatherer{groups: groups, ids: ids.IDs, idValid: ids.Valid, sel: sel, cnt: cnt, out: out}
	switch out.Type {
	case vector.Int64:
		gatherInt64(&g)
	case vector.Float64:
		gatherFloat64(&g)
	case vector.String:
		gatherString(&g)
	case vector.Bool:
		gatherBool(&g)
	case vector.Any:
		gatherAny(&g)
	default: // Null (or a type no property has): every row is null
		for i := 0; i < cnt; i++ {
			out.SetNull(g.row(i))
		}
	}
}

type gatherer struct {
	groups  groupTable
	ids     []uint64
	idValid vector.Validity
	sel     []int32
	cnt     int
	out     *vector.Vector
}

func (g *gatherer) row(i int) int {
	if g.sel != nil {
		return int(g.sel[i])
	}
	return i
}

// locate returns the chunk and row of output row r, nil when the id is
// null or its group holds no value of the key.
func (g *gatherer) locate(r int) (*chunk, int) {
	if g.idValid != nil && !g.idValid.IsValid(r) {
		return nil, 0
	}
	id := g.ids[r]
	return g.groups.at(id >> groupShift), int(id & groupMask)
}

// sideValue is the slow path: the row's value when it is not of the
// chunk's dominant type.
func sideValue(c *chunk, off int) vector.Value {
	if c.side == nil {
		return nil
	}
	return c.side[uint16(off)]
}

func gatherInt64(g *gatherer) {
	out := g.out
	dst := out.I64
	for i := 0; i < g.cnt; i++ {
		r := g.row(i)
		c, off := g.locate(r)
		if c != nil {
			if c.typ == vector.Int64 && c.valid[off>>3]&(1<<(uint(off)&7)) != 0 {
				dst[r] = c.i64[off]
				out.SetValid(r)
				continue
			}
			if v, ok := sideValue(c, off).(int64); ok {
				dst[r] = v
				out.SetValid(r)
				continue
			}
		}
		out.SetNull(r)
	}
}

func gatherFloat64(g *gatherer) {
	out := g.out
	dst := out.F64
	for i := 0; i < g.cnt; i++ {
		r := g.row(i)
		c, off := g.locate(r)
		if c != nil {
			if c.typ == vector.Float64 && c.valid[off>>3]&(1<<(uint(off)&7)) != 0 {
				dst[r] = c.f64[off]
				out.SetValid(r)
				continue
			}
			if v, ok := sideValue(c, off).(float64); ok {
				dst[r] = v
				out.SetValid(r)
				continue
			}
		}
		out.SetNull(r)
	}
}

func gatherBool(g *gatherer) {
	out := g.out
	dst := out.Bools
	for i := 0; i < g.cnt; i++ {
		r := g.row(i)
		c, off := g.locate(r)
		if c != nil {
			if c.typ == vector.Bool && c.valid[off>>3]&(1<<(uint(off)&7)) != 0 {
				dst[r] = c.bits[off>>3]&(1<<(uint(off)&7)) != 0
				out.SetValid(r)
				continue
			}
			if v, ok := sideValue(c, off).(bool); ok {
				dst[r] = v
				out.SetValid(r)
				continue
			}
		}
		out.SetNull(r)
	}
}

func gatherString(g *gatherer) {
	out := g.out
	dst := out.Str
	for i := 0; i < g.cnt; i++ {
		r := g.row(i)
		c, off := g.locate(r)
		if c != nil {
			if c.typ == vector.String && c.valid[off>>3]&(1<<(uint(off)&7)) != 0 {
				if c.sarr != nil {
					dst[r] = c.sarr.Value(off) // no copy: aliases the Arrow buffer
				} else {
					dst[r] = c.str[off]
				}
				out.SetValid(r)
				continue
			}
			if v, ok := sideValue(c, off).(string); ok {
				dst[r] = v
				out.SetValid(r)
				continue
			}
		}
		out.SetNull(r)
	}
}

// gatherAny is the generic path for mixed columns: a Value per row
// (boxing int64/float64 values allocates; mixed columns are rare).
func gatherAny(g *gatherer) {
	out := g.out
	for i := 0; i < g.cnt; i++ {
		r := g.row(i)
		c, off := g.locate(r)
		var v vector.Value
		if c != nil {
			v = c.get(off)
		}
		if v == nil {
			out.SetNull(r)
			continue
		}
		out.Any[r] = v
		out.SetValid(r)
	}
}
