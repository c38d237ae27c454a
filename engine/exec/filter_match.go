package exec

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// codeMatch is a Filter whose predicate is, or has as one conjunct, a
// test of a node's string property: `=`, STARTS WITH, ENDS WITH or
// CONTAINS with a string, or IN a literal list of strings (rule
// code-match, plan.CodeMatch). It reads the property as dictionary codes,
// as codeFilter does, tests each string of a dictionary once when the
// dictionary is first met, and keeps the rows whose code passed: a
// column of 256 names over 1M rows makes 256 tests, not 1M. Rows without
// a code are gathered and tested as strings. The other conjuncts, if
// any, are compiled on their own and tested on the rows kept, where they
// decide the predicate alone. A batch of a statement that deleted a node
// takes the general predicate.
type codeMatch struct {
	c    *Context
	p    *plan.Filter
	in   Operator
	gen  *filterOp // the general path
	term plan.CodeTerm
	rest *filterOp // the other conjuncts, nil when there are none
	// rng tests the other conjuncts when they are integer range terms,
	// through the columns' views (rest when a batch has none)
	rng  *rangeFilter
	test func(s string) bool

	dict  *storage.StringDict // the dictionary pass was computed for
	pass  []bool              // per code of dict: the test holds
	pass8 []uint8             // pass as 0 and 1, for the one-pass kernel
	codes []int32
	sel   []int32
	loose []int32        // the rows of a batch without a code
	strs  *vector.Vector // and their values, as strings
}

// newCodeMatch returns the code match for p; nil, and a note for PROFILE,
// when the bound value is not a string.
func newCodeMatch(c *Context, p *plan.Filter, in Operator, gen *filterOp) (*codeMatch, error) {
	term, restPred, ok := plan.CodeMatch(p.Pred)
	if !ok {
		return nil, nil
	}
	test := codeTest(term.Op, bound(c, term.Want))
	if test == nil {
		c.fellBack(p, plan.RuleCodeMatch, notOfType(term.Want, "a string"))
		return nil, nil
	}
	var rest *filterOp
	var rng *rangeFilter
	if restPred != nil {
		pred, err := compile(c, restPred)
		if err != nil {
			return nil, err
		}
		rest = &filterOp{c: c, in: in, pred: pred}
		if plan.Chose(p, plan.StrategyMatchRange) {
			if terms, ok := rangeTerms(c, restPred, p, plan.RuleRangeFilter); ok {
				rng = &rangeFilter{c: c, p: p, terms: terms, gen: rest, views: make([]*storage.IntView, len(terms)),
					bufs: [2][]int32{make([]int32, 0, vector.Capacity), make([]int32, 0, vector.Capacity)}}
			}
		}
	}
	return &codeMatch{c: c, p: p, in: in, gen: gen, term: term, rest: rest, rng: rng, test: test,
		codes: make([]int32, vector.Capacity), sel: make([]int32, 0, vector.Capacity),
		loose: make([]int32, 0, vector.Capacity), strs: vector.New(vector.String, vector.Capacity)}, nil
}

// codeTest is the test of op against want, nil when want is not what op
// needs (a string, or for IN a list of strings).
func codeTest(op string, want vector.Value) func(s string) bool {
	if op == functions.OpIn {
		list, ok := want.([]vector.Value)
		if !ok || plan.SetLookupType(list) != vector.String {
			return nil
		}
		set := make(map[string]struct{}, len(list))
		for _, v := range list {
			set[v.(string)] = struct{}{}
		}
		return func(s string) bool { _, in := set[s]; return in }
	}
	w, ok := want.(string)
	if !ok {
		return nil
	}
	if op == plan.CodeOpEq {
		return func(s string) bool { return s == w }
	}
	f, ok := functions.Lookup(op)
	if !ok || f.Predicate == nil {
		return nil
	}
	pred := f.Predicate
	return func(s string) bool { return pred(s, w) }
}

func (f *codeMatch) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		kept, coded := f.filter(b)
		switch {
		case !coded:
			kept, err = f.gen.filter(b)
		case kept != nil && f.rng != nil:
			kept, err = f.rng.filter(kept)
		case kept != nil && f.rest != nil:
			kept, err = f.rest.filter(kept)
		}
		if err != nil {
			return nil, err
		}
		if kept != nil {
			return kept, nil
		}
	}
}

// filter narrows b by codes; coded is false, and b untouched, when the
// batch must take the general predicate.
func (f *codeMatch) filter(b *vector.Batch) (kept *vector.Batch, coded bool) {
	ids := b.Cols[f.term.Col]
	if ids.Type != vector.Node {
		f.c.fellBack(f.p, plan.RuleCodeMatch, "a column of other values than nodes")
		return nil, false
	}
	if f.c.Deleted.HasNodes() {
		f.c.fellBack(f.p, plan.RuleCodeMatch, "the statement deleted nodes")
		return nil, false
	}
	k, ok := f.c.Catalog.LookupKey(f.term.Key)
	if !ok {
		f.c.fellBack(f.p, plan.RuleCodeMatch, "no value has the key")
		return nil, false
	}
	sel, n := rows(b)
	if f.dict != nil {
		// Once the column's dictionary is known, the codes are tested
		// as they are read, in one pass over the batch, when every row
		// with a value has a code in it (storage.SelectNodePropCodes).
		if out, clean := f.c.Tx.SelectNodePropCodes(k, f.dict, f.pass8, ids, sel, n, f.sel[:0]); clean {
			f.c.Counters.DBHits += int64(b.Rows())
			f.sel = out
			if len(out) == 0 {
				return nil, true
			}
			b.Sel = out
			return b, true
		}
	}
	dict, ok := f.c.Tx.GatherNodePropCodes(k, ids, sel, n, f.codes)
	if !ok {
		f.c.fellBack(f.p, plan.RuleCodeMatch, "a column that is not of strings")
		return nil, false
	}
	if dict != f.dict || dict == nil {
		f.dict = dict
		strs := dictStrings(dict)
		f.pass, f.pass8 = f.pass[:0], f.pass8[:0]
		for _, s := range strs {
			ok := f.test(s)
			f.pass = append(f.pass, ok)
			f.pass8 = append(f.pass8, boolByte(ok))
		}
	}
	f.c.Counters.DBHits += int64(b.Rows())
	// The rows without a code read their values in one gather, as
	// strings: any other value comes back null, and fails the test.
	codes, loose := f.codes, f.loose[:0]
	forRows(sel, n, func(r int32) {
		if codes[r] < 0 {
			loose = append(loose, r)
		}
	})
	f.loose = loose
	if len(loose) > 0 {
		f.strs.ResetNulls()
		f.c.Tx.GatherNodeProp(k, ids, loose, n, f.strs)
	}
	out, pass, strs := f.sel[:0], f.pass, f.strs
	forRows(sel, n, func(r int32) {
		if c := codes[r]; c >= 0 {
			if pass[c] {
				out = append(out, r)
			}
		} else if !strs.IsNull(int(r)) && f.test(strs.Str[r]) {
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

// boolByte is 1 for true, 0 for false.
func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
