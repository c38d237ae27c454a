package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// countCodes answers `MATCH (n:L) WHERE <a test of n's string property>
// [AND <integer ranges on n>] RETURN count(*)` (strategy count-codes):
// an Aggregate of count(*) alone over a Filter that is one code-match
// term (STARTS WITH, ENDS WITH, CONTAINS, IN a list of strings), with
// range terms of the same node or nothing beside it, over a node scan.
// The range terms are tested on the ids the codes pass, a batch at a
// time, through the columns' integer views. It tests each
// string of the column's dictionary once and counts the scanned nodes by
// their codes, straight from the chunks when the scanned ids are one
// range (a bulk-loaded label): no id batches through a filter, no
// aggregate state; the strings of an open chunk are tested one by one.
// A value of another type, a statement with writes or deletions, or
// scanned ids that are not one range send the whole count to the general
// operators, which answer the same.
type countCodes struct {
	oneCount
	scan  *plan.NodeScan
	term  plan.CodeTerm
	test  func(string) bool
	terms []rangeTerm // the Filter's other conjuncts (see codesCounter)
}

// codesCounter counts on one goroutine, the statement's or a worker's,
// with pass tables and scratch of its own: the test is the only thing
// the goroutines share, and it is pure.
type codesCounter struct {
	c      *Context
	k      catalog.KeyID
	test   func(string) bool
	passes map[*storage.StringDict][]uint8
	err    error // a charge for a pass table failed
	// The Filter's other conjuncts, integer range terms of the scanned
	// node, tested through the columns' views on the ids the codes pass.
	rangeViews
}

// countCodesSpan is the ids counted between two checks of the
// statement's stop: 512 groups, about a millisecond.
const countCodesSpan = 1 << 20

// newCountCodes returns the operator for p when the physical pass chose
// count-codes for it, else nil; nil too, and a note for PROFILE, when
// the bound value is not what the test needs. A worker never builds it:
// the count needs no workers.
func newCountCodes(c *Context, p plan.Operator) *countCodes {
	if c.worker != nil || !plan.Chose(p, plan.StrategyCountCodes) {
		return nil
	}
	a, f, scan, ok := plan.CountOfFilteredScan(p)
	if !ok {
		return nil
	}
	term, rest, ok := plan.CodeMatch(f.Pred)
	if !ok || term.Col != 0 {
		return nil
	}
	test := codeTest(term.Op, bound(c, term.Want))
	if test == nil {
		c.fellBack(p, plan.StrategyCountCodes, notOfType(term.Want, "a string"))
		return nil
	}
	var terms []rangeTerm
	if rest != nil {
		if terms, ok = rangeTerms(c, rest, a, plan.StrategyCountCodes); !ok {
			return nil
		}
	}
	return &countCodes{oneCount: oneCount{c: c, p: a, cols: len(a.Columns())}, scan: scan, term: term, test: test, terms: terms}
}

func (o *countCodes) Next() (*vector.Batch, error) {
	return o.next(plan.StrategyCountCodes, o.count)
}

// count counts the scanned nodes that pass; why says what sends the
// count to the general operators instead ("" when none did).
func (o *countCodes) count() (cnt int64, why string, err error) {
	if o.c.Deleted.HasNodes() {
		return 0, "the statement deleted nodes", nil
	}
	if o.c.Tx.Writes() {
		return 0, "the statement wrote", nil
	}
	k, ok := o.c.Catalog.LookupKey(o.term.Key)
	if !ok {
		return 0, "no value has the key", nil
	}
	bm := scanBitmap(o.c, o.scan)
	card := bm.GetCardinality()
	if card == 0 {
		return 0, "", nil
	}
	lo, hi := uint64(bm.Minimum()), uint64(bm.Maximum())+1
	if hi-lo != card {
		return 0, "the scanned nodes are not one range of ids", nil
	}
	serial := o.counter(o.c, k)
	if !serial.bind(o.c, card) {
		return 0, noView, nil
	}
	run, err := o.workers()
	if err != nil {
		return 0, "", err
	}
	var clean bool
	if run != nil {
		cnt, clean, err = o.countOnWorkers(run, k, card)
	} else {
		cnt, clean, err = serial.countIDs(lo, hi)
	}
	if err != nil || !clean {
		return 0, notString(clean), err
	}
	o.c.Counters.RowsScanned += int64(card)
	o.c.Counters.DBHits += int64(card) * int64(1+len(o.terms))
	return cnt, "", nil
}

// notString is why a count that met a value of another type falls back.
func notString(clean bool) string {
	if clean {
		return ""
	}
	return "a value of another type than STRING"
}

func (o *countCodes) counter(c *Context, k catalog.KeyID) *codesCounter {
	return &codesCounter{c: c, k: k, test: o.test, passes: map[*storage.StringDict][]uint8{}, rangeViews: rangeViews{terms: o.terms}}
}

// countIDs counts the passing nodes of ids lo..hi-1, checking the
// statement's stop between spans.
func (cc *codesCounter) countIDs(lo, hi uint64) (cnt int64, clean bool, err error) {
	span := uint64(countCodesSpan)
	if len(cc.terms) > 0 {
		span = vector.Capacity // the ids a batch of the range terms takes
	}
	for from := lo; from < hi; from += span {
		if (from-lo)%countCodesSpan == 0 && from > lo {
			if err := cc.c.CheckCancel(); err != nil {
				return 0, false, err
			}
		}
		n, clean := cc.countSpan(from, min(hi, from+span))
		if cc.err != nil {
			return 0, false, cc.err
		}
		if !clean {
			return 0, false, nil
		}
		cnt += n
	}
	return cnt, true, nil
}

// countSpan counts the passing nodes of ids from..to-1: by their codes
// alone, or (with range terms) the ids the codes pass tested on the
// terms' views, at most a batch of them.
func (cc *codesCounter) countSpan(from, to uint64) (int64, bool) {
	if len(cc.terms) == 0 {
		return cc.c.Tx.CountNodePropCodes(cc.k, from, to, cc.pass, cc.test)
	}
	cc.scratch()
	ids, clean := cc.c.Tx.SelectNodePropCodesIn(cc.k, from, to, cc.pass, cc.test, cc.ids.IDs[:0])
	if !clean || len(ids) == 0 {
		return 0, clean
	}
	return cc.passing(len(ids)), true
}

// pass is the test's answer for each string of dict, worked out once per
// dictionary and charged to the statement.
func (cc *codesCounter) pass(dict *storage.StringDict) []uint8 {
	if p, ok := cc.passes[dict]; ok {
		return p
	}
	if err := cc.c.Mem.Charge(int64(len(dict.Strs))); err != nil {
		cc.err = err
		return nil // too short: the storage stops at the chunk
	}
	p := make([]uint8, len(dict.Strs))
	for i, s := range dictStrings(dict) {
		p[i] = boolByte(cc.test(s))
	}
	cc.passes[dict] = p
	return p
}
