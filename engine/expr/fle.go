package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// FieldCrypto opens and seals the values of encrypted fields for the
// statement's principal (field-level encryption, engine/fle). The
// engine's implementation is fle.Reader.
type FieldCrypto interface {
	// Open returns what the principal reads of v, a stored value of
	// property prop: v unless it is sealed.
	Open(prop string, v vector.Value) (vector.Value, error)
	// Seal returns v sealed under deterministic key as a value of prop:
	// what an index seek on the field looks for.
	Seal(prop, key string, v vector.Value) (vector.Value, error)
}

// compileFLE compiles the plan's decrypt and seal calls (plan/fle.go);
// nil for any other call.
func compileFLE(c *Env, e *plan.Call) (Evaluator, error) {
	var fn functions.Kernel
	switch e.Name {
	case plan.FnDecrypt:
		fn = func(_ functions.Env, a []vector.Value) (vector.Value, error) {
			prop, ok := a[1].(string)
			if !ok || c.Fields == nil {
				return a[0], nil
			}
			return c.Fields.Open(prop, a[0])
		}
	case plan.FnSeal:
		fn = func(_ functions.Env, a []vector.Value) (vector.Value, error) {
			prop, _ := a[1].(string)
			key, _ := a[2].(string)
			if c.Fields == nil {
				return nil, errs.Internal("an encrypted field's seek ran without field-level encryption")
			}
			return c.Fields.Seal(prop, key, a[0])
		}
	default:
		return nil, nil
	}
	args, err := compileArgs(c, e.Args)
	if err != nil {
		return nil, err
	}
	return newCallEval(c, e.Name, fn, args, e.T), nil
}

// openProps opens, in place, the values of a whole entity's properties
// the principal reads (properties(), keys(), n{.*}): a value it may not
// read is removed, or is an error when its field says so.
func (c *Env) openProps(m map[string]vector.Value) error {
	if c.Fields == nil {
		return nil
	}
	for k, v := range m {
		out, err := c.Fields.Open(k, v)
		if err != nil {
			return err
		}
		if out == nil {
			delete(m, k)
		} else {
			m[k] = out
		}
	}
	return nil
}
