package expr

import (
	"runtime"
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// balanced joins terms pairwise with op until one is left: the shape a
// text gets to stay under the parser's depth limit.
func balanced(terms []plan.Expr, op plan.BinOp) plan.Expr {
	for len(terms) > 1 {
		var next []plan.Expr
		for i := 0; i < len(terms); i += 2 {
			if i+1 < len(terms) {
				next = append(next, &plan.Binary{Op: op, L: terms[i], R: terms[i+1]})
			} else {
				next = append(next, terms[i])
			}
		}
		terms = next
	}
	return terms[0]
}

// orOfEqualities is x = 0 OR x = 1 OR … with n terms, balanced.
func orOfEqualities(n int) plan.Expr {
	terms := make([]plan.Expr, n)
	for i := range terms {
		terms[i] = &plan.Binary{Op: plan.OpEq, L: &plan.ColRef{Idx: 0, T: vector.Int64}, R: &plan.Const{Val: int64(i), T: vector.Int64}}
	}
	return balanced(terms, plan.OpOr)
}

// sumOfOnes is 1 + 1 + … with n terms, balanced.
func sumOfOnes(n int) plan.Expr {
	terms := make([]plan.Expr, n)
	for i := range terms {
		terms[i] = &plan.Const{Val: int64(1), T: vector.Int64}
	}
	return balanced(terms, plan.OpAdd)
}

// ints is a full batch of one INTEGER column 0, 1, 2, ….
func ints() *vector.Batch {
	v := vector.New(vector.Int64, vector.Capacity)
	for i := range v.I64 {
		v.I64[i] = int64(i)
	}
	return &vector.Batch{Cols: []*vector.Vector{v}, Len: vector.Capacity}
}

// A tree's nodes share their outputs: a balanced OR of 20,000
// comparisons and a balanced sum of 20,000 ones take a few dozen slots,
// not one vector per node, and their results are right.
func TestScratchSlotsAreShared(t *testing.T) {
	for _, c := range []struct {
		name string
		e    plan.Expr
		max  int
		want func(out *vector.Vector) bool
	}{
		{"or of equalities", orOfEqualities(20000), 40, func(out *vector.Vector) bool {
			for i := range vector.Capacity {
				if out.IsNull(i) || !out.Bools[i] {
					return false
				}
			}
			return true
		}},
		{"sum of ones", sumOfOnes(20000), 40, func(out *vector.Vector) bool {
			for i := range vector.Capacity {
				if out.IsNull(i) || out.I64[i] != 20000 {
					return false
				}
			}
			return true
		}},
	} {
		env := &Env{}
		ev, err := Compile(env, c.e)
		if err != nil {
			t.Fatal(err)
		}
		tree := ev.(*rootEval).t
		for range 2 { // the second batch reuses what the first filled
			out, err := ev.Eval(ints())
			if err != nil {
				t.Fatal(err)
			}
			if !c.want(out) {
				t.Fatalf("%s: wrong result", c.name)
			}
		}
		vecs := 0
		for _, s := range tree.slots {
			for _, v := range s.vecs {
				if v != nil {
					vecs++
				}
			}
		}
		if len(tree.slots) > c.max || vecs > 2*c.max {
			t.Errorf("%s: %d slots holding %d vectors, want at most %d slots", c.name, len(tree.slots), vecs, c.max)
		}
		t.Logf("%s: %d slots, %d vectors, %d bytes charged", c.name, len(tree.slots), vecs, tree.bytes)
	}
}

// A compiled node and its share of the bound plan hold about nodeBytes,
// the estimate Compile charges per node: measured on the live heap over
// a balanced OR of 60,000 comparisons.
func TestCompiledTreeBytes(t *testing.T) {
	const n = 60000
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	start := live()
	e := orOfEqualities(n)
	planned := live()
	nodes := 0
	plan.Walk(e, func(plan.Expr) { nodes++ })
	ev, err := Compile(&Env{}, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Eval(ints()); err != nil {
		t.Fatal(err)
	}
	compiled := live()
	runtime.KeepAlive(e)
	runtime.KeepAlive(ev)
	perNode := (compiled - start) / int64(nodes)
	t.Logf("%d nodes: plan %d bytes, evaluators %d bytes, %d a node (charged %d)",
		nodes, planned-start, compiled-planned, perNode, nodeBytes)
	if perNode > nodeBytes || perNode < nodeBytes/2 {
		t.Errorf("a compiled node holds %d bytes with its plan, the estimate is %d", perNode, nodeBytes)
	}
}

// An operator rebuilt per batch compiles its expressions again, and may
// build them anew (a conjunction of its filters): the new tree replaces
// the old one, and is not charged a second time. Another expression is.
func TestRebuiltTreesAreChargedOnce(t *testing.T) {
	env := &Env{}
	compile := func(e plan.Expr) {
		t.Helper()
		ev, err := Compile(env, e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Eval(ints()); err != nil {
			t.Fatal(err)
		}
	}
	compile(orOfEqualities(1000))
	once := env.Mem.Used()
	if once < 1000*nodeBytes {
		t.Fatalf("a tree of 1000 comparisons charged %d bytes", once)
	}
	compile(orOfEqualities(1000)) // the same text, new plan nodes
	if again := env.Mem.Used(); again != once {
		t.Errorf("the rebuilt tree charged %d bytes more", again-once)
	}
	compile(sumOfOnes(1000))
	if env.Mem.Used() == once {
		t.Error("another expression charged nothing")
	}
}
