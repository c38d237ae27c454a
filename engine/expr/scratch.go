package expr

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// Where evaluators write. An expression is a tree, evaluated depth first:
// a node's output is needed only until its parent has computed from it.
// So the nodes of one compiled tree (one Compile call) share a few output
// slots instead of owning a vector each, which cost 8 to 16 KiB a node
// at the batch size: a balanced OR of 60,000 comparisons (985 KiB of
// text) held 2.3 GB before, and holds a few hundred KiB of vectors now.
//
// Slots are handed out at compile time, in evaluation order:
//
//   - a node takes the slot at the cursor; its children are compiled from
//     the next slot on, each child on the slot after the previous child's
//     (the earlier output is still live while a later child computes);
//   - once a node is compiled the cursor is back right after its slot:
//     its subtree's slots are free again as soon as its output exists;
//   - children a node consumes one at a time (CASE branches, coalesce
//     arguments, list and map literal parts, map projection items, the
//     operands of an n-ary AND, OR or XOR) take the same slot
//     (compileSeq).
//
// A tree therefore uses about depth × held fan-out slots, not one per
// node: two per level of a binary tree, so at most 2,000 at the parser's
// depth limit, 36 for a balanced tree of 260,000 terms. A slot keeps one
// vector per type, sized to the largest batch it met (a RETURN sees one
// row), and the scratch arrays of the lazy and iterating evaluators.
//
// The rule that keeps this sound: an evaluator returns its slot's vector,
// an input column, a constant's filled vector or NullVector, never the
// output of a child (that lives in a slot the next sibling may take);
// where it would pass a child's output on unchanged, it copies it.
// Conversions an evaluator makes of its operands after they are all
// computed (integers widened to floats, values to booleans) go to the
// tree's temporaries, which no evaluation can intervene in.
//
// Every vector and array a scratch allocates is charged to the
// statement's accountant, once per tree (scratch.charge), together with
// an estimate of the evaluators themselves (nodeBytes).

// scratch is the output storage of one compiled tree.
type scratch struct {
	env   *Env
	slots []*slot
	temps [numTemps][vectorTypes]*vector.Vector
	// cur is the compile cursor: the slot the next node takes.
	cur int
	// acct is what trees of this root expression have charged (several
	// trees of one root when an operator is rebuilt per batch: each
	// replaces the last, so the most any of them held is charged once).
	// Roots are told apart by their shape (exprKey), not their pointer:
	// an operator may build its expression anew at each rebuild (a
	// conjunction of its filters).
	acct *account
	// bytes is what this tree holds; err is the first charge that failed
	// while it evaluated, which its root evaluator reports.
	bytes int64
	err   error
}

// account is the charge of the trees compiled from one root expression.
type account struct{ charged int64 }

// numTemps is how many temporaries of a type one evaluator may use at
// once (the two widened operands of a comparison).
const numTemps = 2

// vectorTypes is the number of vector types (vector.Null to vector.Any).
const vectorTypes = int(vector.Any) + 1

// nodeBytes estimates what one node of a compiled expression holds
// besides its slot: its evaluator and the bound plan node it came from.
// TestCompiledTreeBytes measures 67 bytes a node over a balanced OR of
// 60,000 comparisons (44 of plan, 23 of evaluators); evaluators of calls,
// CASE and comprehensions are larger.
const nodeBytes = 96

func newScratch(c *Env, root plan.Expr) *scratch {
	t := &scratch{env: c}
	if c.scratchAccounts == nil {
		c.scratchAccounts = map[uint64]*account{}
	}
	key := exprKey(root)
	t.acct = c.scratchAccounts[key]
	if t.acct == nil {
		t.acct = &account{}
		c.scratchAccounts[key] = t.acct
	}
	return t
}

