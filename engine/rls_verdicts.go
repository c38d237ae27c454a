package engine

import (
	"encoding/binary"
	"math"

	"github.com/quiverdb/quiver/engine/exec/rowkey"
	"github.com/quiverdb/quiver/engine/plan"
)

// verdicts caches a visibility test's answers on change events by what
// the test reads of an element: its labels (or type) and the values of
// the properties it names. A feed's events mostly repeat a few such
// combinations (a tenant, an owner, a status), and each answer otherwise
// costs binding the values into the test and compiling it. A policy's
// predicate calls only deterministic functions and reads only the
// element and $user (engine/access), so the answer is a function of that
// key for as long as the policies stand (a new generation makes new
// verdicts). A test that reads anything else of the element (its id, its
// keys) is not cached.
type verdicts struct {
	test plan.Expr
	keys []string // the properties the test reads
	// seen holds the answers by key; nil when the test is not cached.
	seen map[string]bool
	buf  []byte
}

// verdictsMax bounds the answers kept (the map is emptied when full), and
// verdictKeyMax the bytes of one key: an element whose read values are
// longer is judged without the cache.
const (
	verdictsMax   = 4096
	verdictKeyMax = 512
)

func newVerdicts(test plan.Expr) *verdicts {
	v := &verdicts{test: test}
	if test == nil {
		return v
	}
	isElem := func(e plan.Expr) bool {
		c, ok := e.(*plan.ColRef)
		return ok && c.Idx == 0
	}
	// Every use of the element must be a property read or a label test:
	// count the element's references and those two uses.
	refs, uses := 0, 0
	known := plan.Walk(test, func(e plan.Expr) {
		switch x := e.(type) {
		case *plan.ColRef:
			if x.Idx == 0 {
				refs++
			}
		case *plan.Property:
			if isElem(x.Of) {
				uses++
				v.keys = append(v.keys, x.Key)
			}
		case *plan.HasLabels:
			if isElem(x.X) {
				uses++
			}
		}
	})
	if known && refs == uses {
		v.seen = map[string]bool{}
	}
	return v
}

// admits is admits(v.test, el), from the cache when the same labels and
// read values were judged before.
func (v *verdicts) admits(el *plan.Element) bool {
	if v.seen == nil {
		return admits(v.test, el)
	}
	key, ok := v.key(el)
	if !ok {
		return admits(v.test, el)
	}
	if r, hit := v.seen[string(key)]; hit {
		return r
	}
	r := admits(v.test, el)
	if len(v.seen) >= verdictsMax {
		clear(v.seen)
	}
	v.seen[string(key)] = r
	return r
}

// key encodes what the test reads of el; false when it is too long, or
// holds a negative zero (which the key encoding does not tell from 0,
// and a test can: 1 / x).
func (v *verdicts) key(el *plan.Element) ([]byte, bool) {
	b := v.buf[:0]
	if el.Rel {
		b = appendText(append(b, 'r'), el.Type)
	} else {
		b = binary.AppendUvarint(append(b, 'n'), uint64(len(el.Labels)))
		for _, l := range el.Labels {
			b = appendText(b, l)
		}
	}
	for _, k := range v.keys {
		x := el.Props[k]
		if f, isFloat := x.(float64); isFloat && f == 0 && math.Signbit(f) {
			return nil, false
		}
		b = rowkey.AppendValue(b, x)
		if len(b) > verdictKeyMax {
			return nil, false
		}
	}
	v.buf = b
	return b, true
}

func appendText(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
