package exec

import (
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// indexSeek yields the node ids an index holds for the seek's key values,
// at the transaction's snapshot (its own writes included), in id order.
// The plan keeps the predicate's Filter above it, so a seek may return a
// superset: a value that cannot be a key (null, a type the range does
// not cover) simply yields no ids.
type indexSeek struct {
	c  *Context
	p  *plan.IndexSeek
	it roaring.ManyIntIterable
	// An ordered seek (plan.IndexSeek.Ordered, replacing a sort) reads
	// its index through cursor, or, without its index, the sorted ids
	// in ordered, consumed from the front; labels filters both.
	isOrdered bool
	cursor    *storage.IndexCursor
	ordered   []uint64
	labels    *roaring.Bitmap
	ids       []uint64
	buf       []uint32
	out       *vector.Batch
	opened    bool
}

func newIndexSeek(c *Context, p *plan.IndexSeek) *indexSeek {
	if c.Profile != nil {
		c.Profile.entry(p).Index = p.Index
	}
	return &indexSeek{c: c, p: p, buf: c.pool().Uint32s(), out: c.pool().Batch(vector.Node)}
}

func (s *indexSeek) open() error {
	s.opened = true
	tx := s.c.Tx
	ix := planned(tx.Schema(), s.p.Index, s.p.Labels, s.p.Props)
	if s.p.Ordered {
		s.isOrdered = true
		s.labels = s.labelNodes(nil)
		if ix != nil && ix.Type == catalog.BTree {
			lo, hi, st, err := s.orderedBounds()
			switch {
			case err != nil:
				return err
			case st == boundsUnusable:
				return errs.Internal("BUG: ordered index seek on values the index cannot order")
			case st == boundsOK:
				s.cursor = tx.IndexCursor(ix, lo, hi, s.p.Desc)
			}
			return nil
		}
		// The plan has no Sort above: without its index the seek sorts
		// the label's nodes itself.
		s.ordered = s.sortedLabelNodes()
		if s.p.Desc {
			for i, j := 0, len(s.ordered)-1; i < j; i, j = i+1, j-1 {
				s.ordered[i], s.ordered[j] = s.ordered[j], s.ordered[i]
			}
		}
		return nil
	}
	bm, _, err := s.nodes(ix)
	if err != nil {
		return err
	}
	s.it = bm.ManyIterator()
	return nil
}

// nodes are the nodes with the seek's labels that index ix finds for the
// key values, and covered set; or, when the index is gone (ix nil:
// dropped after the plan was made) or cannot compare the values, every
// node with the labels, as a scan would read them, and covered unset.
// The Filter above applies the predicate either way.
func (s *indexSeek) nodes(ix *catalog.Index) (bm *roaring.Bitmap, covered bool, err error) {
	if ix == nil {
		return s.labelNodes(nil), false, nil
	}
	if bm, err = s.seek(s.c.Tx, ix); err != nil {
		return nil, false, err
	}
	if bm == nil {
		return s.labelNodes(nil), false, nil
	}
	s.c.Counters.DBHits += int64(bm.GetCardinality())
	s.c.Counters.IndexHits += int64(bm.GetCardinality())
	return s.labelNodes(bm), true, nil
}

// sortedLabelNodes lists the nodes with the seek's labels in the key
// order of the property the seek orders by (nodes without it first: the
// Filter above drops them, as the predicate needs the property).
func (s *indexSeek) sortedLabelNodes() []uint64 {
	prop := s.p.Props[min(len(s.p.Eq), len(s.p.Props)-1)]
	k, hasKey := s.c.Catalog.LookupKey(prop)
	type keyed struct {
		key string
		id  uint64
	}
	var rows []keyed
	it := s.labelNodes(nil).Iterator()
	for it.HasNext() {
		id := uint64(it.Next())
		var key []byte
		if hasKey {
			s.c.Tx.NodeProps(id, func(pk catalog.KeyID, v vector.Value) {
				if pk == k {
					key, _ = storage.AppendIndexKey(nil, v)
				}
			})
		}
		rows = append(rows, keyed{string(key), id})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].key != rows[j].key {
			return rows[i].key < rows[j].key
		}
		return rows[i].id < rows[j].id
	})
	ids := make([]uint64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	return ids
}

// planned returns the index named name when it is still the index the
// plan chose (on one of labels, with properties props), nil otherwise:
// an index dropped, or dropped and made again differently, between
// planning and the transaction's snapshot. The caller then reads the
// label.
func planned(sc *catalog.Schema, name string, labels, props []string) *catalog.Index {
	ix := sc.Index(name)
	if ix == nil || strings.Join(ix.Keys, "\x00") != strings.Join(props, "\x00") {
		return nil
	}
	for _, l := range labels {
		if l == ix.Label {
			return ix
		}
	}
	return nil
}