// exprKey hashes e's shape: each node's kind and the scalars it carries
// (column, operator, key, name, a scalar constant), in walk order. Two
// expressions of one statement with one key share an account, which
// then charges the larger only; the text would tell more apart, but
// printing a left-deep chain the binder built (a pattern's 80,000
// property tests) copies it once per level.
func exprKey(e plan.Expr) uint64 {
	h := fnv.New64a()
	var b []byte
	num := func(tag byte, n int64) { b = binary.LittleEndian.AppendUint64(append(b, tag), uint64(n)) }
	str := func(tag byte, s string) { b = append(append(append(b, tag), s...), 0) }
	plan.Walk(e, func(x plan.Expr) {
		b = b[:0]
		switch x := x.(type) {
		case *plan.ColRef:
			num('c', int64(x.Idx))
		case *plan.Const:
			switch v := x.Val.(type) {
			case int64:
				num('i', v)
			case float64:
				num('f', int64(math.Float64bits(v)))
			case string:
				str('s', v)
			case bool:
				str('b', strconv.FormatBool(v))
			default:
				num('k', memory.ValueBytes(v))
			}
		case *plan.Param:
			str('$', x.Name)
		case *plan.Property:
			str('.', x.Key)
		case *plan.Binary:
			num('o', int64(x.Op))
		case *plan.Call:
			str('(', x.Name)
			num('n', int64(len(x.Args)))
		case *plan.HasLabels:
			for _, l := range x.Labels {
				str(':', l)
			}
			if x.Expr != nil {
				str('~', x.Expr.String())
			}
		case *plan.PatternSubquery:
			str('{', x.Text)
		default:
			str('?', fmt.Sprintf("%T", x))
		}
		h.Write(b)
	})
	return h.Sum64()
}

// charge counts n more bytes the tree holds. At compile time the error
// fails Compile; while evaluating it is kept for the root to report (the
// allocation that crossed the limit is at most one batch of one slot).
func (t *scratch) charge(n int64) error {
	t.bytes += n
	if t.env == nil {
		return nil // an evaluator built outside Compile: no accountant
	}
	if t.bytes <= t.acct.charged {
		return nil
	}
	more := t.bytes - t.acct.charged
	t.acct.charged = t.bytes
	err := t.env.Mem.Charge(more)
	if err != nil && t.err == nil {
		t.err = err
	}
	return err
}

// enter gives the node being compiled its slot and moves the cursor past
// it, for its children.
func (t *scratch) enter() int {
	s := t.cur
	if s == len(t.slots) {
		t.slots = append(t.slots, &slot{t: t})
	}
	t.cur++
	return s
}

// leave ends the node of slot s: its subtree's slots are free.
func (t *scratch) leave(s int) { t.cur = s + 1 }

// temp is temporary k of type typ with room for n rows: an evaluator's
// conversion of an operand, used after every operand is computed and
// before it returns.
func (t *scratch) temp(k int, typ vector.Type, n int) *vector.Vector {
	v := t.temps[k][typ]
	if v == nil || v.Len() < n {
		v = t.alloc(typ, n, v)
		t.temps[k][typ] = v
	}
	v.ResetNulls()
	return v
}

// alloc makes a vector of typ with room for n rows, growing old: sized
// to the batches met, so a tree evaluated over one-row batches holds
// one-row vectors.
func (t *scratch) alloc(typ vector.Type, n int, old *vector.Vector) *vector.Vector {
	size := max(n, 1)
	if old != nil {
		size = max(n, min(2*old.Len(), vector.Capacity))
	}
	v := vector.New(typ, size)
	t.charge(vectorBytes(typ, size) - vectorBytes(typ, lenOf(old)))
	return v
}

func lenOf(v *vector.Vector) int {
	if v == nil {
		return 0
	}
	return v.Len()
}

// vectorBytes is what a vector of typ with room for n rows holds.
func vectorBytes(typ vector.Type, n int) int64 {
	var width int64
	switch typ {
	case vector.Bool:
		width = 1
	case vector.Int64, vector.Float64, vector.Node, vector.Rel:
		width = 8
	case vector.String, vector.Any:
		width = 16
	}
	return width*int64(n) + int64((n+63)/64)*8
}

