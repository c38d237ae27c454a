package exec

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// A top-k's bar (rule topk-bar). A Sort keeping the best k rows knows,
// once it holds k of them, the k-th value of its first key: a row whose
// first key sorts strictly after it can never enter. When that key is a
// property of the node a scan below the Sort's Project produces
// (plan.TopKBarKey), the Sort publishes the value and a test right above
// the scan drops such rows through the column's integer or float view,
// or a STRING column's dictionary codes ranked once per dictionary
// (stringBar), before the Project gathers the row's other properties:
// ORDER BY p.age DESC, p.city LIMIT 20 over a million people then reads
// the city of a few thousand, and ORDER BY p.name SKIP 50000 LIMIT 10
// gathers the names of the rows up to the bar's name instead of all.
//
// The bar only ever tightens (each prune keeps the k best of more rows),
// and each of the pipeline's workers reads the latest published one per
// batch: a stale bar is a looser one, never too strict. A row equal to
// the bar passes (it may still enter on a later key), and a null passes
// where the sort orders nulls before the bar (descending). The Sort still
// tests every row it receives against its own bar.
//
// When the first key is an INTEGER and the second a property of the same
// node, the bar carries the bar row's second key as well, and a row tied
// with the bar on the first key passes only if its second key sorts no
// later than the bar's (tieFilter, topk_ties.go); when the second is an
// INTEGER or a STRING and the third a property of the node too, a row
// tied on both passes only if its third key sorts no later than the
// bar's. ORDER BY p.age DESC, p.city, p.id LIMIT 20 then lets through, of
// the people of the highest age and the first city, those of the lowest
// ids only.

// topBar is the bar one Sort publishes (v: nil until it holds k rows
// whose k-th first key is an INTEGER, a FLOAT or a STRING) and where the test
// reads the key: property key of the node in column col of the
// Project's input, sorted descending or not.
type topBar struct {
	v    atomic.Pointer[barValue]
	col  int
	key  string
	desc bool
	// then is the second key's property and order when it is one of the
	// same node (plan.TopKBarTieKeys), nil otherwise.
	then *thenKey
}

// thenKey is a Sort's second or third key, a property of the bar's node;
// then is the key after it (the third), nil for none.
type thenKey struct {
	key  string
	desc bool
	then *thenKey
}

// barValue is a published bar: the k-th first key, INTEGER, FLOAT or
// STRING.
type barValue struct {
	float bool
	str   bool
	i     int64
	f     float64
	s     string
	// then is the bar row's next key: its second, when the first is an
	// INTEGER and the second a non-null INTEGER, FLOAT or STRING property
	// of the node; and the second's then its third, when the second is an
	// INTEGER or a STRING and the third such a property.
	then *barValue
}

// barRegistry holds the bars of a statement's Sorts by the Project each
// feeds; shared with the statement's workers, which look theirs up as
// they build their pipeline.
type barRegistry struct {
	mu   sync.Mutex
	bars map[*plan.Project]*topBar
}

// registerBar gives Sort s a fresh bar before its input is built (an
// OPTIONAL MATCH or a subquery rebuilds s per input batch, and the bar
// of an earlier build must not filter the rows of a later one).
func (c *Context) registerBar(s *plan.Sort) {
	if c.bars == nil {
		c.bars = &barRegistry{bars: map[*plan.Project]*topBar{}}
	}
	col, key, ok := plan.TopKBarKey(s)
	if !ok {
		return
	}
	bar := &topBar{col: col, key: key, desc: s.Keys[0].Desc}
	at := &bar.then
	for i, k := range plan.TopKBarTieKeys(s) {
		*at = &thenKey{key: k, desc: s.Keys[1+i].Desc}
		at = &(*at).then
	}
	c.bars.mu.Lock()
	c.bars.bars[s.Input.(*plan.Project)] = bar
	c.bars.mu.Unlock()
}

// barOf is the bar registered for the Sort over Project p, nil for none.
func (c *Context) barOf(p *plan.Project) *topBar {
	if c.bars == nil {
		return nil
	}
	c.bars.mu.Lock()
	defer c.bars.mu.Unlock()
	return c.bars.bars[p]
}

// publish makes the first key of row r of the held column v the bar, when
// it is a non-null INTEGER, FLOAT or STRING, with row r of then, the held
// second and third keys' columns, as the bar's next keys as far as the
// bar has them (barValue.then); called after each prune that left k rows,
// with r the k-th.
func (b *topBar) publish(v *vector.Vector, then []*vector.Vector, r int) {
	if b == nil {
		return
	}
	x := valueAt(v, r)
	if x == nil {
		return
	}
	if !x.float && !x.str {
		at, key := x, b.then
		for i := 0; key != nil && i < len(then); i, key = i+1, key.then {
			if at.then = valueAt(then[i], r); at.then == nil || at.then.float {
				break
			}
			at = at.then
		}
	}
	b.v.Store(x)
}

// valueAt is row r of v as a bar value; nil when it is null or of
// another type.
func valueAt(v *vector.Vector, r int) *barValue {
	if v == nil || v.IsNull(r) {
		return nil
	}
	switch v.Type {
	case vector.Int64:
		return &barValue{i: v.I64[r]}
	case vector.Float64:
		return &barValue{float: true, f: v.F64[r]}
	case vector.String:
		return &barValue{str: true, s: v.Str[r]}
	}
	return nil
}

// barFilter is the test above the scan: it keeps the rows whose node's
// property sorts no later than the bar, or all of them while there is no
// bar, no view of the column, or a view of the other numeric type than
// the bar's.
type barFilter struct {
	c   *Context
	in  Operator
	bar *topBar
	k   catalog.KeyID
	// known: key looked up; has: it exists.
	known, has bool
	sel        []int32
	strs       *stringBar // a STRING bar's test
	ties       *tieFilter // the second key's test, made at its first use
}

