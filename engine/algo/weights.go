package algo

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// readWeights fills g.OutW from the weight property of each Out slot's
// relationship, gathering a vector of relationship ids at a time. Every
// projected relationship must hold a non-negative number (an INTEGER is
// used as a float): a missing, non-numeric, negative or NaN weight is a
// 22000 error naming the relationship.
func readWeights(r *Run, tx *storage.Tx, g *Graph, p Projection) error {
	var err error
	m := len(g.OutRel)
	if g.OutW, err = makeSlice[float64](r, m, u64Bytes); err != nil {
		return err
	}
	if p.WeightMissing {
		if m > 0 {
			return badWeight(p, g.OutRel[0], nil)
		}
		return nil
	}
	typ := tx.RelPropType(p.Weight) // records the read for the transaction
	snap := tx.View()               // workers gather from the version directly
	switch typ {
	case vector.Float64, vector.Int64, vector.Any:
	default:
		if m > 0 {
			return badWeight(p, g.OutRel[0], snap.RelProp(g.OutRel[0], p.Weight))
		}
		return nil
	}
	return r.parallelFor(m, vector.Capacity*16, func(_, lo, hi int) error {
		ids := &vector.Vector{Type: vector.Rel}
		out := vector.New(typ, vector.Capacity)
		for at := lo; at < hi; at += vector.Capacity {
			end := min(hi, at+vector.Capacity)
			ids.IDs = g.OutRel[at:end]
			out.ResetNulls()
			snap.GatherRelProp(p.Weight, ids, nil, end-at, out)
			dst := g.OutW[at:end]
			for i := range dst {
				var w float64
				ok := !out.IsNull(i)
				if ok {
					switch typ {
					case vector.Float64:
						w = out.F64[i]
					case vector.Int64:
						w = float64(out.I64[i])
					default:
						switch x := out.Any[i].(type) {
						case float64:
							w = x
						case int64:
							w = float64(x)
						default:
							ok = false
						}
					}
				}
				if !ok || w < 0 || math.IsNaN(w) {
					return badWeight(p, ids.IDs[i], snap.RelProp(ids.IDs[i], p.Weight))
				}
				dst[i] = w
			}
		}
		return nil
	})
}

func badWeight(p Projection, rel uint64, v vector.Value) error {
	if v == nil {
		return errs.Data("algo: relationship %d has no weight property %s", rel, p.WeightName)
	}
	return errs.Data("algo: relationship %d has weight %s = %v: weights must be non-negative numbers", rel, p.WeightName, v)
}