// slot is one output place of a tree: a vector per type (an evaluator
// whose output type changes from batch to batch keeps both), and the
// scratch arrays of the evaluators that need some while they run.
type slot struct {
	t    *scratch
	vecs [vectorTypes]*vector.Vector
	// kept is the constant whose value fills vecs[typ] on its first
	// filled rows; any other use of the vector clears it.
	kept   [vectorTypes]*constEval
	filled [vectorTypes]int
	// sels are selection buffers (CASE, coalesce).
	sels [3][]int32
	// iter is the state of a comprehension, quantifier or reduce.
	iter *iterState
}

// vec is the slot's vector of typ with room for n rows, its nulls
// cleared: the output of the evaluator that calls it.
func (s *slot) vec(typ vector.Type, n int) *vector.Vector {
	v := s.vecs[typ]
	if v == nil || v.Len() < n {
		v = s.t.alloc(typ, n, v)
		s.vecs[typ] = v
	}
	s.kept[typ] = nil
	v.ResetNulls()
	return v
}

// sel is selection buffer k, empty, with room for a batch.
func (s *slot) sel(k int) []int32 {
	if s.sels[k] == nil {
		s.sels[k] = make([]int32, 0, vector.Capacity)
		s.t.charge(4 * vector.Capacity)
	}
	return s.sels[k][:0]
}

// output is how an evaluator reaches its slot: the one Compile gave it,
// or one of its own when it was built otherwise (tests build evaluators
// directly).
type output struct{ sl *slot }

// bindSlot gives the evaluator its slot in the tree.
func (o *output) bindSlot(s *slot) { o.sl = s }

// slot is the evaluator's slot.
func (o *output) slot() *slot {
	if o.sl == nil {
		o.sl = &slot{t: &scratch{acct: &account{}}}
	}
	return o.sl
}

// vec is the evaluator's output vector of typ for a batch of n rows.
func (o *output) vec(typ vector.Type, n int) *vector.Vector { return o.slot().vec(typ, n) }

// temp is the tree's temporary k of typ for a batch of n rows.
func (o *output) temp(k int, typ vector.Type, n int) *vector.Vector {
	return o.slot().t.temp(k, typ, n)
}

// slotted is an evaluator that writes into a slot.
type slotted interface{ bindSlot(*slot) }

// rootEval is a compiled tree's root: it reports a charge of the tree's
// scratch that failed while the tree evaluated.
type rootEval struct {
	in Evaluator
	t  *scratch
}

func (e *rootEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	v, err := e.in.Eval(b)
	if e.t.err != nil {
		return nil, e.t.err
	}
	return v, err
}

// compileNode compiles e as a node of the tree being compiled: it takes
// a slot, its children take the following ones, and an expression that
// builds values is wrapped in its accountant (chargedEval).
func compileNode(c *Env, e plan.Expr) (Evaluator, error) {
	t := c.tree
	s := t.enter()
	ev, err := compileExpr(c, e)
	t.leave(s)
	if err != nil {
		return nil, err
	}
	held := int64(nodeBytes)
	if k, ok := e.(*plan.Const); ok {
		switch k.Val.(type) {
		case string, []vector.Value, map[string]vector.Value:
			held += memory.ValueBytes(k.Val) // a folded literal
		}
	}
	if err := t.charge(held); err != nil {
		return nil, err
	}
	if sl, ok := ev.(slotted); ok {
		sl.bindSlot(t.slots[s])
	}
	if buildsValues(e) {
		return &chargedEval{c: c, in: ev}, nil
	}
	return ev, nil
}

// compileSeq compiles exprs as children their parent evaluates and
// consumes one after the other: they share one slot.
func compileSeq(c *Env, exprs []plan.Expr) ([]Evaluator, error) {
	t := c.tree
	base := t.cur
	out := make([]Evaluator, len(exprs))
	for i, x := range exprs {
		t.cur = base
		ev, err := compileNode(c, x)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	t.cur = base + 1
	return out, nil
}

// compileArgs compiles exprs as children their parent holds together:
// each on its own slot.
func compileArgs(c *Env, exprs []plan.Expr) ([]Evaluator, error) {
	out := make([]Evaluator, len(exprs))
	for i, a := range exprs {
		ev, err := compileNode(c, a)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}