// labelNodes intersects bm (nil: all live nodes) with the seek's labels.
func (s *indexSeek) labelNodes(bm *roaring.Bitmap) *roaring.Bitmap {
	if bm == nil {
		bm = s.c.Tx.LiveNodes()
	}
	for _, name := range s.p.Labels {
		id, ok := s.c.Catalog.LookupLabel(name)
		if !ok {
			return roaring.New()
		}
		bm = roaring.And(bm, s.c.Tx.LabelNodes(id))
	}
	return bm
}

// seekable reports whether the index answers predicates on v exactly as
// Cypher compares: null, booleans, numbers, strings and lists of them.
// Other values (temporal ones, whose equality is not their text's) make
// the seek read the label instead; the Filter above decides.
func seekable(v vector.Value) bool {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []vector.Value:
		for _, e := range x {
			if !seekable(e) {
				return false
			}
		}
		return true
	}
	return false
}

// seek reads the index for the plan's key values; a nil bitmap means
// "read the label instead".
func (s *indexSeek) seek(tx *storage.Tx, ix *catalog.Index) (*roaring.Bitmap, error) {
	p := s.p
	for _, e := range append(append([]plan.Expr{}, p.Eq...), p.In, p.Lo, p.Hi, p.Prefix) {
		if e == nil {
			continue
		}
		v, err := s.value(e)
		if err != nil {
			return nil, err
		}
		if !seekable(v) {
			return nil, nil
		}
	}
	var prefix []byte
	for _, e := range p.Eq {
		v, err := s.value(e)
		if err != nil {
			return nil, err
		}
		var ok bool
		if prefix, ok = storage.AppendIndexKey(prefix, v); !ok {
			return roaring.New(), nil
		}
	}
	full := len(p.Eq) == len(p.Props)
	switch {
	case full:
		return tx.IndexEqual(ix, string(prefix)), nil
	case p.In != nil:
		v, err := s.value(p.In)
		if err != nil {
			return nil, err
		}
		list, _ := v.([]vector.Value)
		bm := roaring.New()
		for _, el := range list {
			key, ok := storage.AppendIndexKey(append([]byte(nil), prefix...), el)
			if !ok {
				continue
			}
			if len(p.Eq)+1 == len(p.Props) {
				bm.Or(tx.IndexEqual(ix, string(key)))
			} else {
				bm.Or(tx.IndexRange(ix, string(key), storage.PrefixEnd(string(key))))
			}
		}
		return bm, nil
	case p.Prefix != nil:
		v, err := s.value(p.Prefix)
		if err != nil {
			return nil, err
		}
		str, ok := v.(string)
		if !ok {
			return roaring.New(), nil
		}
		lo := string(storage.AppendStringPrefix(append([]byte(nil), prefix...), str))
		return tx.IndexRange(ix, lo, storage.PrefixEnd(lo)), nil
	case p.Lo != nil || p.Hi != nil:
		return s.rangeSeek(tx, ix, prefix)
	}
	return tx.IndexRange(ix, string(prefix), storage.PrefixEnd(string(prefix))), nil
}

// rangeSeek reads keys between the bounds (rangeBounds); nil means
// "read the label instead".
func (s *indexSeek) rangeSeek(tx *storage.Tx, ix *catalog.Index, prefix []byte) (*roaring.Bitmap, error) {
	from, to, st, err := s.rangeBounds(prefix)
	switch {
	case err != nil:
		return nil, err
	case st == boundsEmpty:
		return roaring.New(), nil
	case st == boundsUnusable:
		return nil, nil
	}
	return tx.IndexRange(ix, from, to), nil
}

const (
	boundsOK = iota
	boundsEmpty
	boundsUnusable
)

// rangeBounds turns the seek's range into keys [from, to) within the
// bounds' type class (n.p > 5 ranges over numbers only; two bounds of
// different classes, or a null bound, match nothing; a list bound is
// compared by Cypher's rules, so the index cannot serve it).
func (s *indexSeek) rangeBounds(prefix []byte) (from, to string, st int, err error) {
	p := s.p
	var lo, hi vector.Value
	if p.Lo != nil {
		if lo, err = s.value(p.Lo); err != nil {
			return "", "", 0, err
		}
	}
	if p.Hi != nil {
		if hi, err = s.value(p.Hi); err != nil {
			return "", "", 0, err
		}
	}
	if (p.Lo != nil && lo == nil) || (p.Hi != nil && hi == nil) {
		return "", "", boundsEmpty, nil
	}
	classOf := lo
	if p.Lo == nil {
		classOf = hi
	}
	cl, ch, ok := storage.TypeClassBounds(classOf)
	if !ok {
		return "", "", boundsUnusable, nil
	}
	if p.Lo != nil && p.Hi != nil {
		if l2, _, ok := storage.TypeClassBounds(hi); !ok || l2 != cl {
			return "", "", boundsEmpty, nil
		}
	}
	from = string(append(append([]byte(nil), prefix...), cl))
	to = string(append(append([]byte(nil), prefix...), ch))
	if p.Lo != nil {
		k, _ := storage.AppendIndexKey(append([]byte(nil), prefix...), lo)
		from = string(k)
		if !p.LoIncl {
			from = storage.PrefixEnd(from)
		}
	}
	if p.Hi != nil {
		k, _ := storage.AppendIndexKey(append([]byte(nil), prefix...), hi)
		to = string(k)
		if p.HiIncl {
			to = storage.PrefixEnd(to)
		}
	}
	if from == "" || (to != "" && from >= to) {
		return "", "", boundsEmpty, nil
	}
	return from, to, boundsOK, nil
}

