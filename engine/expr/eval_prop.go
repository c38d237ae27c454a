package expr

import (
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// NullVector is the shared all-null result of expressions that are null
// for every row (a property key nobody has). It is never written.
var NullVector = vector.New(vector.Null, vector.Capacity)

// propEval reads a property of the nodes, relationships or maps in a
// vector. Node and relationship properties are gathered column-wise by id
// from storage; the output vector takes the property column's type, so a
// homogeneous column stays typed downstream.
type propEval struct {
	output
	c   *Env
	of  Evaluator
	key string
	out *vector.Vector
	// field is the date field key names, if any (fieldLooked once
	// looked up).
	field       func(temporal.Date) int64
	fieldLooked bool
	year        bool // the field is the year, read by a direct call
}

func (e *propEval) keyID() (catalog.KeyID, bool) { return e.c.Catalog.LookupKey(e.key) }

func (e *propEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	of, err := e.of.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	tx := e.c.Tx
	switch of.Type {
	case vector.Null:
		return NullVector, nil
	case vector.Node:
		if err := e.c.CheckDeleted(of, sel, n); err != nil {
			return nil, err
		}
		k, ok := e.keyID()
		if !ok {
			return NullVector, nil
		}
		e.out = e.vec(tx.NodePropType(k), n)
		tx.GatherNodeProp(k, of, sel, n, e.out)
		e.c.Counters.DBHits += int64(b.Rows())
		return e.out, nil
	case vector.Rel:
		if err := e.c.CheckDeleted(of, sel, n); err != nil {
			return nil, err
		}
		k, ok := e.keyID()
		if !ok {
			return NullVector, nil
		}
		e.out = e.vec(tx.RelPropType(k), n)
		tx.GatherRelProp(k, of, sel, n, e.out)
		e.c.Counters.DBHits += int64(b.Rows())
		return e.out, nil
	case vector.Any:
		return e.evalValues(of, sel, n)
	}
	return nil, errs.Data("cannot read property %q of a %s", e.key, of.Type)
}

// evalValues is the slow path for a column of generic values, but for a
// field of dates (temporal_kernels.go).
func (e *propEval) evalValues(of *vector.Vector, sel []int32, n int) (*vector.Vector, error) {
	if !e.fieldLooked {
		key := strings.ToLower(e.key)
		e.year = key == "year"
		if e.field = civilField(key); e.field == nil {
			e.field = functions.DateField(key)
		}
		e.fieldLooked = true
	}
	if e.field != nil {
		if out, ok := e.dateFields(of, e.field, sel, n); ok {
			return out, nil
		}
	}
	e.out = e.vec(vector.Any, n)
	out := e.out
	var failed error
	vector.ForRows(sel, n, func(r int) {
		v, err := e.property(of.Get(r))
		if err != nil {
			failed = err
		}
		out.Set(r, v)
	})
	return out, failed
}

// property reads the key of one generic value.
func (e *propEval) property(v vector.Value) (vector.Value, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]vector.Value:
		return x[e.key], nil
	case vector.NodeRef, vector.RelRef:
		if err := e.c.CheckDeletedValue(v); err != nil {
			return nil, err
		}
		k, ok := e.keyID()
		if !ok {
			return nil, nil
		}
		var found vector.Value
		visit := func(key catalog.KeyID, val vector.Value) {
			if key == k {
				found = val
			}
		}
		e.c.Counters.DBHits++ // the slow path reads one value at a time
		if id, isNode := x.(vector.NodeRef); isNode {
			e.c.Tx.NodeProps(uint64(id), visit)
		} else {
			e.c.Tx.RelProps(uint64(x.(vector.RelRef)), visit)
		}
		return found, nil
	}
	if temporal.Is(v) {
		return functions.TemporalProperty(v, e.key)
	}
	return nil, errs.Data("cannot read property %q of a %s", e.key, functions.TypeName(v))
}
