package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// codeFilter is a Filter whose predicate is one equality of a node's
// string property with a string literal or parameter (`m.language =
// 'ar'`). It reads the property as dictionary codes (the codes of a
// bulk-loaded column's chunks share one dictionary), finds the literal's
// code once per dictionary, and keeps the rows whose code is that one:
// no string is gathered or compared per row. A row without a code (no
// value, a value of another type, a chunk still open or coded with a
// dictionary of its own) reads its value alone. A batch of a statement
// that deleted a node takes the general predicate, which raises the
// errors reading a deleted node's property must.
type codeFilter struct {
	c    *Context
	in   Operator
	gen  *filterOp // the general path
	col  int
	key  string
	want string

	dict  *storage.StringDict // the dictionary want was looked up in
	code  int32               // want's code in dict; -2 when it has none
	codes []int32
	sel   []int32
	// uncoded counts the rows read one by one, without a code.
	uncoded int64
}

// newCodeFilter returns the filter for pred when it has that shape, else
// nil.
func newCodeFilter(c *Context, pred plan.Expr, in Operator, gen *filterOp) *codeFilter {
	if !c.Rules.On(plan.RuleCodeFilter) {
		return nil
	}
	b, ok := pred.(*plan.Binary)
	if !ok || b.Op != plan.OpEq {
		return nil
	}
	prop, lit := b.L, b.R
	if _, isProp := prop.(*plan.Property); !isProp {
		prop, lit = b.R, b.L
	}
	p, ok := prop.(*plan.Property)
	if !ok {
		return nil
	}
	ref, ok := p.Of.(*plan.ColRef)
	if !ok || ref.T != vector.Node {
		return nil
	}
	want, ok := constValue(c, lit).(string)
	if !ok {
		return nil
	}
	return &codeFilter{c: c, in: in, gen: gen, col: ref.Idx, key: p.Key, want: want,
		code: -2, codes: make([]int32, vector.Capacity), sel: make([]int32, 0, vector.Capacity)}
}

func (f *codeFilter) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		kept, coded := f.filter(b)
		if !coded {
			if kept, err = f.gen.filter(b); err != nil {
				return nil, err
			}
		}
		if kept != nil {
			return kept, nil
		}
	}
}

// filter narrows b by codes; coded is false, and b untouched, when the
// batch must take the general predicate.
func (f *codeFilter) filter(b *vector.Batch) (kept *vector.Batch, coded bool) {
	ids := b.Cols[f.col]
	if ids.Type != vector.Node || f.c.Deleted.HasNodes() {
		return nil, false
	}
	k, ok := f.c.Catalog.LookupKey(f.key)
	if !ok {
		return nil, false
	}
	sel, n := rows(b)
	dict, ok := f.c.Tx.GatherNodePropCodes(k, ids, sel, n, f.codes)
	if !ok {
		return nil, false
	}
	if dict != f.dict || dict == nil {
		f.dict, f.code = dict, -2 // dict nil: no row has a code
		for i, s := range dictStrings(dict) {
			if s == f.want {
				f.code = int32(i)
				break
			}
		}
	}
	f.c.Counters.DBHits += int64(b.Rows())
	out, want, codes := f.sel[:0], f.code, f.codes
	test := func(r int32) {
		switch c := codes[r]; {
		case c == want:
			out = append(out, r)
		case c == -1 && !ids.IsNull(int(r)):
			// No code: no value (null, never equal), another type (not
			// equal) or a string outside the dictionary.
			if s, ok := f.c.Tx.NodeProp(ids.IDs[r], k).(string); ok && s == f.want {
				out = append(out, r)
			}
			f.uncoded++
		}
	}
	if sel == nil {
		for r := range int32(n) {
			test(r)
		}
	} else {
		for _, r := range sel {
			test(r)
		}
	}
	f.sel = out
	if len(out) == 0 {
		return nil, true
	}
	b.Sel = out
	return b, true
}

func dictStrings(d *storage.StringDict) []string {
	if d == nil {
		return nil
	}
	return d.Strs
}