// orderedBounds is the key range an ordered seek reads, with the
// states of rangeBounds: empty (a null value: nothing matches) or
// unusable (values the index cannot order; the planner orders only
// seeks of constants or parameters of seekable types, so that is a bug).
func (s *indexSeek) orderedBounds() (lo, hi string, st int, err error) {
	p := s.p
	var prefix []byte
	for _, e := range p.Eq {
		v, err := s.value(e)
		if err != nil {
			return "", "", 0, err
		}
		if !seekable(v) {
			return "", "", boundsUnusable, nil
		}
		var ok bool
		if prefix, ok = storage.AppendIndexKey(prefix, v); !ok {
			return "", "", boundsEmpty, nil
		}
	}
	switch {
	case len(p.Eq) == len(p.Props):
		return string(prefix), storage.PrefixEnd(string(prefix)), boundsOK, nil
	case p.Prefix != nil:
		v, err := s.value(p.Prefix)
		if err != nil {
			return "", "", 0, err
		}
		str, isStr := v.(string)
		if !isStr {
			if v == nil || seekable(v) {
				return "", "", boundsEmpty, nil
			}
			return "", "", boundsUnusable, nil
		}
		lo := string(storage.AppendStringPrefix(append([]byte(nil), prefix...), str))
		return lo, storage.PrefixEnd(lo), boundsOK, nil
	case p.Lo != nil || p.Hi != nil:
		return s.rangeBounds(prefix)
	}
	return "", "", boundsUnusable, nil
}

// value is the value of a seek's constant, parameter or list of them.
func (s *indexSeek) value(e plan.Expr) (vector.Value, error) {
	switch x := e.(type) {
	case *plan.Const:
		return x.Val, nil
	case *plan.Param:
		v, ok := s.c.Params[x.Name]
		if !ok {
			return nil, errs.New(errs.CodeInvalidParam, errs.CatData, "missing parameter $%s", x.Name)
		}
		return v, nil
	case *plan.List:
		out := make([]vector.Value, len(x.Elems))
		for i, el := range x.Elems {
			v, err := s.value(el)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *plan.Call:
		if x.Name == plan.FnSeal && len(x.Args) == 3 && s.c.Fields != nil {
			// An equality on a deterministic encrypted field seeks the
			// sealed value (plan/fle.go).
			v, err := s.value(x.Args[0])
			if err != nil {
				return nil, err
			}
			prop, _ := x.Args[1].(*plan.Const)
			key, _ := x.Args[2].(*plan.Const)
			if prop != nil && key != nil {
				p, _ := prop.Val.(string)
				k, _ := key.Val.(string)
				return s.c.Fields.Seal(p, k, v)
			}
		}
	}
	return nil, errs.Internal("BUG: index seek value is a %T", e)
}

func (s *indexSeek) Next() (*vector.Batch, error) {
	if !s.opened {
		if err := s.open(); err != nil {
			return nil, err
		}
	}
	if err := s.c.CheckCancel(); err != nil {
		return nil, err
	}
	var n int
	if s.isOrdered {
		n = s.nextOrdered()
		if n == 0 {
			return nil, nil
		}
	} else {
		n = s.it.NextMany(s.buf)
		if n == 0 {
			return nil, nil
		}
		ids := s.out.Cols[0].IDs[:n]
		for i, id := range s.buf[:n] {
			ids[i] = uint64(id)
		}
	}
	s.out.Len, s.out.Sel = n, nil
	s.c.Counters.RowsScanned += int64(n)
	return s.out, nil
}

// nextOrdered fills the output with the next ids in key order that carry
// the seek's labels; 0 at the end.
func (s *indexSeek) nextOrdered() int {
	out := s.out.Cols[0].IDs[:vector.Capacity]
	n := 0
	for n == 0 {
		var got []uint64
		if s.cursor != nil {
			if s.ids == nil {
				s.ids = make([]uint64, vector.Capacity)
			}
			k := s.cursor.Next(s.ids)
			got = s.ids[:k]
			s.c.Counters.DBHits += int64(k)
			s.c.Counters.IndexHits += int64(k)
		} else {
			k := min(len(s.ordered), vector.Capacity)
			got, s.ordered = s.ordered[:k], s.ordered[k:]
		}
		if len(got) == 0 {
			return 0
		}
		for _, id := range got {
			if s.labels.Contains(uint32(id)) {
				out[n] = id
				n++
			}
		}
	}
	return n
}
