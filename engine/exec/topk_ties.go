package exec

import (
	"math"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// tieFilter is the bar's test on its second key (topk_bar.go): of the
// rows that passed the INTEGER first key, those tied with the bar on it
// keep only when their second key sorts no later than the bar row's. A
// row equal on both passes (a later key decides); a row without the
// second key passes descending (nulls first) and fails ascending.
type tieFilter struct {
	c    *Context
	then *thenKey
	// known: key looked up; has: it exists.
	known, has bool
	k          catalog.KeyID
	tied, kept []int32
	strs       *stringBar
}

func newTieFilter(c *Context, then *thenKey) *tieFilter {
	return &tieFilter{c: c, then: then, tied: make([]int32, 0, vector.Capacity), kept: make([]int32, 0, vector.Capacity)}
}

// narrow returns sel (rows of a batch of rows rows whose nodes are ids, which passed
// the first key's bar x.i read through first) without the rows tied with
// the bar whose second key sorts after x.then. It narrows nothing when
// the second key has no view or codes to test.
func (t *tieFilter) narrow(first *storage.IntView, x *barValue, ids *vector.Vector, rows int, sel []int32) []int32 {
	t.tied = first.SelectBar(t.tied[:0], ids, sel, len(sel), x.i, x.i, false)
	if len(t.tied) == 0 {
		return sel
	}
	if !t.known {
		t.known = true
		t.k, t.has = t.c.Catalog.LookupKey(t.then.key)
	}
	if !t.has {
		return sel
	}
	bar, desc, tied := x.then, t.then.desc, t.tied
	switch {
	case bar.str:
		if t.strs == nil {
			t.strs = &stringBar{codes: make([]int32, vector.Capacity)}
		}
		kept, ok := t.strs.selectRows(t.c, t.k, desc, bar, ids, tied, len(tied), t.kept[:0])
		if !ok {
			return sel
		}
		t.kept = kept
	case bar.float:
		v := t.c.Tx.NodeFloatView(t.k, rows)
		if v == nil {
			return sel
		}
		t.kept = v.SelectBar(t.kept[:0], ids, tied, len(tied), bar.f, desc, desc)
	default:
		v := t.c.Tx.NodeIntView(t.k, rows)
		if v == nil {
			return sel
		}
		lo, hi := int64(math.MinInt64), bar.i
		if desc {
			lo, hi = bar.i, math.MaxInt64
		}
		t.kept = v.SelectBar(t.kept[:0], ids, tied, len(tied), lo, hi, desc)
	}
	// tied and kept are subsequences of sel: drop the tied rows not kept,
	// in place.
	out, i, j := sel[:0], 0, 0
	for _, r := range sel {
		if i < len(tied) && tied[i] == r {
			i++
			if j < len(t.kept) && t.kept[j] == r {
				j++
				out = append(out, r)
			}
			continue
		}
		out = append(out, r)
	}
	return out
}
