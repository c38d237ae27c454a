package exec

import (
	"math"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// tieFilter is the bar's test on its second key (topk_bar.go), and its
// next on the third: of the rows tied with the bar on the keys before
// it, those keep only whose key sorts no later than the bar row's. A row
// equal on every key tested passes (a later key decides); a row without
// the key passes descending (nulls first) and fails ascending. A row
// whose STRING has no code passes untested.
type tieFilter struct {
	c    *Context
	then *thenKey
	// known: key looked up; has: it exists.
	known, has bool
	k          catalog.KeyID
	tied, kept []int32
	eq         []int32 // the kept rows equal to the bar on this key
	strs       *stringBar
	// next tests the third key, made at its first use.
	next *tieFilter
}

func newTieFilter(c *Context, then *thenKey) *tieFilter {
	return &tieFilter{c: c, then: then, tied: make([]int32, 0, vector.Capacity), kept: make([]int32, 0, vector.Capacity), eq: make([]int32, 0, vector.Capacity)}
}

// narrow returns sel (rows of a batch of rows rows whose nodes are ids, which passed
// the first key's bar x.i read through first) without the rows tied with
// the bar whose second key sorts after x.then, or tied on both whose
// third sorts after x.then.then. It narrows nothing when the second key
// has no view or codes to test.
func (t *tieFilter) narrow(first *storage.IntView, x *barValue, ids *vector.Vector, rows int, sel []int32) []int32 {
	t.tied = first.SelectBar(t.tied[:0], ids, sel, len(sel), x.i, x.i, false)
	if len(t.tied) == 0 {
		return sel
	}
	kept, ok := t.keep(x.then, ids, rows, t.tied)
	if !ok {
		return sel
	}
	return dropUnkept(sel, t.tied, kept)
}

// keep returns the rows of tied (rows tied with the bar on the keys
// before this one) whose key sorts no later than bar, the bar row's;
// false when the key has no view or codes to test (all of them pass).
func (t *tieFilter) keep(bar *barValue, ids *vector.Vector, rows int, tied []int32) ([]int32, bool) {
	if !t.known {
		t.known = true
		t.k, t.has = t.c.Catalog.LookupKey(t.then.key)
	}
	if !t.has {
		return nil, false
	}
	// deeper: the bar and the Sort have a key after this one, tested on
	// the rows equal to the bar on this key (eq).
	desc, deeper := t.then.desc, bar.then != nil && t.then.then != nil
	switch {
	case bar.str:
		if t.strs == nil {
			t.strs = &stringBar{codes: make([]int32, vector.Capacity)}
		}
		kept, ok := t.strs.selectRows(t.c, t.k, desc, bar, ids, tied, len(tied), t.kept[:0])
		if !ok {
			return nil, false
		}
		t.kept = kept
		if deeper {
			t.eq = t.strs.selectEqual(t.c, t.k, bar, ids, t.kept, t.eq[:0])
		}
	case bar.float:
		v := t.c.Tx.NodeFloatView(t.k, rows)
		if v == nil {
			return nil, false
		}
		t.kept = v.SelectBar(t.kept[:0], ids, tied, len(tied), bar.f, desc, desc)
	default:
		v := t.c.Tx.NodeIntView(t.k, rows)
		if v == nil {
			return nil, false
		}
		lo, hi := int64(math.MinInt64), bar.i
		if desc {
			lo, hi = bar.i, math.MaxInt64
		}
		t.kept = v.SelectBar(t.kept[:0], ids, tied, len(tied), lo, hi, desc)
		if deeper {
			t.eq = v.SelectBar(t.eq[:0], ids, t.kept, len(t.kept), bar.i, bar.i, false)
		}
	}
	if !deeper || bar.float || len(t.eq) == 0 {
		return t.kept, true
	}
	if t.next == nil {
		t.next = newTieFilter(t.c, t.then.then)
	}
	// next keeps in buffers of its own.
	if eqKept, ok := t.next.keep(bar.then, ids, rows, t.eq); ok {
		t.kept = dropUnkept(t.kept, t.eq, eqKept)
	}
	return t.kept, true
}

// dropUnkept drops from sel, in place, the rows of tested not in kept;
// tested and kept are subsequences of sel, kept of tested.
func dropUnkept(sel, tested, kept []int32) []int32 {
	out, i, j := sel[:0], 0, 0
	for _, r := range sel {
		if i < len(tested) && tested[i] == r {
			i++
			if j < len(kept) && kept[j] == r {
				j++
				out = append(out, r)
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// selectEqual appends to out the rows of sel whose STRING property k
// equals the bar's x.s, by the rank of their codes in the dictionary
// selectRows pinned; none when their codes are of another dictionary. A
// row without a code is not among them: it passes untested.
func (sb *stringBar) selectEqual(c *Context, k catalog.KeyID, x *barValue, ids *vector.Vector, sel []int32, out []int32) []int32 {
	if sb.dict == nil || len(sel) == 0 {
		return out
	}
	if d, ok := c.Tx.GatherNodePropCodesIn(k, sb.dict, ids, sel, len(sel), sb.codes); !ok || d != sb.dict {
		return out
	}
	if sb.eqAt != x || sb.eqDict != sb.dict {
		sb.eqAt, sb.eqDict = x, sb.dict
		sb.eqLo, sb.eqHi = sb.dict.RankBound(x.s, false), sb.dict.RankBound(x.s, true)
	}
	for _, r := range sel {
		if code := sb.codes[r]; code >= 0 {
			if rank := sb.rank[code]; rank >= sb.eqLo && rank < sb.eqHi {
				out = append(out, r)
			}
		}
	}
	return out
}
