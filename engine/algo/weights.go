package algo

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// weightReader reads the weight property of relationships for the Out
// slots buildCSR fills: each worker gathers the relationship ids of a
// run of consecutive slots (at least a vector's worth) straight into
// g.OutW, so a weighted projection keeps no relationship id per slot
// unless asked (Projection.OutRels). Every projected relationship must
// hold a non-negative number (an INTEGER is used as a float): a
// missing, non-numeric, negative or NaN weight is a 22000 error naming
// the relationship.
//
// BenchmarkProject/undirected-weighted (16M relationships, 2 workers):
// 1.74–1.91 s gathering from a relationship id array after the build,
// which allocated and wrote 8 bytes per slot first.
type weightReader struct {
	p    Projection
	snap *storage.Snapshot // workers gather from the version directly
	typ  vector.Type
	// slots are the weights in the slot order of each adjacency's base
	// (storage.RelFloatSlotView for FLOAT, RelSlotView for INTEGER), by
	// base: a clean list's weights are then one contiguous range, copied
	// in the list's order, where a gather by relationship id reads a
	// chunk per id. BenchmarkProject/undirected-weighted-hub less
	// undirected-hub (the weights' share; 3 runs each, a machine at load
	// 18): 6.2 s gathering, 1.6 s from the view.
	slots map[*storage.AdjacencyBase]slotWeights
}

// slotWeights is one base's slot-ordered weights: a FLOAT or an INTEGER
// view (the zero value: none).
type slotWeights struct {
	f *storage.FloatView
	i *storage.IntView
}

func (s slotWeights) ok() bool { return s.f != nil || s.i != nil }

// span writes the weights of the base slots from.. to dst; false when one
// is missing or invalid (read then reports it).
func (s slotWeights) span(dst []float64, from uint64) bool {
	var ok bool
	if s.f != nil {
		ok = s.f.Span(dst, from)
	} else {
		ok = s.i.SpanFloat(dst, from)
	}
	for _, w := range dst {
		ok = ok && w >= 0 // false for NaN too
	}
	return ok
}

// bindSlots looks up the slot-ordered views of adjs' bases (none unless
// the weights are all FLOAT or all INTEGER). A first call builds them
// (and the id-ordered view they are laid out from) in parts on r's
// workers, checking the stop between parts (storage.ForParts); the
// storage keeps them for the calls after.
func (wr *weightReader) bindSlots(r *Run, tx *storage.Tx, adjs []*storage.Adjacency) error {
	if wr.p.WeightMissing || wr.typ != vector.Float64 && wr.typ != vector.Int64 {
		return nil
	}
	par := r.forParts
	for _, a := range adjs {
		b := a.Base()
		if _, ok := wr.slots[b]; ok || b.NumEdges() == 0 {
			continue
		}
		var sv slotWeights
		var err error
		if wr.typ == vector.Float64 {
			sv.f, err = tx.RelFloatSlotViewParts(wr.p.Weight, b, b.NumEdges(), par)
		} else {
			sv.i, err = tx.RelSlotViewParts(wr.p.Weight, b, b.NumEdges(), par)
		}
		if err != nil {
			return err
		}
		if sv.ok() {
			if wr.slots == nil {
				wr.slots = map[*storage.AdjacencyBase]slotWeights{}
			}
			wr.slots[b] = sv
		}
	}
	return nil
}

// slotView is the slot-ordered view for a's clean lists (ok false when
// none).
func (wr *weightReader) slotView(a *storage.Adjacency) slotWeights {
	if wr == nil {
		return slotWeights{}
	}
	return wr.slots[a.Base()]
}

func newWeightReader(tx *storage.Tx, p Projection) *weightReader {
	wr := &weightReader{p: p, snap: tx.View()}
	if !p.WeightMissing {
		wr.typ = tx.RelPropType(p.Weight) // records the read for the transaction
	}
	return wr
}

// weightScratch is one worker's gather vectors.
type weightScratch struct {
	ids vector.Vector
	out *vector.Vector
}

// read fills dst with the weights of rels (same length).
func (wr *weightReader) read(sc *weightScratch, rels []uint64, dst []float64) error {
	if len(rels) == 0 {
		return nil
	}
	p := wr.p
	if p.WeightMissing {
		return badWeight(p, rels[0], nil)
	}
	switch wr.typ {
	case vector.Float64, vector.Int64, vector.Any:
	default:
		return badWeight(p, rels[0], wr.snap.RelProp(rels[0], p.Weight))
	}
	if sc.out == nil {
		sc.ids.Type = vector.Rel
		sc.out = vector.New(wr.typ, vector.Capacity)
	}
	out := sc.out
	for at := 0; at < len(rels); at += vector.Capacity {
		end := min(len(rels), at+vector.Capacity)
		sc.ids.IDs = rels[at:end]
		out.ResetNulls()
		wr.snap.GatherRelProp(p.Weight, &sc.ids, nil, end-at, out)
		d := dst[at:end]
		if wr.typ == vector.Float64 && floatWeights(d, out, end-at) {
			continue
		}
		for i := range d {
			var w float64
			ok := !out.IsNull(i)
			if ok {
				switch wr.typ {
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
				return badWeight(p, sc.ids.IDs[i], wr.snap.RelProp(sc.ids.IDs[i], p.Weight))
			}
			d[i] = w
		}
	}
	return nil
}

// floatWeights is read's fast path for a batch of FLOAT weights without
// nulls: a typed copy that checks every weight is >= 0 (false for NaN).
// It reports false, leaving the batch to the checking loop, when a
// weight is missing or invalid.
func floatWeights(dst []float64, out *vector.Vector, n int) bool {
	if out.HasNulls(n) {
		return false
	}
	src := out.F64[:n]
	dst = dst[:len(src)]
	ok := true
	for i, w := range src {
		ok = ok && w >= 0
		dst[i] = w
	}
	return ok
}

func badWeight(p Projection, rel uint64, v vector.Value) error {
	if v == nil {
		return errs.Data("algo: relationship %d has no weight property %s", rel, p.WeightName)
	}
	return errs.Data("algo: relationship %d has weight %s = %v: weights must be non-negative numbers", rel, p.WeightName, v)
}