// withBar puts the bar test of the Sort over p under p, when that Sort
// chose rule topk-bar (and registered its bar before p was built); in
// otherwise.
func withBar(c *Context, p *plan.Project, in Operator) Operator {
	bar := c.barOf(p)
	if bar == nil {
		return in
	}
	return &barFilter{c: c, in: in, bar: bar, sel: c.pool().Int32s()}
}

func (f *barFilter) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return b, err
		}
		if b, err = f.filter(b); err != nil || b != nil {
			return b, err
		}
	}
}

// filter narrows b to the rows that can still enter the top k; nil when
// none can.
func (f *barFilter) filter(b *vector.Batch) (*vector.Batch, error) {
	x := f.bar.v.Load()
	if x == nil {
		return b, nil
	}
	ids := b.Cols[f.bar.col]
	if ids.Type != vector.Node {
		return b, nil
	}
	if !f.known {
		f.known = true
		f.k, f.has = f.c.Catalog.LookupKey(f.bar.key)
	}
	if !f.has {
		return b, nil
	}
	sel, n := rows(b)
	// A row of a node this statement deleted fails in the Project; the
	// test must not drop it first.
	if err := f.c.CheckDeleted(ids, sel, n); err != nil {
		return nil, err
	}
	desc := f.bar.desc
	if x.str {
		if f.strs == nil {
			f.strs = &stringBar{codes: make([]int32, vector.Capacity)}
		}
		if !f.strs.filter(f, x, ids, sel, n) {
			return b, nil
		}
	} else if x.float {
		v := f.c.Tx.NodeFloatView(f.k, b.Rows())
		if v == nil {
			return b, nil
		}
		f.sel = v.SelectBar(f.sel[:0], ids, sel, n, x.f, desc, desc)
	} else {
		v := f.c.Tx.NodeIntView(f.k, b.Rows())
		if v == nil {
			return b, nil
		}
		lo, hi := int64(math.MinInt64), x.i
		if desc {
			lo, hi = x.i, math.MaxInt64
		}
		f.sel = v.SelectBar(f.sel[:0], ids, sel, n, lo, hi, desc)
		if x.then != nil && len(f.sel) > 0 {
			if f.ties == nil {
				f.ties = newTieFilter(f.c, f.bar.then)
			}
			f.sel = f.ties.narrow(v, x, ids, b.Rows(), f.sel)
		}
	}
	if len(f.sel) == 0 {
		return nil, nil
	}
	b.Sel = f.sel
	return b, nil
}

// stringBar tests a STRING bar on dictionary codes: each code's rank in
// its dictionary's sort order (storage.StringDict.Ranks) against the
// number of the dictionary's strings that sort no later than the bar
// (no earlier, descending), computed once per bar and dictionary. A row
// without a code passes (the Sort tests it), a row without a value
// passes descending (nulls first) and fails ascending (last).
type stringBar struct {
	codes []int32
	dict  *storage.StringDict
	rank  []uint32
	at    *barValue // the bar bound was computed for
	bound uint32
	// pass is, ascending, 1 for each code that passes: a batch of the
	// dictionary's codes alone is then selected in one pass over the
	// column (storage.SelectNodePropCodes), which drops rows without a
	// value as ascending does.
	pass []uint8
	// eqLo and eqHi bound the ranks of the strings equal to eqAt's in
	// eqDict (selectEqual).
	eqAt       *barValue
	eqDict     *storage.StringDict
	eqLo, eqHi uint32
}

// filter narrows f.sel to the rows of the batch that can enter; false
// when the batch has no codes (every row passes).
func (sb *stringBar) filter(f *barFilter, x *barValue, ids *vector.Vector, sel []int32, n int) bool {
	out, ok := sb.selectRows(f.c, f.k, f.bar.desc, x, ids, sel, n, f.sel[:0])
	if ok {
		f.sel = out
	}
	return ok
}

// selectRows appends to out the rows of sel (0..n-1 when nil) whose
// property k sorts no later than the STRING bar x in the order desc
// says; false when the batch has no codes (every row passes).
func (sb *stringBar) selectRows(c *Context, k catalog.KeyID, desc bool, x *barValue, ids *vector.Vector, sel []int32, n int, out []int32) ([]int32, bool) {
	if !desc && sb.dict != nil && x == sb.at {
		// The one pass, while the batch's values are all of the pinned
		// dictionary's codes or null.
		if out, clean := c.Tx.SelectNodePropCodes(k, sb.dict, sb.pass, ids, sel, n, out); clean {
			return out, true
		}
	}
	d, ok := c.Tx.GatherNodePropCodesIn(k, sb.dict, ids, sel, n, sb.codes)
	if !ok || d == nil {
		return out, false
	}
	if d != sb.dict || x != sb.at {
		sb.dict, sb.rank, sb.at = d, d.Ranks(), x
		// Ascending, code c passes while rank < the strings up to the
		// bar; descending, while rank >= those before it.
		sb.bound = d.RankBound(x.s, !desc)
		if !desc {
			sb.pass = slices.Grow(sb.pass[:0], len(sb.rank))[:len(sb.rank)]
			for code, r := range sb.rank {
				sb.pass[code] = 0
				if r < sb.bound {
					sb.pass[code] = 1
				}
			}
		}
	}
	codes, rank, bound := sb.codes, sb.rank, sb.bound
	forRows(sel, n, func(r int32) {
		switch code := codes[r]; code {
		case -1:
			out = append(out, r)
		case storage.NullCode:
			if desc {
				out = append(out, r)
			}
		default:
			if (rank[code] < bound) != desc {
				out = append(out, r)
			}
		}
	})
	return out, true
}
