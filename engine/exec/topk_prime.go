package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// A top-k's bar known before the first row (rule topk-bar). When the
// Sort's Project reads the scan's nodes directly (no filter drops any),
// its first key is a STRING property and k (SKIP + LIMIT) is large, the
// Sort counts the scanned nodes by the property's dictionary code
// before it reads a row, and publishes the string at which the counts,
// in sort order, reach k: at least k rows sort no later than it, so no
// row after it can enter. ORDER BY p.name SKIP 50000 LIMIT 10 over a
// million people (W35) otherwise projects and holds about half of them
// before its own bar, known only after its first prunes, tightens.
//
// Rows without a code in the dictionary (a chunk written since, another
// dictionary) and rows without a value are not counted: each can only
// sort among the k, making the true k-th value earlier, so the bar stays
// one no row that belongs to the answer fails.

// primeMinK is the smallest k primed: below it the Sort's own bar comes
// after a few batches, and the count would cost more than it saves.
const primeMinK = 8 * vector.Capacity

// primeScan returns the scan the Sort over p reads directly through its
// Project, when the bar may be primed; nil otherwise.
func primeScan(p *plan.Sort) *plan.NodeScan {
	proj, ok := p.Input.(*plan.Project)
	if !ok {
		return nil
	}
	scan, _ := proj.Input.(*plan.NodeScan)
	return scan
}

// primeBar publishes the bar of s from the codes of the scanned nodes;
// it does nothing when the column is not of strings, has no dictionary,
// or holds fewer than k coded values.
func (s *sortOp) primeBar() {
	bar, c := s.pub, s.c
	if bar == nil || s.prime == nil || s.topK < primeMinK || c.Deleted.HasNodes() {
		return
	}
	k, ok := c.Catalog.LookupKey(bar.key)
	if !ok {
		return
	}
	ids := vector.New(vector.Node, vector.Capacity)
	codes := make([]int32, vector.Capacity)
	buf := make([]uint32, vector.Capacity)
	var dict *storage.StringDict
	var counts []int64
	it := scanBitmap(c, s.prime).ManyIterator()
	for {
		n := it.NextMany(buf)
		if n == 0 {
			break
		}
		for i, id := range buf[:n] {
			ids.IDs[i] = uint64(id)
		}
		d, ok := c.Tx.GatherNodePropCodesIn(k, dict, ids, nil, n, codes)
		if !ok {
			return
		}
		if d == nil {
			continue
		}
		if dict == nil {
			dict, counts = d, make([]int64, len(d.Strs))
		}
		for _, x := range codes[:n] {
			if x >= 0 {
				counts[x]++
			}
		}
	}
	if dict == nil {
		return
	}
	// The counts in sort order, from the end the Sort takes first.
	rank := dict.Ranks()
	byRank := make([]int32, len(rank))
	for code, r := range rank {
		byRank[r] = int32(code)
	}
	var sum int64
	for i := range byRank {
		r := i
		if bar.desc {
			r = len(byRank) - 1 - i
		}
		if sum += counts[byRank[r]]; sum >= s.topK {
			bar.v.Store(&barValue{str: true, s: dict.Strs[byRank[r]]})
			return
		}
	}
}
