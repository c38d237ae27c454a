package plan

import (
	"slices"

	"github.com/quiverdb/quiver/vector"
)

// Field-level encryption (engine/fle, docs/encryption.md) in the plan.
// The values of encrypted fields are stored sealed; the binder reads
// every property that some label encrypts through a decrypt call, which
// opens a sealed value for the statement's principal at run time
// (expr.Env.Fields) and passes any other value through. An optimizer rule
// that reads stored columns directly (counts, ranges, dictionary codes,
// top-k bars) sees a call, not a property, and declines.
//
// A deterministic field's values seal to equal strings for equal values,
// so an equality filter on one may seek its index: IndexablePred turns
// decrypt(n.p) = v into a seek for seal(v) on the indexes of the labels
// that seal p under a deterministic key, and the filter stays above the
// seek to decide.

// Names of the calls; no GQL text can call them.
const (
	FnDecrypt = "fle$decrypt" // (value, property name, deterministic seals: list of [label, key])
	FnSeal    = "fle$seal"    // (value, property name, key name)
)

// EncryptedField is one encrypted field as the binder sees it.
type EncryptedField struct {
	Label, Key    string
	Deterministic bool
}

// EncryptedFields maps a property name to the fields that encrypt it.
type EncryptedFields map[string][]EncryptedField

// decrypt wraps a read of property key (read as x) in a decrypt call
// when some label encrypts key.
func (b *binder) decrypt(x Expr, key string) Expr {
	fs := b.fields[key]
	if len(fs) == 0 {
		return x
	}
	var det []vector.Value
	for _, f := range fs {
		if f.Deterministic {
			det = append(det, []vector.Value{f.Label, f.Key})
		}
	}
	return &Call{Name: FnDecrypt, Args: []Expr{x, &Const{Val: key, T: vector.String}, &Const{Val: det, T: vector.Any}}, T: vector.Any}
}

// decryptDynamic wraps a read of a property named at run time (x[k]).
func (b *binder) decryptDynamic(x, key Expr) Expr {
	if len(b.fields) == 0 {
		return x
	}
	return &Call{Name: FnDecrypt, Args: []Expr{x, key, &Const{Val: nil, T: vector.Null}}, T: vector.Any}
}

// SealedSeek is an equality IndexablePred found on a decrypted property:
// the indexes of Labels may seek Seal(label) for it.
type SealedSeek struct {
	Prop  string
	Value Expr
	keys  [][2]string // label, key
}

// For returns the seek value for an index on label, or nil when label
// does not seal the property deterministically.
func (s *SealedSeek) For(label string) Expr {
	for _, lk := range s.keys {
		if lk[0] == label {
			return &Call{Name: FnSeal, Args: []Expr{s.Value, &Const{Val: s.Prop, T: vector.String}, &Const{Val: lk[1], T: vector.String}},
				T: vector.String}
		}
	}
	return nil
}

// decryptedProp recognises decrypt(col.prop) of a deterministic field:
// the column, the property and the (label, key) pairs that seal it.
func decryptedProp(e Expr) (int, string, [][2]string, bool) {
	c, ok := e.(*Call)
	if !ok || c.Name != FnDecrypt || len(c.Args) != 3 {
		return 0, "", nil, false
	}
	col, prop, ok := PropOfCol(c.Args[0])
	if !ok {
		return 0, "", nil, false
	}
	det, _ := c.Args[2].(*Const)
	if det == nil {
		return 0, "", nil, false
	}
	l, _ := det.Val.([]vector.Value)
	var keys [][2]string
	for _, x := range l {
		p, _ := x.([]vector.Value)
		if len(p) != 2 {
			continue
		}
		label, _ := p[0].(string)
		key, _ := p[1].(string)
		keys = append(keys, [2]string{label, key})
	}
	return col, prop, keys, len(keys) > 0
}

// sealedEquality recognises decrypt(col.prop) = value (either way round)
// on a deterministic field.
func sealedEquality(x *Binary) (int, *SealedSeek, bool) {
	if x.Op != OpEq {
		return 0, nil, false
	}
	for _, side := range [][2]Expr{{x.L, x.R}, {x.R, x.L}} {
		if col, prop, keys, ok := decryptedProp(side[0]); ok && isValue(side[1]) {
			return col, &SealedSeek{Prop: prop, Value: side[1], keys: slices.Clone(keys)}, true
		}
	}
	return 0, nil, false
}
