package plan

import (
	"slices"

	"github.com/quiverdb/quiver/vector"
)

// A plan may be reused for another run of the same text (engine's plan
// cache) when it was bound and optimized with everything the new run
// would bind and optimize it with. Binding reads of the parameters:
//
//   - each one's presence, type and kind (param: $x typed INTEGER or MAP;
//     callArgs: a standalone CALL's implicit arguments);
//   - a list's element type (elemType: UNWIND $list AS x types x);
//   - a SKIP or LIMIT parameter's value, which it checks (CountChecks);
//   - a property map's whole value in CREATE (n $props) (ValueBound).
//
// ParamShape covers the first two, Recheck the third; a ValueBound plan
// is not reused. A new read of a parameter's value in the binder belongs
// in one of them.

// CountCheck is a check binding made of a SKIP or LIMIT count that is a
// parameter (CheckCountOf), at the count's position.
type CountCheck struct {
	Param        *Param
	What         string
	Line, Column int
}

// Recheck makes p's CountChecks with params, as binding them would: a
// reused plan fails with the same error a fresh one would.
func (p *Plan) Recheck(params map[string]vector.Value) error {
	for _, c := range p.CountChecks {
		if v, ok := params[c.Param.Name]; ok {
			if err := CheckCountOf(c.Param, v, c.What, c.Line, c.Column); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParamShape appends to dst what binding reads of params besides the
// values CountChecks and ValueBound cover: each name, in order, with its
// value's type and kind, and a list's element type. Two runs of a text
// with the same shape bind the same plan.
func ParamShape(dst []byte, params map[string]vector.Value) []byte {
	if len(params) == 0 {
		return dst
	}
	var small [8]string
	names := small[:0]
	for name := range params {
		names = append(names, name)
	}
	if len(names) > 1 {
		slices.Sort(names)
	}
	for _, name := range names {
		v := params[name]
		dst = append(dst, name...)
		dst = append(dst, 0, byte(vector.TypeOf(v)))
		dst = append(dst, valueKind(v)...)
		if l, ok := v.([]vector.Value); ok {
			dst = append(dst, 0, byte(ListElemType(l)))
		}
		dst = append(dst, 0)
	}
	return dst
}
