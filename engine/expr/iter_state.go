package expr

import "github.com/quiverdb/quiver/vector"

// iterState is the scratch of the evaluators that keep per-row state
// while their children run: list and map literals, comprehensions,
// quantifiers and reduce. It lives in the evaluator's slot (scratch.go),
// so those at one place of a tree share it: only one of them runs there
// at a time, and each sets, before reading, every entry it reads. Arrays
// grow to the batches met, and what they hold is charged to the tree
// (account).
type iterState struct {
	lists  [][]vector.Value          // per row: a list being built, or a list read
	maps   []map[string]vector.Value // per row: a map being built
	final  []vector.Value            // per row: reduce's result
	null   []bool                    // per row: a null list
	counts [3][]int32                // per row: a quantifier's true, false and null results
	idx    []int32                   // pending elements' outer rows
	prev   []int32                   // reduce: the previous step's rows
	pos    []int32                   // reduce: rows' positions in the previous step
	elems  []vector.Value            // pending elements
	accs   [2]*vector.Vector         // reduce's alternating accumulators
	local  localState                // the inner batch
	held   int64                     // bytes charged for the above
}

// iterState is the slot's iterState.
func (s *slot) iterState() *iterState {
	if s.iter == nil {
		s.iter = &iterState{}
	}
	return s.iter
}

// rowsOf returns a with room for n rows.
func rowsOf[T any](a []T, n int) []T {
	if len(a) >= n {
		return a
	}
	return make([]T, max(n, min(2*len(a), vector.Capacity)))
}

func (st *iterState) listsFor(t *scratch, n int) [][]vector.Value {
	st.lists = rowsOf(st.lists, n)
	st.account(t)
	return st.lists
}

func (st *iterState) mapsFor(t *scratch, n int) []map[string]vector.Value {
	st.maps = rowsOf(st.maps, n)
	st.account(t)
	return st.maps
}

// account charges t for what the state's arrays and vectors grew to since
// it last did.
func (st *iterState) account(t *scratch) {
	n := int64(24*cap(st.lists)+8*cap(st.maps)+16*cap(st.final)+cap(st.null)+
		4*(cap(st.counts[0])+cap(st.counts[1])+cap(st.counts[2])+cap(st.idx)+cap(st.prev)+cap(st.pos))+
		16*cap(st.elems)) + st.local.bytes()
	for _, v := range st.accs {
		if v != nil {
			n += vectorBytes(v.Type, v.Len())
		}
	}
	if n > st.held {
		t.charge(n - st.held)
		st.held = n
	}
}
