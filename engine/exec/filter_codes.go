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
// no string is gathered or compared per row. The rows without a code (no
// value, a value of another type, a chunk still open or coded with a
// dictionary of its own) are gathered and compared as strings. A batch of a statement
// that deleted a node takes the general predicate, which raises the
// errors reading a deleted node's property must.
type codeFilter struct {
	c    *Context
	p    *plan.Filter
	in   Operator
	gen  *filterOp // the general path
	col  int
	key  string
	want string

	dict  *storage.StringDict // the dictionary want was looked up in
	code  int32               // want's code in dict; -2 when it has none
	codes []int32
	sel   []int32
	loose []int32        // the rows of a batch without a code
	strs  *vector.Vector // and their values, as strings
	// uncoded counts the rows read without a code.
	uncoded int64
}

// newCodeFilter returns the code filter for p, whose predicate the
// physical pass found to be an equality of a node's property with a
// string literal or parameter (plan.CodeEquality); nil, and a note for
// PROFILE, when the parameter's value is not a string.
func newCodeFilter(c *Context, p *plan.Filter, in Operator, gen *filterOp) *codeFilter {
	col, key, lit, ok := plan.CodeEquality(p.Pred)
	if !ok {
		return nil
	}
	want, ok := bound(c, lit).(string)
	if !ok {
		c.fellBack(p, plan.RuleCodeFilter, notOfType(lit, "a string"))
		return nil
	}
	return &codeFilter{c: c, p: p, in: in, gen: gen, col: col, key: key, want: want,
		code: -2, codes: make([]int32, vector.Capacity), sel: make([]int32, 0, vector.Capacity),
		loose: make([]int32, 0, vector.Capacity), strs: vector.New(vector.String, vector.Capacity)}
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
	if ids.Type != vector.Node {
		f.c.fellBack(f.p, plan.RuleCodeFilter, "a column of other values than nodes")
		return nil, false
	}
	if f.c.Deleted.HasNodes() {
		f.c.fellBack(f.p, plan.RuleCodeFilter, "the statement deleted nodes")
		return nil, false
	}
	k, ok := f.c.Catalog.LookupKey(f.key)
	if !ok {
		f.c.fellBack(f.p, plan.RuleCodeFilter, "no value has the key")
		return nil, false
	}
	sel, n := rows(b)
	dict, ok := f.c.Tx.GatherNodePropCodes(k, ids, sel, n, f.codes)
	if !ok {
		f.c.fellBack(f.p, plan.RuleCodeFilter, "a column that is not of strings")
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
	// The rows without a code (no value, another type, a string outside
	// the dictionary) read their values in one gather, as strings: any
	// other value comes back null, never equal.
	codes, loose := f.codes, f.loose[:0]
	forRows(sel, n, func(r int32) {
		if codes[r] == -1 {
			loose = append(loose, r)
		}
	})
	f.loose = loose
	if len(loose) > 0 {
		f.uncoded += int64(len(loose))
		f.strs.ResetNulls()
		f.c.Tx.GatherNodeProp(k, ids, loose, n, f.strs)
	}
	out, want, strs := f.sel[:0], f.code, f.strs
	forRows(sel, n, func(r int32) {
		switch c := codes[r]; {
		case c == want:
			out = append(out, r)
		case c == -1 && !strs.IsNull(int(r)) && strs.Str[r] == f.want:
			out = append(out, r)
		}
	})
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

// forRows calls fn for each row of a selection, or 0..n-1 without one.
func forRows(sel []int32, n int, fn func(r int32)) {
	if sel == nil {
		for r := range int32(n) {
			fn(r)
		}
		return
	}
	for _, r := range sel {
		fn(r)
	}
}
