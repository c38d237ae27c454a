package expr

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// codeCallEval is a string function of a node's STRING property that the
// physical pass marked code-call (physical/calls.go): toLower(p.name),
// substring(p.city, 0, 3), p.name STARTS WITH 'A' … A bulk-loaded
// column's strings are codes into one dictionary per column
// (storage/dict.go), which holds each distinct value once, so the
// function is worked out once per dictionary entry, through its own
// vectorized kernel, and a row's answer is read by its code: a load per
// row instead of a string function per row.
//
// A batch with a row the dictionary does not cover (no value, a value
// written since the base was loaded, a value of another type, an id in
// an open chunk) takes the general path whole, as does a dictionary
// whose entries the function fails on (the general path then fails on
// the rows that hold them, and only those). A dictionary's answers are
// worked out once the rows this evaluator has read reach a quarter of
// its entries, so a query reading a few rows of a column with millions
// of distinct values never pays for all of them; its answers are charged
// to the query's memory.
type codeCallEval struct {
	output
	c       *Env
	of      Evaluator // the node column
	key     string
	t       vector.Type // the call's typed output
	general Evaluator   // the call as it runs without codes
	inner   Evaluator   // the call over column 0 of a batch of strings
	codes   []int32
	seen    int64 // rows read so far
	answers map[*storage.StringDict]*dictAnswers
}

// dictAnswers is the call's answer for each entry of one dictionary; nil
// in codeCallEval.answers when the call failed on an entry.
type dictAnswers struct {
	vec *vector.Vector
}

// maxDictAnswers bounds the dictionaries an evaluator keeps answers for:
// an opened base has one per column, chunks sealed since have their own.
const maxDictAnswers = 8

// bindSlot gives the general path the same slot: one of the two writes it.
func (e *codeCallEval) bindSlot(s *slot) {
	e.output.bindSlot(s)
	if g, ok := e.general.(slotted); ok {
		g.bindSlot(s)
	}
}

// compileCodeCall compiles a call marked code-call; nil when its shape is
// not the one the mark promises (a plan built by hand).
func compileCodeCall(c *Env, e *plan.Call) (Evaluator, error) {
	p, ok := e.Args[0].(*plan.Property)
	if !ok {
		return nil, nil
	}
	plain := *e
	plain.Strategy = ""
	general, err := compileCall(c, &plain)
	if err != nil {
		return nil, err
	}
	of, err := compileNode(c, p.Of)
	if err != nil {
		return nil, err
	}
	over := *e
	over.Strategy = ""
	over.Args = append([]plan.Expr{&plan.ColRef{Idx: 0, Name: p.Key, T: vector.String}}, e.Args[1:]...)
	inner, err := Compile(c, &over)
	if err != nil {
		return nil, err
	}
	return &codeCallEval{c: c, of: of, key: p.Key, t: outType(e.T), general: general, inner: inner,
		answers: map[*storage.StringDict]*dictAnswers{}}, nil
}

func (e *codeCallEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	of, err := e.of.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	k, ok := e.c.Catalog.LookupKey(e.key)
	if of.Type != vector.Node || !ok {
		return e.general.Eval(b)
	}
	if err := e.c.CheckDeleted(of, sel, n); err != nil {
		return nil, err
	}
	if cap(e.codes) < n {
		e.codes = make([]int32, n)
	}
	codes := e.codes[:n]
	d, ok := e.c.Tx.GatherNodePropCodes(k, of, sel, n, codes)
	if !ok || d == nil || !allCoded(codes, sel, n) {
		return e.general.Eval(b)
	}
	e.seen += int64(b.Rows())
	a, err := e.answersFor(d)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return e.general.Eval(b)
	}
	out := e.vec(e.t, n)
	v := a.vec
	nulls := v.Valid != nil
	switch e.t {
	case vector.String:
		forSel(sel, n, func(r int) { out.Str[r] = v.Str[codes[r]] })
	case vector.Int64:
		forSel(sel, n, func(r int) { out.I64[r] = v.I64[codes[r]] })
	case vector.Float64:
		forSel(sel, n, func(r int) { out.F64[r] = v.F64[codes[r]] })
	case vector.Bool:
		forSel(sel, n, func(r int) { out.Bools[r] = v.Bools[codes[r]] })
	}
	if nulls {
		forSel(sel, n, func(r int) {
			if v.IsNull(int(codes[r])) {
				out.SetNull(r)
			}
		})
	}
	e.c.Counters.DBHits += int64(b.Rows())
	return out, nil
}

// allCoded reports whether every selected row has a code.
func allCoded(codes []int32, sel []int32, n int) bool {
	if sel == nil {
		for _, c := range codes[:n] {
			if c < 0 {
				return false
			}
		}
		return true
	}
	for _, r := range sel {
		if codes[r] < 0 {
			return false
		}
	}
	return true
}

// answersFor is the call's answers over d's entries, worked out on first
// use once the rows read have paid for them; nil while they have not, or
// when the call fails on an entry or answers in another type.
func (e *codeCallEval) answersFor(d *storage.StringDict) (*dictAnswers, error) {
	if a, ok := e.answers[d]; ok {
		return a, nil
	}
	if e.seen*4 < int64(len(d.Strs)) || len(e.answers) >= maxDictAnswers {
		return nil, nil
	}
	a, err := e.work(d)
	if err != nil || a == nil {
		e.answers[d] = nil
		return nil, err
	}
	e.answers[d] = a
	return a, nil
}

// work runs the call over d's entries a batch at a time, checking for
// cancellation between batches. Only a stop or a memory charge the query
// cannot pay is an error; a failing call gives nil.
func (e *codeCallEval) work(d *storage.StringDict) (*dictAnswers, error) {
	m := len(d.Strs)
	vec := vector.New(e.t, m)
	held := int64(m) * 16
	in := vector.New(vector.String, vector.Capacity)
	b := &vector.Batch{Cols: []*vector.Vector{in}}
	for lo := 0; lo < m; lo += vector.Capacity {
		if err := e.c.Interrupted(); err != nil {
			return nil, err
		}
		hi := min(lo+vector.Capacity, m)
		b.Len = hi - lo
		copy(in.Str, d.Strs[lo:hi])
		res, err := e.inner.Eval(b)
		if err != nil {
			return nil, nil
		}
		if res.Type != e.t && res.Type != vector.Null {
			return nil, nil
		}
		for i := range hi - lo {
			if res.Type == vector.Null || res.IsNull(i) {
				vec.SetNull(lo + i)
				continue
			}
			switch e.t {
			case vector.String:
				vec.Str[lo+i] = res.Str[i]
				held += int64(len(res.Str[i]))
			case vector.Int64:
				vec.I64[lo+i] = res.I64[i]
			case vector.Float64:
				vec.F64[lo+i] = res.F64[i]
			case vector.Bool:
				vec.Bools[lo+i] = res.Bools[i]
			}
		}
	}
	if err := e.c.Mem.Charge(held); err != nil {
		return nil, err
	}
	return &dictAnswers{vec: vec}, nil
}
