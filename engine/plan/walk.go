package plan

import (
	"fmt"
	"unsafe"
)

// Generic walks over a plan tree, in the manner of go/ast's Inspect: rules,
// the cost model and the executor's parallel marking read an operator's
// inputs through Children and replace them through SetChild, so none of
// them needs a case per operator type to reach or rebuild a subtree.

// Inspect calls f for op and, while f returns true, for each of its inputs
// depth-first, in the order of Children. A missing input (nil, in a plan
// built by hand for a test) is skipped.
func Inspect(op Operator, f func(Operator) bool) {
	if op == nil || !f(op) {
		return
	}
	for _, c := range op.Children() {
		Inspect(c, f)
	}
}

// Any reports whether some operator of the tree rooted at op satisfies f.
func Any(op Operator, f func(Operator) bool) bool {
	found := false
	Inspect(op, func(o Operator) bool {
		found = found || f(o)
		return !found
	})
	return found
}

// ReplaceChild puts n in place of parent's input old and reports whether
// old was one of parent's inputs.
func ReplaceChild(parent, old, n Operator) bool {
	for i, c := range parent.Children() {
		if c == old {
			parent.SetChild(i, n)
			return true
		}
	}
	return false
}

// one is Children of an operator of one input: a slice of length one
// over the field itself, so that the walks (the rule passes, the physical
// pass, cost and build each walk the plan) allocate nothing per operator;
// a new one-element slice each call was most of a short statement's added
// allocations. The slice is a view of the field: callers read it and
// replace an input through SetChild.
func one(in *Operator) []Operator { return unsafe.Slice(in, 1) }

// only checks that an operator of one input is asked for input 0 and
// returns c for it.
func only(i int, c Operator) Operator {
	if i != 0 {
		panic(fmt.Sprintf("BUG: input %d of an operator with one input", i))
	}
	return c
}

// pick is the field of input i of an operator of two inputs.
func pick(i int, first, second *Operator) *Operator {
	switch i {
	case 0:
		return first
	case 1:
		return second
	}
	panic(fmt.Sprintf("BUG: input %d of an operator with two inputs", i))
}

// noChild is SetChild of a leaf, which has no input to replace.
func noChild(i int) {
	panic(fmt.Sprintf("BUG: input %d of an operator without inputs", i))
}
